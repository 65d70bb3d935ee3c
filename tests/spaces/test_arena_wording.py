"""The arena's wording as a Space owner and a visitor meet it: the messages about a missing judge or missing run
scores name the Space's variables (LONGFORM_EVAL_JUDGE, LONGFORM_EVAL_RUNS), not only the command line's flags, and
the leaderboard's column headers wrap between words only (never "ra/nk", "vot/es"), checked in headless Chromium.
The screenshot goes to the test's output folder, whose path is printed."""

from __future__ import annotations

import pytest
from gradio_client import Client

from longform_eval.spaces.board_text import NO_JUDGE, NO_RUN_SCORES

from .test_app import browser, text_of, wait_for  # noqa: F401 (the browser fixture, reused)

# The words of the text nodes under `arguments[0]` that the page lays out over more than one line (a break after a
# hyphen or a slash is not inside a word).
BROKEN_WORDS = """
const broken = [];
for (const cell of document.querySelectorAll(arguments[0])) {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of node.data.matchAll(/[^\\s\\-\\/]+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (lines.size > 1) broken.push(word[0]);
    }
  }
}
return broken;
"""
HEADERS = ".header-cell"  # every table of the page


def test_a_vote_without_a_judge_tells_how_a_space_sets_one(running_app):
    _, url = running_app
    client = Client(url, verbose=False)
    client.predict("chat", "", api_name="/new_pair")
    reveal = client.predict("tester", api_name="/vote_A")
    assert "No LLM judge is configured: set the Space's variable `LONGFORM_EVAL_JUDGE` to `BACKEND:MODEL`" in reveal
    assert "(locally: `--judge BACKEND:MODEL`)" in reveal


def test_the_leaderboard_notes_name_the_space_variables():
    assert "`LONGFORM_EVAL_JUDGE` to `BACKEND:MODEL`" in NO_JUDGE
    assert "`LONGFORM_EVAL_RUNS`" in NO_RUN_SCORES


@pytest.mark.slow
def test_browser_leaderboard_headers_break_between_words_only(running_app, browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By

    print(f"screenshots: {tmp_path}")
    _, url = running_app
    browser.get(url)
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#new-comparison"))
    browser.find_element(By.XPATH, "//button[@role='tab' and contains(., 'Leaderboard')]").click()
    wait_for(lambda: "0 human votes" in text_of(browser, "#leaderboard-summary"))
    headers = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#arena-table .header-cell"))
    wait_for(lambda: "rank range" in headers[1].text)
    assert [h.text.replace("\n", " ") for h in headers][:4] == ["rank", "rank range", "model · benchmark", "votes"]
    browser.save_screenshot(str(tmp_path / "leaderboard.png"))
    assert browser.execute_script(BROKEN_WORDS, HEADERS) == []
