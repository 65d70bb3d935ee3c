"""Failed calls stay pending, files are written whole, one writer per folder, secrets never written,
and a changed generation is judged again."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from longform_eval.inference.backends.base import Request
from longform_eval.inference.backends.openai_backend import OpenAIBackend
from longform_eval.inference.cli import main
from longform_eval.inference.config import GenerationConfig
from longform_eval.inference.runner import Run

from .conftest import chat_run, write_replay
from .fault_server import FaultServer

VERDICT6 = json.dumps([{"checklist_id": i, "reason": "solid", "evaluation_score": 0.75} for i in range(6)])
FAST_RETRIES = ("--judge-arg", "backoff_base=0.01", "--judge-arg", "max_attempts=2")


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def judged_run(generations: Path, url: str, out: Path, limit: int = 3) -> list[str]:
    return chat_run(limit, f"replay:{generations}", "openai:judge", str(out), "--judge-arg", f"base_url={url}")


def test_judge_server_failing_then_recovered_judges_every_row(gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    with FaultServer(ok_text=lambda prompt: VERDICT6) as server:
        server.fail_with = "500"
        assert main([*judged_run(generations, server.url, out), *FAST_RETRIES]) == 1
        err = capsys.readouterr().err
        assert "3 calls failed and stay pending" in err and "HTTP 500" in err
        assert lines(out / "judgements.jsonl") == []  # a transport failure is never a verdict
        failures = lines(out / "failures.jsonl")
        assert len(failures) == 3 and all(server.url in f["error"] and f["sample_id"] for f in failures)
        scores = json.loads((out / "scores.json").read_text())
        assert scores["complete"] is False and scores["n_pending_judge_calls"] == 3
        server.fail_with = None
        assert main([*judged_run(generations, server.url, out), *FAST_RETRIES]) == 0
    assert len(lines(out / "judgements.jsonl")) == 3
    scores = json.loads((out / "scores.json").read_text())
    assert scores["complete"] is True and scores["n_scored"] == 3
    assert scores["tasks"]["chat"]["score"] == pytest.approx(0.0)  # 0.75 everywhere: (75 - 75) * 4


def test_judge_server_down_then_up(gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    assert main([*judged_run(generations, "http://127.0.0.1:9/v1", out), *FAST_RETRIES]) == 2
    assert "cannot reach" in capsys.readouterr().err
    assert len(lines(out / "generations.jsonl")) == 3 and lines(out / "judgements.jsonl") == []
    with FaultServer(ok_text=lambda prompt: VERDICT6) as server:
        assert main([*judged_run(generations, server.url, out), "--force"]) == 0
    assert len(lines(out / "judgements.jsonl")) == 3
    assert isinstance(json.loads((out / "scores.json").read_text())["overall"], float)


@pytest.mark.parametrize("kind", ["empty", "no_choices", "null_choices", "null_content", "html", "bad_json"])
def test_malformed_replies_are_retried_then_reported_with_server_and_sample(kind, tmp_path, capsys):
    with FaultServer() as server:
        server.fail_with = kind
        backend = OpenAIBackend("m", base_url=server.url, backoff_base=0.01, max_attempts=2)
        chat = Request(key="s1", messages=({"role": "user", "content": "hi"},))
        (result,) = backend.generate([chat], GenerationConfig(max_new_tokens=4))
    assert result.error.startswith(f"{server.url}: malformed reply") and result.attempts == 2
    assert server.seen["plain"] == 2


def test_an_empty_generation_is_not_saved_and_the_run_exits_non_zero(tmp_path, capsys):
    out = tmp_path / "run"
    with FaultServer() as server:
        server.fail_with = "empty"
        args = chat_run(2, "openai:m", "openai:judge", str(out), "--model-arg", f"base_url={server.url}")
        args += ["--model-arg", "backoff_base=0.01", "--model-arg", "max_attempts=2"]
        assert main(args) == 1
    assert lines(out / "generations.jsonl") == []
    assert "2 calls failed" in capsys.readouterr().err
    assert {f["stage"] for f in lines(out / "failures.jsonl")} == {"generate"}


def test_retry_after_is_capped(capsys):
    with FaultServer() as server:
        backend = OpenAIBackend("m", base_url=server.url, max_retry_after=0.2)
        began = time.perf_counter()
        (result,) = backend.generate([Request(key="k", prompt="MARK-dayrate")], GenerationConfig(max_new_tokens=4))
    assert result.error is None and result.attempts == 2 and time.perf_counter() - began < 5
    assert "Retry-After 86400 s capped at 0 s" in capsys.readouterr().err


def test_a_full_disk_never_leaves_a_broken_scores_file(gpt4o_replays, tmp_path, monkeypatch):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.suffix in (".json", ".yaml", ".md", ".png")}

    def disk_full(self, data):
        with self.open("wb") as handle:
            handle.write(data[:4096])
        raise OSError(errno.ENOSPC, "No space left on device")

    run = Run.open(out)
    monkeypatch.setattr(Path, "write_bytes", disk_full)
    with pytest.raises(OSError, match="No space left"):
        run.score()
    monkeypatch.undo()
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.suffix in (".json", ".yaml", ".md", ".png")}
    assert after == before and json.loads(after["scores.json"])["n_scored"] == 2
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def lock_holder(folder: Path) -> subprocess.Popen:
    """Another process that takes the folder's writer lock and keeps it (it prints 'locked' once it holds it)."""
    code = (
        "import sys, time; from pathlib import Path; from longform_eval.inference.runner.lock import "
        "lock_run_folder; lock_run_folder(Path(sys.argv[1])); print('locked', flush=True); time.sleep(60)"
    )
    return subprocess.Popen([sys.executable, "-c", code, str(folder)], stdout=subprocess.PIPE, text=True)


def test_a_second_writer_on_the_same_folder_is_refused(gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    holder = lock_holder(out)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 2
        assert "another longform-eval process is writing to this run folder" in capsys.readouterr().err
        assert not (out / "generations.jsonl").exists()
    finally:
        holder.kill()
        holder.wait()
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0  # released on death
    assert len(lines(out / "generations.jsonl")) == 2


@pytest.mark.parametrize(
    "option",
    [
        ("--judge-arg", "api_key=sk-secret-value"),
        ("--judge-arg", "hf_token=hf_secret"),
        ("--judge-arg", "base_url=http://user:sk-secret@127.0.0.1:9/v1"),
        ("--judge-arg", "no_such_option=1"),
        ("--model-arg", "no_such_option=1"),
    ],
)
def test_bad_options_are_refused_before_anything_is_written(option, gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    assert main([*chat_run(1, f"replay:{generations}", "openai:judge", str(out)), *option]) == 2
    assert not out.exists()
    err = capsys.readouterr().err
    assert option[1].partition("=")[0] in err and "sk-secret" not in err


def test_a_changed_generation_is_judged_again(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    model = tmp_path / "model.jsonl"
    records = lines(generations)
    model.write_bytes(generations.read_bytes())
    out = tmp_path / "run"
    assert main(chat_run(3, f"replay:{model}", f"replay:{verdicts}", str(out))) == 0
    first = lines(out / "judgements.jsonl")
    victim = lines(out / "generations.jsonl")[1]["sample_id"]
    kept = [x for x in (out / "generations.jsonl").read_text().splitlines() if victim not in x]
    (out / "generations.jsonl").write_text("\n".join(kept) + "\n")  # the user deletes one generation
    write_replay(model, ((r["key"], r["text"] + (" Changed." if r["key"] == victim else "")) for r in records))
    assert main(chat_run(3, f"replay:{model}", f"replay:{verdicts}", str(out))) == 0
    judgements = lines(out / "judgements.jsonl")
    assert len(judgements) == len(first) + 1 and judgements[-1]["sample_id"] == victim
    regenerated = [g for g in lines(out / "generations.jsonl") if g["sample_id"] == victim][-1]
    assert regenerated["response"].endswith(" Changed.")
    run = Run.open(out)
    assert run.current_judgements()[victim].generation_hash == judgements[-1]["generation_hash"]
    assert run.current_judgements()[victim].generation_hash != first[1]["generation_hash"]


def test_a_reader_opens_a_folder_a_writer_holds_and_writes_nothing(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    from longform_eval.inference.runner.lock import unlock_run_folder

    unlock_run_folder((out / ".lock").resolve())  # this process wrote it; now another one holds it
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    holder = lock_holder(out)
    try:
        assert holder.stdout.readline().strip() == "locked"
        run = Run.open(out, read_only=True)
        assert len(run.responses()) == 2
    finally:
        holder.kill()
        holder.wait()
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file() and p.name != ".lock"}
    assert after == {k: v for k, v in before.items() if k != ".lock"}


# ----- the lock file is the folder's own: never followed, truncated or removed when it is not ---------------------
def finished_copy(gpt4o_replays, tmp_path: Path) -> tuple[Path, list[str]]:
    """A finished 2-row run folder, and the `run` command that made it."""
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    args = chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))
    assert main(args) == 0
    return out, args


def refused_line(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_a_lock_file_linked_to_another_file_is_refused_and_the_file_left_as_it_is(
    link, gpt4o_replays, tmp_path, capsys
):
    out, run_args = finished_copy(gpt4o_replays, tmp_path)
    precious = tmp_path / "precious.txt"
    precious.write_bytes(b"precious data\n")
    if link == "symlink":
        (out / ".lock").symlink_to("../precious.txt")
    else:
        (out / ".lock").hardlink_to(precious)
    capsys.readouterr()
    why = "is a symlink" if link == "symlink" else "has other hard links"
    for argv in (["score", str(out)], ["judge", str(out)], run_args):
        line = refused_line(capsys, argv)
        assert f"{out}/.lock {why}; remove it if no longform-eval process is running" in line, (argv, line)
        assert precious.read_bytes() == b"precious data\n" and (out / ".lock").exists()


def test_a_dangling_lock_symlink_creates_nothing(gpt4o_replays, tmp_path, capsys):
    out, _ = finished_copy(gpt4o_replays, tmp_path)
    (out / ".lock").symlink_to("../created.txt")
    capsys.readouterr()
    assert "is a symlink" in refused_line(capsys, ["score", str(out)])
    assert not (tmp_path / "created.txt").exists() and (out / ".lock").is_symlink()


def test_release_removes_the_lock_only_while_the_path_names_the_file_held(tmp_path):
    from longform_eval.inference.runner.lock import lock_run_folder, unlock_run_folder

    precious = tmp_path / "precious.txt"
    precious.write_bytes(b"precious data\n")
    folder = tmp_path / "run"
    held = lock_run_folder(folder)
    held.unlink()  # someone replaced the lock file while it was held
    held.hardlink_to(precious)
    unlock_run_folder(held)
    assert held.exists() and precious.read_bytes() == b"precious data\n"


def test_a_server_error_and_a_judge_name_holding_markup_are_printed_as_text(gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    with FaultServer(ok_text=lambda prompt: VERDICT6) as server:
        server.fail_with = "markup_400"  # "no route [/v1/chat/completions] here"
        args = chat_run(
            1, f"replay:{generations}", "openai:judge[/b]", str(out), "--judge-arg", f"base_url={server.url}"
        )
        assert main([*args, *FAST_RETRIES]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err  # neither the progress bar nor the failure line reads them as markup
    assert "to openai:judge[/b] failed: " in err and "no route [/v1/chat/completions] here" in err
    assert "no route [/v1/chat/completions] here" in lines(out / "failures.jsonl")[0]["error"]
