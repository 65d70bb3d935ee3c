"""When a run folder's configuration binds, what counts as a change, what `score`/`report` say while calls are
pending, and what `import-generations` refuses (issue 20, rows 5 to 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from longform_eval.inference.cli import main
from longform_eval.inference.config import GenerationConfig, ModelSpec
from longform_eval.inference.runner import Run, RunConfig

from .conftest import chat_run
from .fault_server import FaultServer

VERDICT6 = json.dumps([{"checklist_id": i, "reason": "solid", "evaluation_score": 0.75} for i in range(6)])
FAST_RETRIES = ("--judge-arg", "backoff_base=0.01", "--judge-arg", "max_attempts=2")


def judged_by_server(generations: Path, url: str, out: Path, *extra: str) -> list[str]:
    return chat_run(3, f"replay:{generations}", "openai:judge", str(out), "--judge-arg", f"base_url={url}", *extra)


def outcome(capsys, argv: list[str]) -> tuple[int, str]:
    """The exit status and stderr of a command, which never shows a traceback."""
    status = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


def stored_config(folder: Path) -> dict:
    return yaml.safe_load((folder / "config.yaml").read_text())


def chat_ids(replay: Path, count: int) -> list[str]:
    keys = [json.loads(line)["key"] for line in replay.read_text().splitlines()]
    return [key for key in keys if key.startswith("chat_")][:count]


def responses_file(path: Path, ids: list[str]) -> Path:
    path.write_text("".join(json.dumps({"id": i, "response": f"Answer to {i}."}) + "\n" for i in ids))
    return path


# ----- row 5: score and report exit 1 while calls are pending ---------------------------------------------------
def test_score_and_report_exit_1_while_failed_calls_are_pending_and_0_once_retried(gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    out, finished = tmp_path / "run", tmp_path / "finished"
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(finished))) == 0
    with FaultServer(ok_text=lambda prompt: VERDICT6) as server:
        server.fail_with = "500"
        assert outcome(capsys, [*judged_by_server(generations, server.url, out), *FAST_RETRIES])[0] == 1
        for command in (["score", str(out)], ["report", str(out)], ["report", str(finished), str(out)]):
            status, err = outcome(capsys, command)
            assert status == 1, command
            assert f"{out}: 3 calls failed and stay pending (logged in {out / 'failures.jsonl'})" in err
            assert "3 x judge:" in err and "HTTP 500" in err and str(finished) not in err
        assert (out / "report.md").is_file() and json.loads((out / "scores.json").read_text())["complete"] is False
        server.fail_with = None
        assert outcome(capsys, [*judged_by_server(generations, server.url, out), *FAST_RETRIES])[0] == 0
    for command in (["score", str(out)], ["report", str(finished), str(out)]):
        assert outcome(capsys, command) == (0, "")


def test_calls_not_made_yet_are_pending_but_an_imported_runs_missing_rows_are_not(gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "generated"
    assert main(["generate", *chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))[1:]]) == 0
    status, err = outcome(capsys, ["score", str(out)])  # the judge is configured, nothing is judged yet
    assert status == 1 and f"{out}: 2 calls not made yet (0 generations and 2 judge calls pending in all)" in err
    assert outcome(capsys, ["judge", str(out)])[0] == 0
    assert outcome(capsys, ["score", str(out)]) == (0, "")

    imported = tmp_path / "imported"
    source = responses_file(tmp_path / "two.jsonl", chat_ids(generations, 2))
    assert main(["import-generations", str(source), "--benchmark", "hellobench:chat", "--out", str(imported)]) == 0
    assert main(["judge", str(imported), "--judge", f"replay:{verdicts}"]) == 0
    capsys.readouterr()
    assert outcome(capsys, ["score", str(imported)]) == (0, "")  # rows never imported: nothing a rerun could make
    assert json.loads((imported / "scores.json").read_text())["n_pending_generations"] > 0


# ----- row 6: a command that failed before any record leaves no binding configuration ---------------------------
def test_a_mistyped_replay_path_then_the_corrected_command_runs_without_force(gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    mistyped = tmp_path / "gen.jsonl"  # no such file
    status, err = outcome(capsys, chat_run(2, f"replay:{mistyped}", f"replay:{verdicts}", str(out)))
    assert status == 2 and f"replay:{mistyped}: no such file of recorded completions" in err
    assert not out.exists()  # refused with the settings, before the folder is made
    assert outcome(capsys, chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out)))[0] == 0
    assert stored_config(out)["model"]["model"] == str(generations)
    assert len(Run.open(out).current_judgements()) == 2
    # once the folder holds records its configuration binds: another model still needs --force
    status, err = outcome(capsys, chat_run(2, f"replay:{verdicts}", f"replay:{verdicts}", str(out)))
    assert status == 2 and "different configuration (model)" in err


def test_a_mistyped_judge_after_generating_then_the_corrected_judge_runs_without_force(gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    mistyped = tmp_path / "typo.jsonl"  # no such file
    assert (
        outcome(capsys, ["generate", *chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))[1:]])[0] == 0
    )
    status, err = outcome(capsys, chat_run(2, f"replay:{generations}", f"replay:{mistyped}", str(out)))
    assert status == 2 and f"replay:{mistyped}: no such file of recorded completions" in err
    assert stored_config(out)["judge"]["model"] == str(verdicts) and (out / "generations.jsonl").stat().st_size
    status, err = outcome(capsys, chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out)))
    assert status == 0 and f"{out}: model calls 0, judge calls 2" in err
    assert stored_config(out)["judge"]["model"] == str(verdicts) and len(Run.open(out).current_judgements()) == 2
    # the judge binds once a judgement is written; a judge-side setting (the parser) too
    for changed, field in [(["--judge", f"replay:{generations}"], "judge"), (["--parser", "lenient"], "parser")]:
        status, err = outcome(capsys, ["judge", str(out), *changed])
        assert status == 2 and f"different configuration ({field})" in err, err


# ----- row 7: connection, retry, concurrency and timeout options are no configuration change --------------------
def test_changing_how_the_judge_is_reached_needs_no_force_and_makes_no_call(gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    out = tmp_path / "run"
    with FaultServer(ok_text=lambda prompt: VERDICT6) as first:
        assert main(judged_by_server(generations, first.url, out)) == 0
    judged = len(Run.open(out).current_judgements())
    with FaultServer(ok_text=lambda prompt: VERDICT6) as second:
        moved = judged_by_server(
            generations, second.url, out, "--judge-arg", "timeout=5", "--judge-arg", "max_in_flight=2"
        )
        status, err = outcome(capsys, moved)
        assert status == 0 and f"{out}: model calls 0, judge calls 0" in err
        assert stored_config(out)["judge"]["options"] == {"base_url": second.url, "timeout": 5, "max_in_flight": 2}
        again = ["judge", str(out), "--judge", "openai:judge", "--judge-arg", f"base_url={second.url}"]
        assert outcome(capsys, [*again, "--judge-arg", "max_attempts=3"]) == (0, "")
        assert stored_config(out)["judge"]["options"] == {"base_url": second.url, "max_attempts": 3}
        status, err = outcome(capsys, [*moved, "--judge-temperature", "0.5"])  # changes the verdicts
        assert status == 2 and "different configuration (judge_generation)" in err
        status, err = outcome(capsys, [*moved, "--judge-arg", "accept_empty=true"])  # changes what is kept
        assert status == 2 and "different configuration (judge)" in err
    assert sum(second.seen.values()) == 0 and len(Run.open(out).current_judgements()) == judged == 3


@pytest.mark.parametrize(
    "backend, option, neutral",
    [
        ("openai", {"base_url": "http://127.0.0.1:8000/v1"}, True),
        ("openai", {"base_url_env": "JUDGE_URL", "api_key_env": "JUDGE_KEY"}, True),
        ("openai", {"max_retry_after": 5, "backoff_base": 0.5, "backoff_cap": 9}, True),
        ("replay", {"delay": 0.5}, True),
        ("openai", {"accept_empty": True}, False),
        ("vllm", {"chunk_size": 8}, False),  # other batches can give other floating-point results
        ("hf", {"batch_size": 2}, False),
        ("hf", {"threads": 2}, False),
    ],
)
def test_only_output_neutral_options_are_left_out_of_the_comparison(backend, option, neutral):
    def config(options: dict) -> RunConfig:
        spec = ModelSpec(backend=backend, model="m", options=options)
        settings = GenerationConfig()
        return RunConfig(
            benchmark="b", benchmark_config="c", model=spec, judge=spec, generation=settings, judge_generation=settings
        )

    stored, changed = config({}), config(option)
    assert changed.changed_fields(stored.model_dump(mode="json")) == ([] if neutral else ["judge", "model"])
    identity = (stored.model_id, stored.generation_hash, stored.judge_hash)
    assert (changed.model_id, changed.generation_hash, changed.judge_hash) == identity  # records still match


# ----- row 8: import-generations refuses repeated and unknown ids, writing nothing ------------------------------
def test_import_refuses_repeated_and_unknown_ids_and_writes_nothing(gpt4o_replays, tmp_path, capsys):
    generations, _ = gpt4o_replays
    ids = chat_ids(generations, 3)
    out = tmp_path / "imported"
    command = ["import-generations", "--benchmark", "hellobench:chat", "--out", str(out)]
    repeated = responses_file(tmp_path / "repeated.jsonl", [*ids, ids[1]])
    unknown = responses_file(tmp_path / "unknown.jsonl", [*ids, "no_such_id", "summarization_001"])
    for source, skip, expected in [
        (repeated, [], f"{repeated}: 1 id given more than once ({ids[1]}); nothing imported"),
        (repeated, ["--skip-unknown"], f"{repeated}: 1 id given more than once ({ids[1]}); nothing imported"),
        (unknown, [], "2 ids that hellobench:chat does not have (no_such_id, summarization_001); nothing imported"),
    ]:
        status, err = outcome(capsys, [*command, str(source), *skip])
        assert status == 2 and expected in err and len(err.splitlines()) == 1
        assert not out.exists()
    status, err = outcome(capsys, [*command, str(unknown), "--skip-unknown"])
    assert status == 0 and err.startswith(f"imported 3 responses into {out}; skipped 2 unknown ids (no_such_id")
    assert sorted(Run.open(out).current_generations()) == sorted(ids)
    status, err = outcome(capsys, [*command, str(unknown), "--skip-unknown"])
    assert status == 0 and err.startswith(f"imported 0 responses into {out}; 3 already there; skipped 2")


def test_a_released_folder_imports_the_files_of_the_benchmarks_config(shared_data, tmp_path, capsys):
    released = shared_data / "hellobench/generations/main_exp/gpt4o_0806"
    out = tmp_path / "chat"
    status, err = outcome(
        capsys, ["import-generations", str(released), "--benchmark", "hellobench:chat", "--out", str(out)]
    )
    assert status == 0 and err.startswith(f"imported 147 responses into {out}; left out 4 files with none of its ids (")
    assert "chat_results" not in err and len(Run.open(out).current_generations()) == len(Run.open(out).rows)
