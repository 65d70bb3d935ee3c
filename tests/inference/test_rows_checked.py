"""A run's rows.json.gz is checked, not believed (issue 46, item 4): rows edited with the stated hash kept are not
used, and a gzip that decompresses far beyond what rows compress to is refused after reading little of it."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from longform_eval.common.guarded import ROWS, UnreadableFile, read_bytes
from longform_eval.inference.cli import main
from longform_eval.inference.runner.rows_file import ROWS_FILE

from .conftest import replayed_chat_run


@pytest.fixture
def run(gpt4o_replays, tmp_path) -> Path:
    return replayed_chat_run(gpt4o_replays, tmp_path / "run", 4)


def overall(folder: Path) -> float:
    return json.loads((folder / "scores.json").read_text())["overall"]


def test_rows_edited_with_their_stated_hash_kept_are_not_used(run, capsys):
    before = overall(run)
    document = json.loads(gzip.decompress((run / ROWS_FILE).read_bytes()))
    for row in document["rows"]:  # the prompt, and every weight on the first checklist item
        row["instruction"] = "TAMPERED PROMPT"
        row["checklist_weights"] = [100.0] + [0.0] * (len(row["checklist_weights"]) - 1)
    (run / ROWS_FILE).write_bytes(gzip.compress(json.dumps(document).encode()))
    capsys.readouterr()
    assert main(["score", str(run)]) == 0
    err = capsys.readouterr().err
    assert f"{run / ROWS_FILE}: its rows do not give the hash it states" in err
    assert overall(run) == pytest.approx(before, abs=1e-9)
    assert "TAMPERED PROMPT" not in (run / "generations.jsonl").read_text()


def test_a_gzip_bomb_of_rows_is_refused_after_reading_what_rows_could_hold(tmp_path):
    bomb = tmp_path / ROWS_FILE
    with gzip.open(bomb, "wb") as handle:
        for _ in range(300):
            handle.write(b"[" + b" " * (1024 * 1024 - 1))
    ceiling = 50 * bomb.stat().st_size + 1024 * 1024  # read at most this much of its 300 MB
    with pytest.raises(UnreadableFile, match=f"decompresses to more than {ceiling} bytes, over 50 times its size"):
        read_bytes(bomb, ROWS)
    real = gzip.compress(json.dumps({"rows": [{"instruction": f"prompt {i} " * 40} for i in range(300)]}).encode())
    (tmp_path / "real.json.gz").write_bytes(real)
    assert read_bytes(tmp_path / "real.json.gz", ROWS)  # real rows compress far less


def test_rows_edited_in_the_form_the_run_writes_are_not_used(run, capsys):
    """The file's own text is hashed where it has the form `write_rows_file` gives it: an edit in that form is seen."""
    before = overall(run)
    document = json.loads(gzip.decompress((run / ROWS_FILE).read_bytes()))
    document["rows"][0]["checklist_weights"] = [100.0] + [0.0] * (len(document["rows"][0]["checklist_weights"]) - 1)
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, default=str)
    (run / ROWS_FILE).write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    capsys.readouterr()
    assert main(["score", str(run)]) == 0
    assert f"{run / ROWS_FILE}: its rows do not give the hash it states" in capsys.readouterr().err
    assert overall(run) == pytest.approx(before, abs=1e-9)


def test_a_rows_file_as_written_is_checked_without_serializing_its_rows_again(run, monkeypatch):
    from longform_eval.inference.runner import rows_file

    monkeypatch.setattr(rows_file, "CHECKED", {})
    monkeypatch.setattr(rows_file, "rows_hash", lambda rows: pytest.fail("the rows serialized again"))
    assert rows_file.stored_rows(run, rows_file_config(run)) is not None


def rows_file_config(folder: Path):
    from longform_eval.inference.runner.folder import CONFIG_FILE, read_config, validated_config

    return validated_config(folder / CONFIG_FILE, read_config(folder))


def test_a_rows_file_whose_identity_holds_a_lone_surrogate_is_not_used(run, capsys):
    document = json.loads(gzip.decompress((run / ROWS_FILE).read_bytes()))
    document["identity"]["x"] = "\ud800"
    text = json.dumps(document, sort_keys=True)  # the surrogate escaped: valid JSON
    (run / ROWS_FILE).write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    assert main(["score", str(run)]) == 0  # another identity: the rows come from the dataset
