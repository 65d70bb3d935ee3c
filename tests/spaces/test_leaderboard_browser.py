"""The Leaderboard tab in headless Chromium, as a user meets it: the arena Space staged by `publish --stage`, its
`app.py` started in its own folder (`python app.py`, as a Space runs it) over two judged pairwise run folders and a
votes database whose votes carry the judge's verdicts, given as the Space reads them (LONGFORM_EVAL_RUNS,
LONGFORM_EVAL_DB; no votes repo, no Hub). Ranks with ranges, an interval on every score (judge-human agreement and
Cohen's kappa included), the minimum-votes rule and the calibrated figure are on the page, runs are named by model and
benchmark, and the Annotate tab is hidden (no checklists). Screenshots go to the test's output folder, whose path is
printed."""

from __future__ import annotations

import os
import random
import re
import signal
from pathlib import Path

import pytest

from longform_eval.inference.cli import main
from longform_eval.metric.uncertainty.label_agreement import RESAMPLES
from longform_eval.spaces.board_text import ARENA_HEADERS
from longform_eval.spaces.standings import LABEL_SET, MIN_CALIBRATION_VOTES, MIN_VOTES
from longform_eval.spaces.storage import VoteStore

from .judged_runs import REFERENCE, judged_run, questions, vote_on_run
from .test_app import browser, text_of, wait_for  # noqa: F401 (the browser fixture, reused)
from .test_published_arena import SPACE, start

ORG = SPACE.split("/")[0]
PERCENT = r"\d+\.\d% \[\d+\.\d, \d+\.\d\]"
INTERVAL = re.compile(PERCENT)
KAPPA = re.compile(r"-?\d\.\d\d \[-?\d\.\d\d, -?\d\.\d\d\]")
VOTED = MIN_CALIBRATION_VOTES + 4  # votes per run: ranked and calibrated; its other questions are judge-only
# What the Space is given besides its folder: the package's data (to read the runs' questions) and nothing else of
# the developer's settings; the run folders and the votes database come as LONGFORM_EVAL_RUNS and LONGFORM_EVAL_DB.
DATA_VARIABLES = ("LONGFORM_EVAL_SOURCE", "LONGFORM_EVAL_CACHE")


def table_rows(text: str, headers: list[str]) -> list[list[str]]:
    """The rows of a rendered table's text (its label, its headers, then one line per cell)."""
    lines = text.splitlines()
    cells = lines[lines.index(headers[-1]) + 1 :]
    return [cells[i : i + len(headers)] for i in range(0, len(cells), len(headers))]


def space_environment(runs: list[Path], db: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LONGFORM_EVAL_") or k in DATA_VARIABLES}
    return env | {"LONGFORM_EVAL_RUNS": os.pathsep.join(str(run) for run in runs), "LONGFORM_EVAL_DB": str(db)}


@pytest.fixture(scope="module")
def staged_app(shared_data, tmp_path_factory):
    """Runs A (the judge favours it on 3 of 4 questions) and B (on 1 of 2), both against the reference answers,
    with VOTED human votes each (A wins half of them, B 30%) carrying the run judge's verdict; the staged Space's
    `app.py` started over them. Yields (votes database, url)."""
    root = tmp_path_factory.mktemp("staged-app")
    assert main(["publish", "--org", ORG, "--stage", str(root / "stage"), "--source", str(shared_data)]) == 0
    folder = root / "stage" / "spaces" / SPACE
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "app.py", "requirements.txt"]
    rows = questions()
    runs = [
        judged_run(root / "A", rows, lambda i: "B" if i % 4 == 0 else "A"),
        judged_run(root / "B", rows, lambda i: "A" if i % 2 == 0 else "B"),
    ]
    db = root / "votes.sqlite"
    store, rng = VoteStore(db), random.Random(0)
    for (run, model), win in zip(runs, (0.5, 0.3), strict=True):
        vote_on_run(store, run, model, VOTED, win, rng)
    process, url = start(folder, space_environment([run for run, _ in runs], db))
    try:
        yield db, url
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=60)[0].decode()
        assert process.returncode in (0, -signal.SIGTERM), output[-3000:]


@pytest.mark.slow
def test_browser_leaderboard_of_the_staged_space_shows_ranks_intervals_the_vote_rule_and_the_calibrated_figure(
    staged_app,
    browser,  # noqa: F811 (test_app's fixture)
    tmp_path,
):
    from selenium.webdriver.common.by import By

    db, url = staged_app
    print(f"screenshots: {tmp_path}")
    browser.get(url)
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#new-comparison"))
    tabs = [tab.text for tab in browser.find_elements(By.CSS_SELECTOR, "button[role='tab']")]
    assert "Arena" in tabs and "Leaderboard" in tabs and "Annotate" not in tabs  # no checklists: hidden
    browser.find_element(By.XPATH, "//button[@role='tab' and contains(., 'Leaderboard')]").click()
    wait_for(lambda: f"{2 * VOTED} human votes" in text_of(browser, "#leaderboard-summary"))
    wait_for(lambda: "replay:A" in text_of(browser, "#arena-table"))
    summary = text_of(browser, "#leaderboard-summary")
    assert f"({2 * VOTED} with an LLM-judge verdict)" in summary
    assert re.search(rf"human-judge: {PERCENT} \(Cohen's kappa {KAPPA.pattern}; both on {LABEL_SET}\)", summary), (
        summary
    )
    note, table = text_of(browser, "#arena-note"), text_of(browser, "#arena-table")
    assert f"at least {MIN_VOTES} human votes" in note and f"{MIN_CALIBRATION_VOTES} votes with a judge verdict" in note
    assert (
        "Wilson's score interval" in note and f"bootstrap SE over {RESAMPLES} resamples" in note and LABEL_SET in note
    )
    assert "rank range" in table and "calibrated win rate (PPI++)" in table and "judge win rate" in table
    assert "judge-human agreement (4 labels) [95% CI]" in table and "Cohen's kappa (4 labels) [95% CI]" in table
    names = ["replay:A · tencentllmeval:en", "replay:B · tencentllmeval:en", f"{REFERENCE} · tencentllmeval:en"]
    assert all(name in table for name in names) and "/tmp" not in table  # named by model and benchmark, no path
    rows = table_rows(table, ARENA_HEADERS)
    assert sorted(row[2] for row in rows) == sorted(names) and len(rows) == 3
    for rank, span, _, votes, human, rating, judge, agreement, kappa, calibrated in rows:
        best, worst = (int(x) for x in (span.split("–") * 2)[:2])
        assert best <= int(rank) <= worst  # a rank range
        assert int(votes) >= MIN_VOTES and re.fullmatch(r"\d+ \[\d+, \d+\]", rating), rating
        for cell in (human, judge, agreement, calibrated):  # every score with its interval; the calibrated figure
            assert INTERVAL.fullmatch(cell), cell
        assert KAPPA.fullmatch(kappa), kappa
    assert len(INTERVAL.findall(table)) == 4 * 3 and len(KAPPA.findall(table)) == 3
    assert any("–" in row[1] for row in rows)  # B and A are close: they share a rank range
    browser.set_window_size(2400, 1800)  # the whole table in one screenshot
    browser.execute_script("document.querySelector('#arena-table').scrollIntoView()")
    browser.find_element(By.CSS_SELECTOR, "#arena-table").screenshot(str(tmp_path / "arena-table.png"))
    browser.execute_script("document.querySelector('#leaderboard-summary').scrollIntoView()")
    browser.save_screenshot(str(tmp_path / "leaderboard.png"))  # the summary, the rules and the table
    runs = text_of(browser, "#runs-table")
    assert "replay:A · tencentllmeval:en" in runs and "/tmp" not in runs
    assert "/tmp" not in browser.find_element(By.TAG_NAME, "body").text  # no path anywhere on the page
    assert (tmp_path / "arena-table.png").stat().st_size > 0 and (tmp_path / "leaderboard.png").stat().st_size > 0
    assert VoteStore(db).count() == 2 * VOTED  # the Space read the database it was given, and kept it
