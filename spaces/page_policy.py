"""The Content-Security-Policy every page of this package is served with (`longform-eval view`, the arena Space):
defence in depth behind `safe_markdown`, which already shows every image a model, a dataset or a user names as its
text, so that a page loads nothing from another origin even if some markup got through.

Gradio's page needs inline scripts (index.html inlines the app's config) and inline styles, so the policy allows those;
what it forbids is every load from elsewhere: images, media, fonts, frames, objects, styles and scripts, and
connections (fetch, websockets) to any server but the page's own. Its own images stay (gradio's icons, and plots,
which it sends as data: URLs).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "media-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    )
)


class PagePolicy:
    """ASGI middleware that adds CONTENT_SECURITY_POLICY to every HTTP response (a plain ASGI wrapper: gradio's
    streamed responses pass through as they come)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_policy(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
            await send(message)

        await self.app(scope, receive, send_with_policy)


def with_page_policy(app_kwargs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`app_kwargs` for `gr.Blocks.launch` (the FastAPI app's settings) with PagePolicy added to its middleware."""
    kwargs = dict(app_kwargs or {})
    kwargs["middleware"] = [*kwargs.get("middleware", ()), Middleware(PagePolicy)]
    return kwargs
