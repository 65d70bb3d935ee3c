"""Faults for the Hub stand-in (`hub.fault = ...`, hub_standin.py): answers a broken or careless Hub gives.

Each echoes the token of the request it answers, as a careless Hub or proxy does: `authorization_echo` in an HTTP 500
(its X-Error-Message header and its JSON body), `token_in_created_url` in a successful answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from hub_standin_http import Request, Response
from hub_standin_routes import route
from hub_standin_store import Store

Fault = Callable[[Request], Response | None]


def token_of(request: Request) -> str:
    """The token of the request's Authorization header (`Bearer TOKEN`)."""
    return request.headers.get("Authorization", "").partition(" ")[2]


def authorization_echo(method: str, path_part: str, in_header: bool = True, in_body: bool = True) -> Fault:
    """A Hub that answers HTTP 500 to each `method` request whose path holds `path_part`, echoing the request's token
    (bare, then as the Authorization header) in its X-Error-Message header and, with the request's body, in its JSON
    body; every other request gets the stand-in's own answer."""

    def answer(request: Request) -> Response | None:
        if request.method != method or path_part not in "/".join(request.segments):
            return None
        echo = f"rejected token {token_of(request)}; Authorization: {request.headers.get('Authorization', '')}"
        body = request.body[:2000].decode("utf-8", "replace")
        response = Response.json({"error": f"{echo}\n{body}" if in_body else "rejected"}, 500)
        response.headers["X-Error-Message"] = echo if in_header else "rejected"
        return response

    return answer


def token_in_created_url(store: Store) -> Fault:
    """A Hub whose answer to creating a repo (made, or found made) names a URL that ends with the request's token."""

    def answer(request: Request) -> Response | None:
        if (request.method, "/".join(request.segments)) != ("POST", "api/repos/create"):
            return None
        response = route(store, request)
        data = json.loads(response.body)
        data["url"] = f"{data['url']}-{token_of(request)}"
        return Response.json(data, response.status)

    return answer
