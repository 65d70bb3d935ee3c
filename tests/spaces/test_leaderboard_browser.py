"""The Leaderboard tab in headless Chromium, over two judged pairwise run folders and a votes database whose votes
carry the judge's verdicts: ranks with ranges, intervals, the minimum-votes rule and the calibrated figure are on the
page, runs are named by model and benchmark, and the Annotate tab is hidden (no checklists). Screenshots go to the
test's output folder, whose path is printed."""

from __future__ import annotations

import random
import re

import pytest

from longform_eval.spaces.arena import Arena
from longform_eval.spaces.board_text import ARENA_HEADERS
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.standings import MIN_CALIBRATION_VOTES, MIN_VOTES
from longform_eval.spaces.storage import VoteStore

from .conftest import serve
from .judged_runs import REFERENCE, judged_run, questions, vote_on_run
from .test_app import browser, text_of, wait_for  # noqa: F401 (the browser fixture, reused)

INTERVAL = re.compile(r"\d+\.\d% \[\d+\.\d, \d+\.\d\]")
VOTED = MIN_CALIBRATION_VOTES + 4  # votes per run: ranked and calibrated; its other questions are judge-only


def table_rows(text: str, headers: list[str]) -> list[list[str]]:
    """The rows of a rendered table's text (its label, its headers, then one line per cell)."""
    lines = text.splitlines()
    cells = lines[lines.index(headers[-1]) + 1 :]
    return [cells[i : i + len(headers)] for i in range(0, len(cells), len(headers))]


@pytest.fixture(scope="module")
def judged_app(shared_data, tmp_path_factory):
    """Runs A (the judge favours it on 3 of 4 questions) and B (on 1 of 2), both against the reference answers,
    with VOTED human votes each (A wins half of them, B 30%) carrying the run judge's verdict; the app over them."""
    root = tmp_path_factory.mktemp("judged-app")
    rows = questions()
    runs = [
        judged_run(root / "A", rows, lambda i: "B" if i % 4 == 0 else "A"),
        judged_run(root / "B", rows, lambda i: "A" if i % 2 == 0 else "B"),
    ]
    store = VoteStore(root / "votes.sqlite")
    rng = random.Random(0)
    for (folder, model), win in zip(runs, (0.5, 0.3), strict=True):
        vote_on_run(store, folder, model, VOTED, win, rng)
    folders = [folder for folder, _ in runs]
    yield from serve(Arena(ResponsePool.load(folders), store, runs=folders, seed=0))


@pytest.mark.slow
def test_browser_leaderboard_shows_ranks_intervals_the_vote_rule_and_the_calibrated_figure(
    judged_app,
    browser,  # noqa: F811 (test_app's fixture)
    tmp_path,
):
    from selenium.webdriver.common.by import By

    arena, url = judged_app
    print(f"screenshots: {tmp_path}")
    browser.get(url)
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#new-comparison"))
    tabs = [tab.text for tab in browser.find_elements(By.CSS_SELECTOR, "button[role='tab']")]
    assert "Arena" in tabs and "Leaderboard" in tabs and "Annotate" not in tabs  # no checklists: hidden
    browser.find_element(By.XPATH, "//button[@role='tab' and contains(., 'Leaderboard')]").click()
    wait_for(lambda: f"{2 * VOTED} human votes" in text_of(browser, "#leaderboard-summary"))
    wait_for(lambda: "replay:A" in text_of(browser, "#arena-table"))
    note, table = text_of(browser, "#arena-note"), text_of(browser, "#arena-table")
    assert f"at least {MIN_VOTES} human votes" in note and f"{MIN_CALIBRATION_VOTES} votes with a judge verdict" in note
    assert "rank range" in table and "calibrated win rate (PPI++)" in table and "judge win rate" in table
    names = ["replay:A · tencentllmeval:en", "replay:B · tencentllmeval:en", f"{REFERENCE} · tencentllmeval:en"]
    assert all(name in table for name in names) and "/tmp" not in table  # named by model and benchmark, no path
    assert len(INTERVAL.findall(table)) == 3 * 3  # human, judge and calibrated win rates, each with its interval
    rows = table_rows(table, ARENA_HEADERS)
    assert sorted(row[2] for row in rows) == sorted(names)
    for rank, span, *_, calibrated in rows:
        best, worst = (int(x) for x in (span.split("–") * 2)[:2])
        assert best <= int(rank) <= worst and INTERVAL.fullmatch(calibrated)  # a rank range; the calibrated figure
    assert any("–" in row[1] for row in rows)  # B and A are close: they share a rank range
    browser.set_window_size(2400, 1800)  # the whole table in one screenshot
    browser.execute_script("document.querySelector('#arena-table').scrollIntoView()")
    browser.find_element(By.CSS_SELECTOR, "#arena-table").screenshot(str(tmp_path / "arena-table.png"))
    browser.execute_script("document.querySelector('#leaderboard-summary').scrollIntoView()")
    browser.save_screenshot(str(tmp_path / "leaderboard.png"))  # the summary, the rules and the table
    runs = text_of(browser, "#runs-table")
    assert "replay:A · tencentllmeval:en" in runs and "/tmp" not in runs
    assert "/tmp" not in browser.find_element(By.TAG_NAME, "body").text  # no path anywhere on the page
    assert (tmp_path / "arena-table.png").stat().st_size > 0 and arena.store.count() == 2 * VOTED
