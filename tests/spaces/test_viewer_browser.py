"""`longform-eval view` in headless Chromium, as a user meets it: started on two HelloBench chat runs of released
models (judged with their released verdicts), it lists the rows, shows a row's answer with the judge's verdict
checklist by checklist and the raw judge text, narrows the list by subcategory, sorts by score, searches, and shows
the two runs side by side on one prompt with both verdicts. Screenshots go to the test's output folder, whose path is
printed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from answering import wait_until_answers

from .conftest import free_port
from .test_app import browser, text_of, wait_for  # noqa: F401 (the browser fixture, reused)
from .viewer_runs import LIMIT, MODELS, hellobench_run

NAMES = [f"replay:{model} · hellobench:chat" for model in MODELS]


def start_view(runs: list[Path]) -> tuple[subprocess.Popen, str]:
    """`longform-eval view RUN RUN --port P`; (process, url) once it answers."""
    port = free_port()
    command = [sys.executable, "-m", "longform_eval.inference.cli.main", "view", *map(str, runs), "--port", str(port)]
    process = subprocess.Popen(command, env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    wait_until_answers(process, url, time.monotonic() + 180)
    return process, url


@pytest.fixture(scope="module")
def viewer_url(shared_data, tmp_path_factory):
    root = tmp_path_factory.mktemp("viewer-browser")
    runs = [hellobench_run(shared_data, root, model) for model in MODELS]
    process, url = start_view(runs)
    try:
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()


def choose(driver, elem_id: str, text: str) -> None:
    """Pick `text` in the gradio Dropdown `elem_id`: open its list (its text cleared: it filters the options), click
    the option."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(By.CSS_SELECTOR, f"#{elem_id} input")
    box.click()
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    wait_for(lambda: option(driver, text)).click()


def option(driver, text: str):
    """The open dropdown's option `text` (None until it is listed)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    try:
        found = driver.find_elements(By.CSS_SELECTOR, "ul[role='listbox'] li")
        return next((o for o in found if o.text.replace("✓", "").strip() == text), None)
    except StaleElementReferenceException:
        return None


def listed(driver) -> list[list[str]]:
    """The row list's cells, row by row."""
    from selenium.webdriver.common.by import By

    cells = driver.find_elements(By.CSS_SELECTOR, "#rows-table [role='gridcell']")
    texts = [cell.text for cell in cells]
    return [texts[i : i + 6] for i in range(0, len(texts), 6)]


def count(driver) -> int:
    """The number of rows listed, as the line above the list says (-1 while it is being updated)."""
    found = re.search(r"(\d+) of \d+ rows", text_of(driver, "#rows-count"))
    return int(found[1]) if found else -1


@pytest.mark.slow
def test_browser_view_lists_filters_sorts_searches_and_compares_two_runs(viewer_url, browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By

    print(f"screenshots: {tmp_path}")
    browser.get(viewer_url)
    wait_for(lambda: f"{LIMIT} of {LIMIT} rows" in text_of(browser, "#rows-count"))
    summary = text_of(browser, "#viewer-summary")
    assert all(name in summary for name in NAMES) and "/tmp" not in browser.find_element(By.TAG_NAME, "body").text
    rows = wait_for(lambda: listed(browser) if len(listed(browser)) == LIMIT else None)
    assert [row[0] for row in rows] == [f"chat_{n}" for n in ("002", "003", "004", "008", "009", "010")]
    # the first row shown: its answer, its verdict checklist by checklist, the raw judge completion, its score
    wait_for(lambda: "checklist 6: score" in text_of(browser, "#verdicts-a"))
    verdicts = text_of(browser, "#verdicts-a")
    assert "checklist 1: score 1.00" in verdicts and "judge: The response" in verdicts
    assert "Mann-Whitney" in text_of(browser, "#answer-a") and "row score (row_score): 100.00" in text_of(
        browser, "#run-head-a"
    )
    raw = browser.find_element(By.CSS_SELECTOR, "#judge-a textarea").get_attribute("value")
    assert raw.startswith('[{"checklist_id": 0, "reason": ')
    browser.save_screenshot(str(tmp_path / "row.png"))
    # filter by subcategory: the list narrows to that subcategory
    choose(browser, "filter-subcategory", "report_write")
    wait_for(lambda: count(browser) == 2)
    assert {row[2] for row in wait_for(lambda: listed(browser) if len(listed(browser)) == 2 else None)} == {
        "report_write"
    }
    browser.save_screenshot(str(tmp_path / "subcategory.png"))
    choose(browser, "filter-subcategory", "all")
    wait_for(lambda: count(browser) == LIMIT)
    # sort by score, high to low
    choose(browser, "sort", "score: high to low")
    wait_for(lambda: listed(browser) and listed(browser)[0][0] == "chat_002" and len(listed(browser)) == LIMIT)
    scores = [float(row[3]) for row in listed(browser)]
    assert scores == sorted(scores, reverse=True) and scores != [float(row[3]) for row in rows]
    browser.save_screenshot(str(tmp_path / "sorted.png"))
    # search
    browser.find_element(By.CSS_SELECTOR, "#search textarea, #search input").send_keys("Digital DIVIDE")
    wait_for(lambda: count(browser) == 1)
    assert wait_for(lambda: listed(browser) if len(listed(browser)) == 1 else None)[0][0] == "chat_004"
    wait_for(lambda: "chat_004" in text_of(browser, "#row-prompt"))
    browser.save_screenshot(str(tmp_path / "search.png"))
    # side by side: both runs' verdicts on the same prompt
    choose(browser, "run-b", NAMES[1])
    wait_for(lambda: "checklist 6: score" in text_of(browser, "#verdicts-b"))
    assert NAMES[0] in text_of(browser, "#run-head-a") and NAMES[1] in text_of(browser, "#run-head-b")
    assert "chat_004" in text_of(browser, "#row-prompt") and "digital divide" in text_of(browser, "#row-prompt")
    raw_a = browser.find_element(By.CSS_SELECTOR, "#judge-a textarea").get_attribute("value")
    raw_b = browser.find_element(By.CSS_SELECTOR, "#judge-b textarea").get_attribute("value")
    assert raw_a != raw_b and raw_b.startswith('[{"checklist_id": 0')
    assert text_of(browser, "#answer-a") != text_of(browser, "#answer-b")
    assert listed(browser)[0][4] not in ("", "-")  # run B's score in the list
    browser.save_screenshot(str(tmp_path / "side-by-side.png"))
    # a click on a row of the list shows it (search cleared first)
    box = browser.find_element(By.CSS_SELECTOR, "#search textarea, #search input")
    box.clear()
    box.send_keys(" ")
    wait_for(lambda: count(browser) == LIMIT and len(listed(browser)) == LIMIT)
    browser.find_element(
        By.XPATH, "//*[@id='rows-table']//*[@role='gridcell' and normalize-space()='chat_009']"
    ).click()
    wait_for(lambda: "chat_009" in text_of(browser, "#row-prompt"))
    wait_for(lambda: "checklist 1: score" in text_of(browser, "#verdicts-b"))
    browser.save_screenshot(str(tmp_path / "clicked.png"))
    assert all((tmp_path / name).stat().st_size > 0 for name in ("row.png", "sorted.png", "side-by-side.png"))
