"""The whole pipeline on real released data, with recorded completions standing in for the models."""

from __future__ import annotations

import json

import pytest

from longform_eval.common.install import install_command
from longform_eval.inference.backends import create_backend
from longform_eval.inference.cli import main
from longform_eval.inference.runner import Run
from longform_eval.metric.helloeval import load_prompt
from longform_eval.metric.helloeval.upstream_runs import model_deviations

from .conftest import assert_intervals_hold, chat_run, write_replay

PUBLISHED_GPT4O = {
    "open_ended_qa": 54.82,
    "summarization": 29.71,
    "chat": 42.88,
    "text_completion": 67.49,
    "heuristic_text_generation": 47.87,
}


class Counting:
    """Counts the backend calls the runner makes."""

    def __init__(self):
        self.calls = 0

    def __call__(self, spec):
        backend = create_backend(spec)
        outer = self

        class Wrapper:
            name = backend.name

            def generate(self, requests, config, on_result=None):
                outer.calls += len(requests)
                return backend.generate(requests, config, on_result)

            def close(self):
                backend.close()

        return Wrapper()


def test_released_responses_judged_with_released_verdicts_give_the_published_scores(
    shared_data, gpt4o_replays, tmp_path, capsys
):
    _, verdicts = gpt4o_replays
    model_dir = shared_data / "hellobench/generations/main_exp/gpt4o_0806"
    out = tmp_path / "gpt4o"
    assert main(["import-generations", str(model_dir), "--out", str(out)]) == 0
    assert main(["judge", str(out), "--judge", f"replay:{verdicts}", "--judge-name", "gpt-4o"]) == 0
    assert main(["score", str(out)]) == 0
    scores = json.loads((out / "scores.json").read_text())
    assert scores["overall"] == pytest.approx(48.55, abs=0.01)
    assert {t: s["score"] for t, s in scores["tasks"].items()} == pytest.approx(PUBLISHED_GPT4O, abs=0.01)
    assert (scores["n_scored"], scores["n_unscored"]) == (647, 0)
    assert scores["deviations"] == []  # GPT-4o's recorded verdicts, named: the paper's protocol
    assert main(["report", str(out)]) == 0
    report = (out / "report.md").read_text()
    assert "not comparable with the paper" not in report
    overall = scores["intervals"]["overall"]
    assert f"**Overall HelloEval score: 48.55 [{overall['low']:.2f}, {overall['high']:.2f}]**" in report
    assert (out / "score_per_task.png").stat().st_size > 1000 and (out / "score_vs_words.png").is_file()
    judged = [json.loads(line) for line in (out / "judgements.jsonl").read_text().splitlines()]
    assert len(judged) == 647 and all(j["completion"] and j["attempts"] == 1 for j in judged)


def test_a_finished_run_makes_zero_calls(gpt4o_replays, tmp_path):
    generations, verdicts = gpt4o_replays
    args = chat_run(12, f"replay:{generations}", f"replay:{verdicts}", str(tmp_path / "run"))
    assert main(args) == 0
    run = Run.open(tmp_path / "run")
    counter = Counting()
    run.generate(counter)
    run.judge(counter)
    assert counter.calls == 0
    assert len(list(run.generations.records())) == 12 and len(list(run.judgements.records())) == 12


def test_changed_configuration_on_resume_is_an_error_unless_forced(gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    base = chat_run(3, f"replay:{generations}", f"replay:{verdicts}", str(tmp_path / "run"))
    assert main(base) == 0
    assert main([*base, "--temperature", "0.2"]) == 2
    assert "different configuration (generation)" in capsys.readouterr().err
    assert main([*base, "--temperature", "0.2", "--force"]) == 0
    scores = json.loads((tmp_path / "run/scores.json").read_text())
    assert scores["deviations"][0] == "generation temperature = 0.2 (paper: 0.8)"
    assert scores["deviations"][1:] == [
        "judge model = verdicts recorded by a judge not named (--judge-name names it), replayed from "
        f"replay:{verdicts} (paper: gpt-4o)",
        *model_deviations(str(generations), load_prompt().generation.models, 16384),  # a model run.py did not run
    ]  # recorded verdicts: no judge settings of their own, and asking again returns the same reply
    assert "- generation temperature = 0.2 (paper: 0.8)" in (tmp_path / "run/report.md").read_text()


def test_unscored_verdicts_are_kept_with_reasons_and_never_scored_zero(gpt4o_replays, tmp_path):
    generations, _ = gpt4o_replays
    broken = tmp_path / "judge.jsonl"
    ids = [json.loads(line)["key"] for line in generations.read_text().splitlines() if '"chat_' in line][:4]
    verdict = json.dumps([{"checklist_id": i, "reason": "ok", "evaluation_score": 1} for i in range(6)])
    texts = [verdict, verdict[:-30], "I refuse to grade this.", verdict.replace("1}", "1.5}")]
    broken.write_text("\n".join(json.dumps({"key": k, "text": t}) for k, t in zip(ids, texts, strict=True)) + "\n")
    out = tmp_path / "run"
    assert main(chat_run(4, f"replay:{generations}", f"replay:{broken}", str(out))) == 0
    records = {json.loads(x)["key"]: json.loads(x) for x in (out / "judgements.jsonl").read_text().splitlines()}
    reasons = [records[k]["unscored_reason"] for k in ids]
    assert reasons[0] is None and all(reasons[1:])
    assert all(records[k]["attempts"] == 3 for k in ids[1:])  # retried up to the paper's 3 attempts
    scores = json.loads((out / "scores.json").read_text())
    assert (scores["n_scored"], scores["n_unscored"]) == (1, 3)
    assert scores["tasks"]["chat"]["score"] == pytest.approx(100.0)  # the unscored rows are not zeros


def test_think_blocks_are_stripped_before_judging():
    from longform_eval.inference.benchmarks import strip_think

    assert strip_think("<think>plan</think>\nAnswer.") == ("Answer.", True)
    assert strip_think("Answer.") == ("Answer.", False)
    assert strip_think("<think>never closed") == ("", True)


def test_dry_run_prints_calls_without_a_model(capsys, gpt4o_replays, tmp_path):
    assert (
        main(
            [
                "run",
                "--benchmark",
                "hellobench:summarization",
                "--model",
                "openai:gpt-4o-mini",
                "--judge",
                "openai:gpt-4o",
                "--out",
                str(tmp_path / "r"),
                "--dry-run",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "100 generation calls to openai:gpt-4o-mini" in out and "up to 1,638,400 new tokens" in out


def test_clear_errors_for_bad_model_names(tmp_path, capsys):
    assert main(["run", "--benchmark", "hellobench:chat", "--model", "gpt4", "--out", str(tmp_path / "x")]) == 2
    assert "expected BACKEND:MODEL" in capsys.readouterr().err
    assert main(chat_run(1, "tpu:m", "tpu:m", str(tmp_path / "y"))) == 2
    assert "unknown backend 'tpu'" in capsys.readouterr().err


def test_missing_backend_extra_names_the_pip_command(tmp_path, capsys):
    import importlib.util

    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vllm is installed here")
    assert main(chat_run(1, "vllm:/models/x", "vllm:/models/x", str(tmp_path / "v"))) == 2
    err = capsys.readouterr().err
    assert all(f"  {line}\n" in err for line in install_command("vllm").splitlines()), err


def test_longgenbench_pipeline_with_a_recorded_model_and_judge(shared_data, tmp_path):
    from longform_eval.dataset_builder.longgenbench import read_setting

    items = [i for i in read_setting(shared_data / "longgenbench", "short") if i["subtask_type"] == "Floor"][:2]
    outputs = {}
    for item in items:
        uses = {}
        for check in item["checks"]:
            uses.setdefault(check["subtask"], []).append(check["description"])
        body = " ".join(f"#*# Floor {f}: " + ", ".join(uses.get(f, ["offices"])) for f in range(2, 51))
        outputs[item["id"]] = "\nFloor 1 is the lobby. " + body
    model = tmp_path / "model.jsonl"
    model.write_text("\n".join(json.dumps({"key": k, "text": v}) for k, v in outputs.items()) + "\n")
    judge_lines = []
    for item in items:
        for index in range(len(item["checks"])):
            judge_lines.append(json.dumps({"key": f"{item['id']}#{index}", "text": "Yes" if index % 2 == 0 else "no"}))
    judge = tmp_path / "judge.jsonl"
    judge.write_text("\n".join(judge_lines) + "\n")
    out = tmp_path / "lgb"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "longgenbench:short",
                "--subcategory",
                "Floor",
                "--limit",
                "2",
                "--model",
                f"replay:{model}",
                "--judge",
                f"replay:{judge}",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    scores = json.loads((out / "scores.json").read_text())
    assert scores["cr"] == 50.0
    judged = [i for item in items for i, c in enumerate(item["checks"]) if c["subtask"] <= 50]
    yes = [i for i in judged if i % 2 == 0]
    assert scores["n_judged"] == len(judged) and scores["n_yes"] == len(yes)
    assert (out / "stic_by_position.png").is_file()
    assert_intervals_hold(scores, ("stic1", "stic2", "wavg"))
    # both items' CR is 50: no spread, so no interval (never a zero width), and scores.json says why
    assert scores["intervals"]["cr"] is None
    assert scores["interval_notes"]["cr"] == "the items' values do not vary: no variance to estimate"
    # checks clustered in items
    assert scores["interval_method"].startswith("95% t interval over items: figure ± t(df) x SE")
    # the per-type and per-scenario table carries intervals over items too (two items: a t interval, in 0..100)
    breakdown = scores["group_intervals"]
    assert set(breakdown) == {*scores["by_type"], *scores["by_scenario"]}
    for name, group in {**scores["by_type"], **scores["by_scenario"]}.items():
        stic1 = breakdown[name]["stic1"]
        assert stic1 is None or 0 <= stic1["low"] <= group["stic1"] <= stic1["high"] <= 100
    assert "| group | CR [95% CI] | STIC-1 [95% CI] | STIC-2 [95% CI] |" in (out / "report.md").read_text()


def test_the_lenient_parser_is_opt_in_and_counts_its_rescues(gpt4o_replays, tmp_path):
    generations, _ = gpt4o_replays
    ids = [json.loads(line)["key"] for line in generations.read_text().splitlines() if '"chat_' in line][:3]
    items = [{"checklist_id": i, "reason": "ok", "evaluation_score": 1} for i in range(6)]
    texts = [json.dumps(items), str(items), f"My verdict:\n{json.dumps(items)}\nThat is all."]
    judge = write_replay(tmp_path / "judge.jsonl", zip(ids, texts, strict=True))
    upstream, lenient = tmp_path / "upstream", tmp_path / "lenient"
    assert main([*chat_run(3, f"replay:{generations}", f"replay:{judge}", str(upstream)), "--judge-attempts", "1"]) == 0
    assert json.loads((upstream / "scores.json").read_text())["n_scored"] == 1  # only the plain JSON reply
    assert main([*chat_run(3, f"replay:{generations}", f"replay:{judge}", str(lenient)), "--parser", "lenient"]) == 0
    scores = json.loads((lenient / "scores.json").read_text())
    assert scores["n_scored"] == 3
    assert scores["parser_rescues"] == {"python_literal": 1, "prose_around_list": 1}
    assert "judge output parser = lenient (paper: upstream)" in scores["deviations"]
    assert "Verdicts saved by the lenient parser" in (lenient / "report.md").read_text()
