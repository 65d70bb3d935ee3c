"""Paired comparisons between runs (`report A B ... --out DIR` -> DIR/comparisons.json) and power for a planned run
(`--dry-run --power-reference RUN --detect D`), on the released HelloBench responses judged by their released GPT-4o
verdicts."""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.benchmarks.hellobench import HelloBench
from longform_eval.inference.benchmarks.scores_json import run_scores
from longform_eval.inference.cli import main
from longform_eval.inference.report.comparisons import aligned, compare, compared_runs, units_of_run
from longform_eval.inference.report.json_file import DamagedFile
from longform_eval.inference.runner import Run, scoring, uncertainty
from longform_eval.inference.runner.schema import ScoresInvalid
from longform_eval.inference.runner.scoring import sample_scores, write_scores
from longform_eval.inference.runner.uncertainty import run_units, uncertainty_fields
from longform_eval.metric.uncertainty import independent_se, prompts_needed
from longform_eval.metric.uncertainty.power import scale_bound_se
from longform_eval.metric.uncertainty.units import UnitTable

from .conftest import chat_run, released, write_replay

MODELS = ("gpt4o_0806", "llama31_8b", "qwen2_7b")


def verdict_pairs(shared_data: Path, model: str, suffix: str = ""):
    """(judge-call key, the judge's JSON reply) of a model's released verdicts; `suffix` names a judge sample."""
    for record in released(shared_data, "judgements", model):
        yield record["id"] + suffix, json.dumps(record["checklist_wise_evaluation"], ensure_ascii=False)


def imported_run(shared_data: Path, model: str, folder: Path) -> Path:
    """All 647 main prompts: the model's released responses, judged by replaying its released verdicts."""
    judge = write_replay(folder / f"judge_{model}.jsonl", verdict_pairs(shared_data, model))
    out = folder / model
    generations = shared_data / "hellobench/generations/main_exp" / model
    assert main(["import-generations", str(generations), "--out", str(out), "--benchmark", "hellobench:all"]) == 0
    assert main(["judge", str(out), "--judge", f"replay:{judge}", "--judge-name", "gpt-4o"]) == 0  # one judge
    assert main(["score", str(out)]) == 0
    return out


def compared_in(*folders: Path) -> Path:
    """The folder `report` is told to write the comparisons of `folders` into (`--out`): one per set of runs."""
    return folders[0].parent / ("compared_" + "_".join(folder.name for folder in folders))


def report(*folders: Path) -> tuple[int, str]:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(["report", *map(str, folders), "--out", str(compared_in(*folders))])
    return code, printed.getvalue()


@pytest.fixture(scope="module")
def released_runs(shared_data, tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("released_runs")
    return {model: imported_run(shared_data, model, folder) for model in MODELS}


@pytest.fixture(scope="module")
def reported(released_runs) -> tuple[str, dict, bytes]:
    """`report` on the three runs: what it printed, comparisons.json and its bytes."""
    code, printed = report(*released_runs.values())
    assert code == 0
    path = compared_in(*released_runs.values()) / "comparisons.json"
    return printed, json.loads(path.read_text()), path.read_bytes()


def scores_of(folder: Path) -> dict:
    return json.loads((folder / "scores.json").read_text())


def entry(document: dict, a: Path, b: Path, figure: str = "overall") -> dict:
    return next(e for e in document["comparisons"] if (e["a"], e["b"], e["figure"]) == (str(a), str(b), figure))


def width(low: float, high: float) -> float:
    return high - low


# ----- each run's own intervals ---------------------------------------------------------------------------------------
PUBLISHED = {"gpt4o_0806": 48.55, "llama31_8b": 15.01, "qwen2_7b": 13.68}


def test_each_runs_interval_holds_its_published_score_and_is_the_same_when_scored_again(released_runs):
    for model, folder in released_runs.items():
        scores = scores_of(folder)
        overall = scores["intervals"]["overall"]
        assert scores["overall"] == pytest.approx(PUBLISHED[model], abs=0.005)
        assert overall["low"] < PUBLISHED[model] < overall["high"] and overall["n"] == 647
        method = "95% t interval over prompts, stratified by task: figure ± t(df) x SE"
        assert scores["interval_method"].startswith(method)
        for task, figures in scores["tasks"].items():
            assert scores["intervals"][task]["low"] <= figures["score"] <= scores["intervals"][task]["high"]
        benchmark = create_benchmark("hellobench", "all")
        again = uncertainty_fields(benchmark, [benchmark.typed_figures(scores)])
        # Same code, same rows (read back exactly), same process as the score command: bit-identical by construction.
        assert again["intervals"] == scores["intervals"]


# ----- report A B C --out DIR -> comparisons.json ---------------------------------------------------------------------
def test_gpt4o_is_distinguishable_from_qwen_and_llama_is_not(released_runs, reported):
    _, document, _ = reported
    gpt4o, llama, qwen = (released_runs[m] for m in MODELS)
    apart = entry(document, gpt4o, qwen)
    assert apart["distinguishable"] is True and apart["low"] > 25 and apart["p_value"] < 0.01
    tie = entry(document, llama, qwen)
    assert tie["difference"] == pytest.approx(scores_of(llama)["overall"] - scores_of(qwen)["overall"], abs=1e-9)
    assert tie["difference"] == pytest.approx(1.34, abs=0.01)
    assert tie["low"] == pytest.approx(-5.2, abs=0.5) and tie["high"] == pytest.approx(7.6, abs=0.5)
    assert tie["distinguishable"] is False and tie["p_value"] > 0.05
    assert tie["n_paired"] == 647 and tie["paired"] is True
    assert tie["minimum_detectable"] == pytest.approx(2.8016 * tie["se"], rel=5e-3)  # 80% power, alpha 0.05, t test


def test_every_pair_of_the_config_and_every_figure_headline_first(released_runs, reported):
    _, document, _ = reported
    assert document["written_by"] == "longform-eval report"
    figures = list(scores_of(released_runs["qwen2_7b"])["intervals"])
    pairs = {(e["a"], e["b"]) for e in document["comparisons"]}
    assert len(pairs) == 3 and len(document["comparisons"]) == 3 * len(figures)
    assert [e["figure"] for e in document["comparisons"][: len(figures)]] == figures  # "overall" first
    assert {e["benchmark"] for e in document["comparisons"]} == {"hellobench:all"}
    tasks = [e for e in document["comparisons"] if e["figure"] == "chat"]
    assert all(e["n_paired"] == scores_of(released_runs["qwen2_7b"])["tasks"]["chat"]["n_scored"] for e in tasks)


def test_the_paired_interval_is_narrower_than_the_two_runs_separate_ones(released_runs, reported):
    _, document, _ = reported
    for e in document["comparisons"]:
        if e["figure"] != "overall":
            continue
        separate = [scores_of(Path(run))["intervals"]["overall"] for run in (e["a"], e["b"])]
        unpaired = math.hypot(*(width(i["low"], i["high"]) for i in separate))
        assert width(e["low"], e["high"]) < 0.95 * unpaired


def test_rank_ranges_put_gpt4o_first_and_the_other_two_together(released_runs, reported):
    _, document, _ = reported
    (config,) = document["configs"]
    ranks = config["rank_ranges"]
    assert ranks["figure"] == "overall" and ranks["n_shared"] == 647
    by_run = {row["run"]: row for row in ranks["runs"]}
    gpt4o, llama, qwen = (by_run[str(released_runs[m])] for m in MODELS)
    assert (gpt4o["rank"], gpt4o["best"], gpt4o["worst"]) == (1, 1, 1)
    assert llama["best"] <= qwen["worst"] and qwen["best"] <= llama["worst"]  # their ranges overlap
    assert gpt4o["value"] == pytest.approx(48.55, abs=0.01)


def test_the_printed_section_marks_the_tie(released_runs, reported):
    printed, _, _ = reported
    section = printed[printed.index("# Paired comparisons") :]
    rows = {tuple(cell.strip() for cell in line.strip("|").split("|")[:2]): line for line in section.splitlines()}
    # runs are shown by their display labels (imported runs: imported:NAME), never by their folders
    llama, qwen, gpt4o = (f"imported:{m}" for m in ("llama31_8b", "qwen2_7b", "gpt4o_0806"))
    assert "tie (not distinguishable)" in rows[(llama, qwen)]
    assert "tie" not in rows[(gpt4o, qwen)] and f"{gpt4o} higher" in rows[(gpt4o, qwen)]
    # the figure its rank rests on (the shared prompts), the rank, its range, then its own figure and interval
    assert re.search(r"^\| imported:gpt4o_0806 \| [0-9.]+ \| 1 \| 1\.\.1 \| [0-9.]+ \[[^|]+\] \|$", section, re.M)
    assert not any(str(folder) in section for folder in released_runs.values())
    assert section.rstrip().endswith("comparisons.json")


def test_report_twice_writes_the_same_comparisons(released_runs, reported):
    _, _, first = reported
    code, _ = report(*released_runs.values())
    assert code == 0
    # The same command on the same runs in one process: bit-identical bytes by construction.
    assert (compared_in(*released_runs.values()) / "comparisons.json").read_bytes() == first


# ----- the units a comparison rests on --------------------------------------------------------------------------------
def test_a_unit_unscored_on_either_side_is_left_out_of_both():
    nan = np.nan
    a = UnitTable(("p1", "p2", "p3", "p4"), {"row_score": np.array([80, nan, 70, 60]), "s_l": np.array([1, 2, nan, 4])})
    b = UnitTable(("p4", "p3", "p2", "p9"), {"row_score": np.array([50, 40, 30, 20]), "s_l": np.array([5, 6, 7, nan])})
    table_a, table_b = aligned([a, b], "row_score")
    assert table_a.ids == table_b.ids == ("p3", "p4")  # p1, p9: in one run only; p2: unscored in a
    assert table_a["row_score"].tolist() == [70, 60] and table_b["row_score"].tolist() == [40, 50]
    assert np.isnan(table_b["s_l"][0]) and table_b["s_l"][1] == 5  # a's unscored s_l is left out of b too


def test_longgenbench_items_keep_their_check_counts_when_aligned():
    benchmark = create_benchmark("longgenbench", "short")
    columns = {"cr": np.array([1.0, 0.5, 1.0]), "judged": np.array([2.0, 0, 1]), "checks": np.array([4.0, 2, 1])}
    a = UnitTable(("i1", "i2", "i3"), columns | {"stic2": np.array([50, np.nan, 100])}, unit="item")
    b = UnitTable(("i1", "i2", "i3"), columns | {"stic2": np.array([25, 50, 0])}, unit="item")
    table_a, table_b = aligned([a, b], benchmark.judge_noise_column)
    assert table_b.ids == ("i1", "i3")  # i2: every check of a's unscored
    figures = benchmark.figures(table_b)
    assert figures["stic2"].point() == pytest.approx(100 * 1 / 5)  # b's yes (1 + 0) over its checks (4 + 1)
    assert figures["cr"].point() == pytest.approx(1.0)


# ----- small runs: judge samples, other configs, a file the toolkit did not write ------------------------------------
@pytest.fixture(scope="module")
def small_runs(shared_data, gpt4o_replays, tmp_path_factory) -> dict[str, Path]:
    """12 chat prompts with GPT-4o's responses: judged twice per call (GPT-4o's verdicts, then Llama's replayed as
    a second sample) and once; and 3 summarization prompts (another config)."""
    generations, verdicts = gpt4o_replays
    folder = tmp_path_factory.mktemp("small_runs")
    pairs = [*verdict_pairs(shared_data, "gpt4o_0806"), *verdict_pairs(shared_data, "llama31_8b", "~s1")]
    two = write_replay(folder / "two_samples.jsonl", pairs)
    runs = {"twice": folder / "twice", "once": folder / "once", "other": folder / "other"}
    named = ("--judge-name", "gpt-4o")  # two replay files, one judge: comparable (`comparability`)
    twice = chat_run(12, f"replay:{generations}", f"replay:{two}", str(runs["twice"]), "--judge-samples", "2", *named)
    assert main(twice) == 0
    assert main(chat_run(12, f"replay:{generations}", f"replay:{verdicts}", str(runs["once"]), *named)) == 0
    other = chat_run(3, f"replay:{generations}", f"replay:{verdicts}", str(runs["other"]), *named)
    other[other.index("hellobench:chat")] = "hellobench:summarization"
    assert main(other) == 0
    return runs


def test_a_run_judged_twice_is_compared_on_the_mean_of_its_samples(small_runs):
    twice, once = small_runs["twice"], small_runs["once"]
    assert scores_of(twice)["judge_samples"] == 2
    assert report(twice, once)[0] == 0
    document = json.loads((compared_in(twice, once) / "comparisons.json").read_text())
    found = entry(document, twice, once)
    expected = scores_of(twice)["overall"] - scores_of(once)["overall"]
    assert abs(expected) > 1  # the second sample (Llama's verdicts) moves the figure: sample 0 alone would give 0
    assert found["difference"] == pytest.approx(expected, abs=1e-9) and found["n_paired"] == 12


def test_a_run_judged_twice_is_compared_from_its_scores_file_alone(small_runs, monkeypatch):
    """Its scores.json keeps each judge sample's units: the comparison reads them, never re-opening or rescoring."""
    twice, once = small_runs["twice"], small_runs["once"]
    run = Run.open(twice, read_only=True)
    rescored = run_units(run.benchmark, sample_scores(run))[0]  # what a comparison rescored the run to get before

    def refused(*args, **kwargs):
        raise AssertionError("a comparison re-opened or rescored a run")

    for owner, name in ((Run, "open"), (Run, "create"), (Run, "score"), (scoring, "sample_scores")):
        monkeypatch.setattr(owner, name, refused)
    for owner, name in ((scoring, "scores_of"), (uncertainty, "run_units")):
        monkeypatch.setattr(owner, name, refused)
    runs = compared_runs([twice, once])
    assert runs[0].units.ids == rescored.ids and runs[0].units.strata == rescored.strata
    assert np.array_equal(runs[0].units["row_score"], rescored["row_score"], equal_nan=True)
    found = entry({"comparisons": compare(runs[0], runs[1])}, twice, once)
    expected = scores_of(twice)["overall"] - scores_of(once)["overall"]
    assert found["difference"] == pytest.approx(expected, abs=1e-9) and found["n_paired"] == 12


def test_a_scores_file_of_two_samples_without_their_units_is_refused_with_the_reason(small_runs, tmp_path):
    folder = tmp_path / "twice"
    shutil.copytree(small_runs["twice"], folder)
    scores = scores_of(folder)
    assert len(scores["sample_units"]["samples"]) == 2 and len(scores["sample_units"]["ids"]) == 12
    del scores["sample_units"]  # as written before each sample's units were kept
    with pytest.raises(DamagedFile, match=r"scores\.json: it keeps the units of its first judge sample only.*score"):
        units_of_run(folder, run_scores(scores), create_benchmark("hellobench", "chat"))


def test_a_scores_file_whose_sample_units_do_not_fit_is_refused_on_read(small_runs, tmp_path, capsys):
    folder = tmp_path / "twice"
    shutil.copytree(small_runs["twice"], folder)
    scores = scores_of(folder)
    scores["sample_units"]["samples"][1]["row_score"].pop()  # one value short: read by the model write_scores uses
    (folder / "scores.json").write_text(json.dumps(scores))
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "field 'sample_units'" in err and "11 values for 12 units" in err and "Traceback" not in err


def test_a_scoring_bug_fails_at_write_time_naming_the_field(small_runs, tmp_path, monkeypatch, capsys):
    """scores.json is checked by the model it is read with before it is written: a bad field is never written."""
    folder = tmp_path / "once"
    shutil.copytree(small_runs["once"], folder)
    before = (folder / "scores.json").read_bytes()
    score = HelloBench.score
    monkeypatch.setattr(HelloBench, "score", lambda *args: score(*args).document() | {"n_unscored": -1})  # count < 0
    assert main(["score", str(folder)]) != 0
    err = capsys.readouterr().err
    assert "scores.json" in err and "field 'n_unscored'" in err and "Traceback" not in err
    assert (folder / "scores.json").read_bytes() == before
    bad = scores_of(small_runs["twice"])
    bad["sample_units"]["samples"].append(bad["sample_units"]["samples"][0])
    with pytest.raises(ScoresInvalid, match=r"not written: field 'sample_units': .*3 judge samples"):
        write_scores(tmp_path, bad)
    assert not (tmp_path / "scores.json").exists()


def test_runs_of_another_config_are_not_compared(small_runs):
    assert report(*small_runs.values())[0] == 0
    document = json.loads((compared_in(*small_runs.values()) / "comparisons.json").read_text())
    compared = {run for e in document["comparisons"] for run in (e["a"], e["b"])}
    assert compared == {str(small_runs["twice"]), str(small_runs["once"])}
    assert [config["benchmark"] for config in document["configs"]] == ["hellobench:chat"]


def test_a_comparisons_file_the_toolkit_did_not_write_is_kept(small_runs, tmp_path, capsys):
    for name in ("twice", "once"):
        shutil.copytree(small_runs[name], tmp_path / name)
        (tmp_path / name / "report.md").unlink()  # `run` wrote it; the refused report must not write it again
    foreign = tmp_path / "comparisons.json"
    foreign.write_text('{"mine": true}\n')
    assert main(["report", str(tmp_path / "twice"), str(tmp_path / "once"), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "comparisons.json" in err and "refusing to overwrite" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert foreign.read_text() == '{"mine": true}\n' and not (tmp_path / "once" / "report.md").exists()


# ----- power for a planned run ---------------------------------------------------------------------------------------
def planned(gpt4o_replays, out: Path, *extra: str) -> list[str]:
    generations, verdicts = gpt4o_replays
    model, judge = f"replay:{generations}", f"replay:{verdicts}"
    return ["run", "--benchmark", "hellobench:all", "--model", model, "--judge", judge, "--out", str(out), *extra]


def needed(printed: str, pattern: str = r"a difference of 5 needs (?:at most |about )?([\d,]+) prompts") -> int:
    return int(re.search(pattern, printed)[1].replace(",", ""))


def test_one_reference_plans_with_the_other_models_spread_bounded_by_the_scale(
    released_runs, gpt4o_replays, tmp_path, capsys
):
    """A plan that takes the other model to vary as the reference does reached 65-74% of a stated 80% where it varies
    more: the plan bounds it by the most the -300..100 scale allows, and says "about" the size if it does not."""
    qwen = released_runs["qwen2_7b"]
    args = planned(gpt4o_replays, tmp_path / "plan", "--dry-run", "--power-reference", str(qwen), "--detect", "5")
    assert main(args) == 0
    printed = capsys.readouterr().out
    interval = scores_of(qwen)["intervals"]["overall"]
    units = create_benchmark("hellobench", "all").unit_table(run_scores(scores_of(qwen)).figures)
    scored = np.isfinite(units["row_score"])
    bound = scale_bound_se(400.0, [len(part) for part in units.design().split(np.zeros(len(units)), scored)])
    assert bound > 2 * interval["se"]  # a model may vary far more than qwen2_7b does
    safe = prompts_needed(5, math.hypot(interval["se"], bound), interval["n"], paired=False)
    # a t test at ~640 df (the reference's share of units - tasks) needs a few more than the normal plan
    assert safe.prompts <= needed(printed) <= safe.prompts + 3
    assert "needs at most" in printed and "the planned 647 do not suffice" in printed
    typical = prompts_needed(5, independent_se(interval["se"]), interval["n"], paired=False)
    about = needed(printed, r"about ([\d,]+) prompts if the other model varies as")
    assert typical.prompts <= about <= typical.prompts + 3 < safe.prompts and "no promise" in printed


def test_two_references_plan_by_simulating_their_paired_differences(
    released_runs, reported, gpt4o_replays, tmp_path, capsys
):
    _, document, _ = reported
    llama, qwen = released_runs["llama31_8b"], released_runs["qwen2_7b"]
    references = ["--power-reference", str(llama), "--power-reference", str(qwen)]
    assert main(planned(gpt4o_replays, tmp_path / "plan", "--dry-run", *references, "--detect", "5")) == 0
    printed = capsys.readouterr().out
    paired = entry(document, llama, qwen)
    share = min(paired["df"] / (paired["n_paired"] - 5), 1.0)  # the t df of the paired difference, 5 tasks
    t_plan = prompts_needed(5, paired["se"], paired["n_paired"], strata=5, df_share=share)
    expected = float(re.search(r"by simulation: at least (\d+)% at that size", printed)[1])
    assert expected >= 80 and 0.75 * t_plan.prompts < needed(printed) < 1.3 * t_plan.prompts  # never below 80%
    assert f"paired SE {paired['se']:.3f}" in printed


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (("--dry-run", "--power-reference", "{qwen}", "--detect", "0"), "argument --detect"),
        (("--dry-run", "--power-reference", "{qwen}", "--detect", "nan"), "argument --detect"),
        (("--power-reference", "{qwen}", "--detect", "5"), "--dry-run"),
        (("--dry-run", "--detect", "5"), "--power-reference"),
        (("--dry-run", "--power-reference", "{qwen}"), "--detect"),
        (("--dry-run", "--power-reference", "{nowhere}", "--detect", "5"), "no scores.json"),
        (("--dry-run", "--power-reference", "{qwen}", "--detect", "5", "--power-figure", "nope"), "--power-figure"),
        (("--dry-run", *("--power-reference", "{qwen}") * 3, "--detect", "5"), "one or two"),
    ],
)
def test_bad_power_arguments_are_one_line_and_exit_2(released_runs, gpt4o_replays, tmp_path, capsys, extra, named):
    places = {"qwen": released_runs["qwen2_7b"], "nowhere": tmp_path}
    out = tmp_path / "plan"
    assert main(planned(gpt4o_replays, out, *(part.format(**places) for part in extra))) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


def test_a_reference_of_another_config_is_refused(released_runs, gpt4o_replays, tmp_path, capsys):
    args = planned(gpt4o_replays, tmp_path / "plan", "--dry-run", "--power-reference", str(released_runs["qwen2_7b"]))
    args[args.index("hellobench:all")] = "hellobench:chat"
    assert main([*args, "--detect", "5"]) == 2
    err = capsys.readouterr().err
    assert "a hellobench:all run, but the planned runs are hellobench:chat" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "plan").exists()
