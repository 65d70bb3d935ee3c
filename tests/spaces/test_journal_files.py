"""The Space's journal appends only to a file of its own: a symlink, a hard link or a FIFO in its place is refused
and what it points to is left as it was (issue 28, deliverable 1, as a run's logs)."""

from __future__ import annotations

import os

import pytest

from longform_eval.inference.runner.records import UnsafeLogFile
from longform_eval.spaces.journal import VoteJournal, read_journal

RECORD = {"annotator": "ann", "created": 1.0, "row_id": "chat_002", "subcategory": "report_write", "model": "m1"}
ANNOTATION = RECORD | {"checklist_scores": [1.0], "overall_score": 7.0}


def symlink(path, victim):
    path.symlink_to(victim)


def hard_link(path, victim):
    os.link(victim, path)


def fifo(path, victim):
    os.mkfifo(path)


@pytest.mark.parametrize(
    ("put", "problem"),
    [(symlink, "is a symlink"), (hard_link, "has other hard links"), (fifo, "is not a regular file")],
    ids=["symlink", "hard link", "fifo"],
)
def test_a_journal_file_that_is_not_its_own_is_refused(tmp_path, put, problem):
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file\n")
    journal = VoteJournal(tmp_path / "journal", name="process")
    journal.path("annotations").parent.mkdir(parents=True)
    put(journal.path("annotations"), victim)
    with pytest.raises(UnsafeLogFile) as refused:
        journal.append("annotations", [ANNOTATION])  # a FIFO would block an open without O_NONBLOCK: it returns
    assert str(refused.value).startswith(f"{journal.path('annotations')} {problem}; ")
    assert victim.read_text() == "the user's own file\n"


def test_a_journal_file_of_its_own_is_appended_to(tmp_path):
    journal = VoteJournal(tmp_path / "journal", name="process")
    journal.append("annotations", [ANNOTATION])
    journal.append("annotations", [ANNOTATION | {"row_id": "chat_003"}])
    assert [row["row_id"] for row in read_journal(tmp_path / "journal").annotations] == ["chat_002", "chat_003"]
