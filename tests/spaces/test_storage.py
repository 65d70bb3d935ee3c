from __future__ import annotations

import json
import sqlite3
import threading

import pytest

from longform_eval.spaces.leaderboard import agreement_summary, annotator_table, ratings_table
from longform_eval.spaces.safe_markdown import inert_markdown
from longform_eval.spaces.storage import SCHEMA_VERSION, Vote, VoteStore

from .conftest import HOSTILE

MODELS = ("m1", "m2", "m3", "m4")
OUTCOMES = ("A", "B", "equally_good", "equally_bad")


def test_200_votes_from_8_threads_give_200_rows_and_a_consistent_leaderboard(tmp_path):
    store = VoteStore(tmp_path / "votes.sqlite")
    errors = []

    def cast(thread: int) -> None:
        try:
            for i in range(25):
                a, b = MODELS[(thread + i) % 4], MODELS[(thread + i + 1) % 4]
                store.add_vote(Vote(f"ann{thread}", f"s{thread}", f"item{i}", a, b, "sorted", OUTCOMES[i % 4]))
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    threads = [threading.Thread(target=cast, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count() == 200
    votes = store.votes()
    assert len({(v.annotator, v.item_id) for v in votes}) == 200
    table = ratings_table(votes, bootstrap=20)
    assert sum(row[5] for row in table) == 400  # every battle counted for both models
    assert {row[0] for row in table} == set(MODELS)
    assert len(annotator_table(votes)) == 8
    assert agreement_summary(votes)["votes"] == 200


def test_wal_mode_schema_version_and_export(tmp_path):
    store = VoteStore(tmp_path / "votes.sqlite")
    store.add_vote(Vote("ann", "s", "chat_002", "m1", "m2", "sorted", "A", judge_outcome="B", judge_flipped=True))
    store.add_annotation("ann", "chat_002", "report_write", "m1", [1, 0.5, 0.75, 1, 0, 0.25], 6.5)
    connection = sqlite3.connect(tmp_path / "votes.sqlite")
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    paths = store.export(tmp_path / "export")
    assert [p.name for p in paths] == ["votes.csv", "votes.jsonl", "annotations.jsonl"]
    vote = json.loads(paths[1].read_text())
    assert vote["outcome"] == "A" and vote["judge_flipped"] is True
    annotation = json.loads(paths[2].read_text())
    assert annotation["checklist_scores"] == [1, 0.5, 0.75, 1, 0, 0.25] and annotation["overall_score"] == 6.5


def test_annotations_feed_fit_weights(tmp_path):
    from longform_eval.metric.helloeval.fitting import fit_weights, read_annotations

    store = VoteStore(tmp_path / "votes.sqlite")
    for i, scores in enumerate(([1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0], [1, 0.5, 0, 1, 0.5, 0], [0.25] * 6)):
        store.add_annotation("ann", f"chat_{i}", "report_write", "m", scores, 10 * sum(scores) / 6)
    path = store.export(tmp_path / "export")[2]
    fit = fit_weights(read_annotations(path))["report_write"]
    assert sum(fit.weights) == pytest.approx(100) and fit.n == 4


def test_hostile_markup_renders_inert():
    safe = inert_markdown(HOSTILE)
    assert "<script" not in safe and "<img" not in safe
    assert "&lt;script&gt;" in safe and "&lt;img" in safe
    assert "javascript:" not in safe and "(#blocked-link)" in safe
    assert "(https://example.org)" in safe and "**bold stays bold**" in safe
    assert "javascript" not in inert_markdown("<javascript:alert(1)>")
