"""No page (`view`, the arena Space) loads a remote resource that a model, a dataset or a user names: an image in an
answer would tell its author who read it, and when.

The renderer (`safe_markdown`) shows every image as its text, the address a link (loaded only when clicked), and
escapes every HTML tag; the markdown it sends is rendered here with markdown-it (CommonMark with GFM tables, as
gradio's own dialect) to see what a browser gets. Behind it, every page is served with a Content-Security-Policy that
forbids images, media, frames, styles and scripts from any other origin (`page_policy`). In headless Chromium, a
beacon server on 127.0.0.1 counts the requests the pages make for the addresses an answer names: none."""

from __future__ import annotations

import http.server
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.benchmarks.rows import benchmark_rows
from longform_eval.spaces.arena import Arena
from longform_eval.spaces.items import Item
from longform_eval.spaces.page_policy import CONTENT_SECURITY_POLICY
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.safe_markdown import inert_markdown, inert_text
from longform_eval.spaces.storage import VoteStore

from .conftest import import_run, serve
from .test_app import browser, text_of, wait_for  # noqa: F401 (the browser fixture, reused)
from .test_viewer_browser import start_view

MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])
# What markdown makes of text, links and code: any other element (an image, a frame, a style) could load something.
TEXT_TAGS = {"p", "a", "em", "strong", "code", "pre", "del", "br", "hr", "blockquote", "ul", "ol", "li"}
TEXT_TAGS |= {"h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td"}
TEXT_ATTRIBUTES = {"href", "title", "class", "start", "style"}  # `style`: markdown-it's table cell alignment
SETTLE_SECONDS = 2.0  # after the answer is on screen: long enough for an image it named to be requested
RECORD_VIOLATIONS = (
    "window.__refused = []; document.addEventListener('securitypolicyviolation', "
    "(e) => window.__refused.push(`${e.effectiveDirective} ${e.blockedURI}`));"
)


def remote_markup(base: str) -> dict[str, str]:
    """Every way an answer could name a resource for the page to load, each at its own path under `base`."""
    return {
        "inline image": f"![b]({base}/inline.png)",
        "inline image with a title": f'![b]({base}/title.png "t")',
        "image with an address in angle brackets": f"![b](<{base}/angle.png>)",
        "image with nested brackets and parentheses": f"![a [b] c]({base}/nested_(1).png)",
        "image inside a link (a badge)": f"[![b]({base}/badge.png)]({base}/badge-link)",
        "image after an escaped backslash": f"\\\\![b]({base}/backslash.png)",
        "image in a table cell": f"| a | b |\n|---|---|\n| ![b]({base}/cell.png) | x |",
        "image in a list and a heading": f"- ![b]({base}/list.png)\n\n## ![b]({base}/heading.png)",
        "reference image": f"![x][r]\n\n[r]: {base}/reference.png",
        "collapsed and shortcut reference images": f"![s][] and ![s]\n\n[s]: {base}/shortcut.png 'title'",
        "reference defined on two lines": f"![x][two]\n\n[two]:\n  {base}/two-lines.png",
        "raw img": f'<img src="{base}/raw.png">',
        "raw img srcset": f'<img srcset="{base}/srcset.png 1x">',
        "picture source": f'<picture><source srcset="{base}/source.png"></picture>',
        "stylesheet link": f'<link rel="stylesheet" href="{base}/style.css">',
        "css url()": f'<div style="background:url({base}/css.png)">x</div>',
        "style block": f"<style>body {{ background: url({base}/block.png) }}</style>",
        "svg image": f'<svg><image href="{base}/svg.png"/></svg>',
        "video poster, audio, iframe, object, embed": (
            f'<video poster="{base}/poster.png"></video><audio src="{base}/audio.mp3"></audio>'
            f'<iframe src="{base}/frame"></iframe><object data="{base}/object"></object><embed src="{base}/embed">'
        ),
        "data: image (dropped: no image is drawn at all)": "![d](data:image/png;base64,iVBORw0KGgo=)",
        "LaTeX image (KaTeX draws none: it is not trusted)": f"$$\\includegraphics{{{base}/latex.png}}$$",
    }


class Elements(HTMLParser):
    """The elements of a rendered page and their attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def loading_elements(markdown: str) -> list[str]:
    """The elements of `markdown` rendered that are not text, links or code, or carry an attribute that could load."""
    parser = Elements()
    parser.feed(MARKDOWN.render(markdown))
    return [
        f"<{tag} {' '.join(attrs)}>"
        for tag, attrs in parser.found
        if tag not in TEXT_TAGS or set(attrs) - TEXT_ATTRIBUTES or "url(" in (attrs.get("style") or "")
    ]


def test_answers_and_names_render_every_image_and_tag_as_text():
    """Inline, reference and nested images, raw HTML of every loading kind: no `<img>` (nor any element that loads)
    in the page, for answers and prompts (`inert_markdown`) and for names and judge reasons (`inert_text`)."""
    base = "http://127.0.0.1:18820"
    loading = {}
    for name, markup in remote_markup(base).items():
        for render in (inert_markdown, inert_text):
            shown = render(f"Intro.\n\n{markup}\n\nOutro.")
            if found := loading_elements(shown):
                loading[f"{render.__name__}: {name}"] = found
    assert not loading, loading


def test_an_image_shows_as_its_own_markdown_and_code_that_can_hold_no_image_is_kept():
    page = MARKDOWN.render(inert_markdown("See ![a chart](https://example.org/chart.png) here."))
    assert "<img" not in page and "See ![a chart](https://example.org/chart.png) here." in page
    rust = "```rust\nlet v = vec![1, 2];\n```"  # no `](` and no `]:`: nothing in it can be an image
    assert inert_markdown(rust) == rust


def test_every_page_is_served_with_a_policy_that_forbids_remote_loads(launched_app):
    _, url = launched_app
    with urllib.request.urlopen(url, timeout=30) as response:
        policy = response.headers["Content-Security-Policy"]
    assert policy == CONTENT_SECURITY_POLICY
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'" and directives["img-src"] == "'self' data: blob:"
    assert directives["object-src"] == "'none'" and directives["connect-src"] == "'self'"


class Beacon:
    """A tiny HTTP server on 127.0.0.1 (a free port) that answers every GET with an empty image and keeps its path."""

    def __init__(self) -> None:
        hits = self.hits = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def beacon() -> Iterator[Beacon]:
    server = Beacon()
    try:
        yield server
    finally:
        server.close()


def hostile_answer(base: str) -> str:
    """One answer holding every kind of remote markup, with a marker to wait for."""
    parts = [f"{name}: {markup}" for name, markup in remote_markup(base).items()]
    return "Beacon answer.\n\n" + "\n\n".join(parts) + "\n\nEnd of the beacon answer."


@pytest.fixture(scope="module")
def view_url(beacon, tmp_path_factory) -> Iterator[str]:
    """`longform-eval view` on a LongBench-Write run folder whose every answer holds the beacon's markup."""
    root = tmp_path_factory.mktemp("beacon-view")
    rows = benchmark_rows(create_benchmark("longbench_write", "all"), None)
    answers = {row["id"]: hostile_answer(beacon.base) for row in rows}
    process, url = start_view([import_run(root / "beacon", "longbench_write:all", answers, "beacon-writer")])
    try:
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()


def settled_hits(beacon: Beacon) -> list[str]:
    time.sleep(SETTLE_SECONDS)
    return list(beacon.hits)


def record_policy_violations(driver) -> None:
    """From the next page on, keep each load the page policy refuses in `window.__refused` ("directive address")."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_VIOLATIONS})


def refused(driver) -> list[str]:
    return driver.execute_script("return window.__refused")


@pytest.mark.slow
def test_browser_view_loads_nothing_an_answer_names(view_url, beacon, browser):  # noqa: F811
    from selenium.webdriver.common.by import By

    beacon.hits.clear()
    record_policy_violations(browser)
    browser.get(view_url)
    wait_for(lambda: "End of the beacon answer" in text_of(browser, "#answer-a"))
    assert settled_hits(beacon) == []
    assert f"![b]({beacon.base}/inline.png)" in text_of(browser, "#answer-a")  # the image shown as its text
    assert not browser.find_elements(By.CSS_SELECTOR, "#answer-a img, #answer-a iframe, #answer-a video")
    # behind the renderer, the page's policy: an image put on the page anyway is not fetched
    browser.execute_script(
        "const image = document.createElement('img'); image.src = arguments[0];"
        "document.querySelector('#answer-a').appendChild(image);",
        f"{beacon.base}/injected.png",
    )
    assert settled_hits(beacon) == []
    assert refused(browser) == [f"img-src {beacon.base}/injected.png"]  # and the page needed nothing it forbids


def beacon_pool(base: str) -> ResponsePool:
    """Two questions (with checklists, so the Annotate tab shows their answers too), each holding the beacon's
    markup, answered by two models in the same way."""
    items = [
        Item(f"beacon:all/q{n}", "beacon", f"q{n}", hostile_answer(base), "chat", "", ("a checklist", "another"))
        for n in (1, 2)
    ]
    answers = {item.key: {"model-a": hostile_answer(base), "model-b": hostile_answer(base)} for item in items}
    return ResponsePool(items, answers)


@pytest.fixture(scope="module")
def beacon_arena(beacon, tmp_path_factory):
    yield from serve(Arena(beacon_pool(beacon.base), VoteStore(tmp_path_factory.mktemp("beacon") / "votes.sqlite")))


@pytest.mark.slow
def test_browser_arena_loads_nothing_an_answer_or_a_question_names(beacon_arena, beacon, browser):  # noqa: F811
    from selenium.webdriver.common.by import By

    _, url = beacon_arena
    beacon.hits.clear()
    record_policy_violations(browser)
    browser.get(url)
    for _ in range(8):  # as the defect was seen: eight comparisons, each its question and two answers
        wait_for(lambda: all("End of the beacon answer" in text_of(browser, f"#{p}") for p in ("prompt", "answer-a")))
        browser.find_element(By.CSS_SELECTOR, "#new-comparison").click()
        time.sleep(0.5)
    assert f"![b]({beacon.base}/inline.png)" in text_of(browser, "#answer-b")  # the image shown as its text
    shown = browser.page_source.count("End of the beacon answer")
    browser.find_element(By.XPATH, "//button[@role='tab' and contains(., 'Annotate')]").click()
    browser.find_element(By.CSS_SELECTOR, "#load-annotation").click()  # a question and an answer more
    wait_for(lambda: browser.page_source.count("End of the beacon answer") >= shown + 2)
    assert settled_hits(beacon) == []
    browser.find_element(By.XPATH, "//button[@role='tab' and contains(., 'Leaderboard')]").click()
    plot = "img[src^='data:image/']:not([src^='data:image/svg'])"  # the win-rate plot (gradio's icons are svg)
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, plot))
    assert refused(browser) == []  # nothing was refused: the renderer drew no image, and gradio needs no other origin
