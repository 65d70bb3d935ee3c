"""`report` checks a run folder's files once per content: a second reader with the same files takes what the check
found (`report.folder_check`, kept in the user's cache, never in the folder); any changed log is checked again."""

from __future__ import annotations

import pytest

from longform_eval.inference.cli import main
from longform_eval.inference.report import run_checks
from longform_eval.inference.report.folder_check import folder_hash, remembered_check

from .conftest import chat_run


def test_a_folder_is_checked_once_per_content(gpt4o_replays, tmp_path, monkeypatch):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main(chat_run(3, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    assert main(["report", str(out)]) == 0
    key = folder_hash(out)
    found = remembered_check(out, key)
    assert found is not None and (found.generations, found.judge_calls, found.count) == (0, 0, 0)
    assert not (out / "derived.json").exists()  # nothing kept in the run folder: anyone could forge it there

    def refused(folder):
        pytest.fail("the folder was checked again with the same files")

    monkeypatch.setattr(run_checks, "opened_as_made", refused)
    assert [p.count for p in run_checks.checked_runs([out])] == [0]

    with (out / "judgements.jsonl").open("a", encoding="utf-8") as log:
        log.write('{"key": "k", "judge": "j", "config_hash": "h"}\n')  # another content: checked, damage found
    assert folder_hash(out) != key and remembered_check(out, folder_hash(out)) is None
    monkeypatch.undo()
    assert main(["report", str(out)]) == 2
