"""The running app, driven by gradio_client and by a real browser (Debian's headless Chromium)."""

from __future__ import annotations

import os
import shutil
import time

import pytest
from gradio_client import Client

from longform_eval.spaces.app import HEADER_CSS, MAX_UPLOAD_BYTES, build_app, launch, server_address
from longform_eval.spaces.arena import Arena
from longform_eval.spaces.page_policy import PagePolicy
from longform_eval.spaces.storage import VoteStore


def test_gradio_client_loads_an_item_votes_and_reads_the_leaderboard(running_app):
    arena, url = running_app
    client = Client(url, verbose=False)
    prompt, left, right, status = client.predict("chat", "", api_name="/new_pair")
    assert "hellobench · chat /" in prompt and left and right and status == "Which answer is better?"
    summary, *_ = client.predict(api_name="/leaderboard")
    assert summary.startswith("**0 human votes**")
    reveal = client.predict("tester", api_name="/vote_A")  # the reveal only: no leaderboard in the vote's answer
    assert "You voted **A is better**" in reveal and "No LLM judge" in reveal
    assert arena.store.count() == 1 and arena.store.votes()[0].annotator == "tester"
    reveal = client.predict("tester", api_name="/vote_B")
    assert "already voted" in reveal and arena.store.count() == 1
    summary, *_ = client.predict(api_name="/leaderboard")
    assert summary.startswith("**1 human vote**")


def test_votes_and_pairs_are_not_serialized_and_the_leaderboard_has_one_worker(small_pool, tmp_path):
    arena = Arena(small_pool, VoteStore(tmp_path / "v.sqlite"))
    app = build_app(arena)
    limits = {f.api_name: (f.concurrency_limit, f.concurrency_id) for f in app.fns.values()}
    assert all(limits[name][0] is None for name in ("new_pair", "vote_A", "vote_B", "vote_equally_bad"))
    assert limits["leaderboard"] == (1, "leaderboard")
    loads = [f for f in app.fns.values() if any(target[1] == "load" for target in f.targets)]
    assert [f.fn for f in loads] == [arena.new_pair] and loads[0].concurrency_limit is None  # a pair on open


def test_20_votes_from_10_concurrent_clients_store_20_rows(running_app):
    from concurrent.futures import ThreadPoolExecutor

    arena, url = running_app
    computed = arena.board.computations

    def client(number: int) -> list[str]:
        session = Client(url, verbose=False)
        reveals = []
        for _ in range(2):
            session.predict("", "", api_name="/new_pair")
            reveals.append(session.predict(f"client{number}", api_name="/vote_equally_good"))
        return reveals

    with ThreadPoolExecutor(10) as workers:
        reveals = [r for batch in workers.map(client, range(10)) for r in batch]
    assert all(r.startswith("You voted") for r in reveals) and arena.store.count() == 20
    assert len({v.token for v in arena.store.votes()}) == 20 and arena.board.computations == computed


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture
def browser(tmp_path):
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("Debian's chromium and chromium-driver are not installed")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'chromium'}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_window_size(1400, 1800)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(predicate, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("timed out")


def text_of(driver, selector: str) -> str:
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return found[0].text if found else ""


def test_browser_vote_changes_the_leaderboard_and_model_output_stays_inert(running_app, browser, tmp_path):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    arena, url = running_app
    browser.get(url)
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#new-comparison"))
    browser.find_element(By.XPATH, "//button[@role='tab' and contains(., 'Leaderboard')]").click()
    wait_for(lambda: "0 human votes" in text_of(browser, "#leaderboard-summary"))
    browser.find_element(By.XPATH, "//button[@role='tab' and contains(., 'Arena')]").click()
    for _ in range(10):  # load comparisons until the hostile answer is on screen
        browser.find_element(By.CSS_SELECTOR, "#new-comparison").click()
        wait_for(
            lambda: (
                "answers" in text_of(browser, "#answer-a") + text_of(browser, "#answer-b")
                or "Intro text" in text_of(browser, "#answer-a") + text_of(browser, "#answer-b")
            )
        )
        if "Intro text" in text_of(browser, "#answer-a") + text_of(browser, "#answer-b"):
            break
    panes = text_of(browser, "#answer-a") + text_of(browser, "#answer-b")
    assert "<script>" in panes and "onerror" in panes  # shown as text
    for pane in ("#answer-a", "#answer-b"):
        assert not browser.find_elements(By.CSS_SELECTOR, f"{pane} script, {pane} img, {pane} a[href^='javascript']")
    assert browser.execute_script("return window.__owned === undefined")
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018
    browser.find_element(By.CSS_SELECTOR, "#vote-A").click()
    wait_for(lambda: "You voted" in text_of(browser, "#reveal"))
    browser.find_element(By.XPATH, "//button[@role='tab' and contains(., 'Leaderboard')]").click()
    wait_for(lambda: "1 human vote" in text_of(browser, "#leaderboard-summary"))
    browser.save_screenshot(str(tmp_path / "leaderboard.png"))
    assert arena.store.count() == 1


@pytest.mark.slow
def test_browser_page_opens_with_a_pair_loaded_and_a_chinese_question_rendered(zh_app, zh_rows, browser):
    from selenium.webdriver.common.by import By

    arena, url = zh_app
    browser.get(url)  # nothing is clicked: the page loads its first pair by itself
    wait_for(lambda: text_of(browser, "#answer-a") and text_of(browser, "#answer-b"))
    intro = text_of(browser, "#intro")
    assert "longform-eval arena" in intro and "How to vote" in intro
    assert browser.find_element(By.CSS_SELECTOR, "#intro h1").text.startswith("longform-eval arena")
    question = text_of(browser, "#prompt")
    (row,) = [row for row in zh_rows if row["id"] in question]
    asked = [line.strip() for line in row["prompt"].splitlines() if line.strip()]
    assert "longbench_write" in question and [line.strip() for line in question.splitlines()][-len(asked) :] == asked
    assert "&#" not in question and "\\u" not in question  # characters, not escapes
    assert "的回答" in text_of(browser, "#answer-a") and "的回答" in text_of(browser, "#answer-b")
    assert text_of(browser, "#status") == "Which answer is better?"
    browser.find_element(By.CSS_SELECTOR, "#vote-equally_good").click()
    wait_for(lambda: "You voted" in text_of(browser, "#reveal"))
    assert "imported:writer-a" in text_of(browser, "#reveal") and arena.store.count() == 1
    browser.find_element(By.XPATH, "//button[@role='tab' and contains(., 'Leaderboard')]").click()
    wait_for(lambda: "1 human vote" in text_of(browser, "#leaderboard-summary"))


def upload(url: str, size: int) -> int:
    """POST one file of `size` bytes to gradio's anonymous upload route; the HTTP status."""
    import httpx

    files = {"files": ("big.bin", b"\0" * size, "application/octet-stream")}
    return httpx.post(f"{url}gradio_api/upload", files=files, timeout=60, trust_env=False).status_code


def test_upload_route_refuses_2mb_and_takes_a_small_file(running_app):
    _, url = running_app
    assert MAX_UPLOAD_BYTES == 1_000_000
    assert upload(url, 2_000_000) == 413
    assert upload(url, 1_000) == 200  # the route itself works: the cap is what refused


@pytest.mark.parametrize(
    ("settings", "environ", "address"),
    [
        ({}, {}, ("127.0.0.1", None)),
        ({"host": None, "port": None}, {}, ("127.0.0.1", None)),
        ({}, {"GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": "7860"}, ("0.0.0.0", 7860)),
        ({"host": "::1", "port": 9000}, {"GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": "7860"}, ("::1", 9000)),
        ({"port": 9000}, {"GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": "7860"}, ("0.0.0.0", 9000)),
        ({}, {"GRADIO_SERVER_NAME": "", "GRADIO_SERVER_PORT": ""}, ("127.0.0.1", None)),
    ],
)
def test_server_address_flag_then_environment_then_localhost(settings, environ, address):
    assert server_address(settings, environ) == address


@pytest.mark.parametrize("port", ["http", "70000", "-1"])
def test_a_bad_gradio_server_port_is_named(port):
    with pytest.raises(ValueError, match=f"GRADIO_SERVER_PORT must be a port number, not '{port}'"):
        server_address({}, {"GRADIO_SERVER_PORT": port})


@pytest.mark.parametrize(
    ("argv", "environ", "address"),
    [
        ([], {}, ("127.0.0.1", None)),
        ([], {"GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": "7860"}, ("0.0.0.0", 7860)),
        (["--host", "127.0.0.1", "--port", "8000"], {"GRADIO_SERVER_NAME": "0.0.0.0"}, ("127.0.0.1", 8000)),
    ],
)
def test_space_command_address(argv, environ, address):
    from longform_eval.inference.cli import parser

    assert server_address(vars(parser().parse_args(["space", *argv])), environ) == address


class RecordingBlocks:
    def launch(self, **options):
        self.options = options


def test_launch_passes_the_environment_address_and_the_upload_cap():
    app = RecordingBlocks()
    launch(app, {}, {"GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": "7860"}, quiet=True)
    assert [m.cls for m in app.options.pop("app_kwargs")["middleware"]] == [PagePolicy]  # every page's policy
    assert app.options == {
        "server_name": "0.0.0.0",
        "server_port": 7860,
        "max_file_size": 1_000_000,
        "css": HEADER_CSS,
        "quiet": True,
    }


def test_runs_come_as_a_list_from_the_flag_or_path_separated_from_the_variable():
    from longform_eval.inference.cli import parser
    from longform_eval.spaces.app import run_paths

    args = parser().parse_args(["space", "--runs", "runs/A", "runs/B"])
    assert [str(p) for p in args.runs] == ["runs/A", "runs/B"] and run_paths(args.runs) == ["runs/A", "runs/B"]
    assert run_paths(f"runs/A{os.pathsep}runs/B{os.pathsep}") == ["runs/A", "runs/B"]
    assert run_paths(None) == [] and run_paths("") == []
