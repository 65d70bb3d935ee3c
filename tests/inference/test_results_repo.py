"""A repo of several runs: `push-run` keeps a results table (`results.jsonl`, one row per run, the repo's default
dataset config) and a `scores` config per run, `load_dataset` reads them, and `report hf://datasets/ORG/NAME` reports
every run in it with their paired comparisons; `report ORG/NAME` and a dataset's page URL are understood or hinted.
Against the local Hub stand-in (tests/hub_standin.py). Two runs on the same 3 HelloBench chat prompts: GPT-4o's and
Llama-3.1-8B's released responses, each judged by replaying its released verdicts."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import huggingface_hub
import pytest
import yaml
from hub_standin import FAKE_TOKEN

from longform_eval.inference.benchmarks.scores_json import run_scores
from longform_eval.inference.cli import main, parser
from longform_eval.inference.hub.results_table import FIELDS, result_row
from longform_eval.inference.hub.run_info import RunInfo
from longform_eval.inference.hub.sources import hub_or_local_path, local_path

from .conftest import chat_run, released, write_replay

REPO = "org/results-repo"
TIMEOUT = 180
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.M | re.S)


@pytest.fixture(scope="module")
def two_runs(gpt4o_replays, shared_data, tmp_path_factory) -> dict[str, Path]:
    """Finished runs of two models on the same prompts: {"gpt4o": folder, "llama": folder}."""
    folder = tmp_path_factory.mktemp("two-runs")
    llama = (
        write_replay(folder / f"llama-{kind}.jsonl", pairs)
        for kind, pairs in (
            ("gen", ((r["id"], r["response"]) for r in released(shared_data, "generations", "llama31_8b"))),
            (
                "judge",
                (
                    (r["id"], json.dumps(r["checklist_wise_evaluation"], ensure_ascii=False))
                    for r in released(shared_data, "judgements", "llama31_8b")
                ),
            ),
        )
    )
    runs = {"gpt4o": gpt4o_replays, "llama": tuple(llama)}
    for name, (generations, verdicts) in runs.items():
        judged = ("--judge-name", "gpt-4o")  # both replay files hold GPT-4o's verdicts: one judge
        assert main(chat_run(3, f"replay:{generations}", f"replay:{verdicts}", str(folder / name), *judged)) == 0
    return {name: folder / name for name in runs}


@pytest.fixture
def online(hub, monkeypatch, tmp_path):
    """This process's huggingface_hub pointed at the stand-in, online, with a token and an empty cache of its own."""
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_TOKEN", FAKE_TOKEN)
    hub.patch_client(monkeypatch)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def python(hub, home: Path, code: str) -> subprocess.CompletedProcess:
    """`python -c CODE` whose huggingface_hub and datasets talk to the stand-in, with a cache of their own."""
    return subprocess.run(
        [sys.executable, "-c", code], env=hub.env(home), capture_output=True, text=True, timeout=TIMEOUT
    )


def table(hub) -> list[dict]:
    return [json.loads(line) for line in hub.files(REPO)["results.jsonl"].decode().splitlines()]


def pushed_pair(two_runs, tmp_path) -> dict[str, Path]:
    """Copies of the two runs (a test may change them), pushed to runs/a and runs/b."""
    copies = {name: Path(shutil.copytree(folder, tmp_path / "mine" / name)) for name, folder in two_runs.items()}
    for name, path in (("gpt4o", "runs/a"), ("llama", "runs/b")):
        assert main(["push-run", str(copies[name]), "--repo", REPO, "--path-in-repo", path]) == 0
    return copies


# ----- the results table ------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_the_results_table_has_a_row_per_run_and_loads_with_datasets(online, hub, two_runs, tmp_path, capsys):
    copies = pushed_pair(two_runs, tmp_path)
    rows = table(hub)
    scores_of = {name: json.loads((copies[name] / "scores.json").read_text()) for name in copies}
    assert [(row["run_path"], row["model"]) for row in rows] == [
        ("runs/a", scores_of["gpt4o"]["model"]),
        ("runs/b", scores_of["llama"]["model"]),
    ]
    for row, name in zip(rows, ("gpt4o", "llama"), strict=True):
        scores = scores_of[name]
        interval = scores["intervals"]["overall"]
        assert list(row) == list(FIELDS)
        assert (row["benchmark"], row["config"], row["figure"], row["judge"]) == (
            "hellobench",
            "chat",
            "overall",
            scores["judge"],
        )
        assert row["score"] == pytest.approx(scores["overall"]) and row["n"] == interval["n"] == 3
        assert (row["low"], row["high"]) == (pytest.approx(interval["low"]), pytest.approx(interval["high"]))
        assert row["low"] <= row["score"] <= row["high"]
        assert (row["scale"], row["interval_method"], row["package_version"]) == (
            "-300..100",
            scores["interval_method"],
            "0.1.0",
        )
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["date"]) and row["model_revision"] is None
    assert rows[0]["score"] != pytest.approx(rows[1]["score"])  # two runs, two figures

    timings = json.loads((copies["gpt4o"] / "timings.json").read_text())  # the same run, worked on again later
    timings["invocations"].append({**timings["invocations"][-1], "started": "2031-02-03T04:05:06.000+00:00"})
    (copies["gpt4o"] / "timings.json").write_text(json.dumps(timings))
    assert main(["push-run", str(copies["gpt4o"]), "--repo", REPO, "--path-in-repo", "runs/a"]) == 0
    assert [(row["run_path"], row["date"]) for row in table(hub)] == [
        ("runs/a", "2031-02-03"),
        ("runs/b", rows[1]["date"]),
    ]
    assert table(hub)[1] == rows[1] and {k: v for k, v in table(hub)[0].items() if k != "date"} == {
        k: v for k, v in rows[0].items() if k != "date"
    }

    card = hub.files(REPO)["README.md"].decode()
    configs = yaml.safe_load(card.split("---\n")[1])["configs"]
    assert configs[0] == {
        "config_name": "results",
        "data_files": [{"split": "test", "path": "results.jsonl"}],
        "default": True,
    }
    assert {"config_name": "runs-a-scores", "data_files": [{"split": "test", "path": "runs/a/scores.json"}]} in configs

    code = (
        "import datasets, json\n"
        f"loaded = datasets.load_dataset({REPO!r})\n"  # no config named: the default, the results table
        "rows = loaded['test'].to_list()\n"
        f"scores = datasets.load_dataset({REPO!r}, 'runs-b-scores', split='test')\n"
        "print(json.dumps({'rows': rows, 'scores': scores.num_rows, 'overall': scores[0]['overall'], "
        "'interval': scores[0]['intervals']['overall']}, default=str))\n"
    )
    loaded = python(hub, tmp_path / "reader", code)
    assert loaded.returncode == 0, loaded.stderr
    read = json.loads(loaded.stdout.splitlines()[-1])
    assert len(read["rows"]) == 2
    assert [row["run_path"] for row in read["rows"]] == ["runs/a", "runs/b"]
    assert all(row["low"] <= row["score"] <= row["high"] for row in read["rows"])
    assert read["scores"] == 1 and read["overall"] == pytest.approx(scores_of["llama"]["overall"])
    assert read["interval"] == pytest.approx(scores_of["llama"]["intervals"]["overall"])

    (block,) = PYTHON_BLOCK.findall(card)  # the card's code, run as written
    assert f'load_dataset("{REPO}"' in block
    ran = python(hub, tmp_path / "card-reader", block)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("runs/a ") and "\nruns/b " in ran.stdout
    assert "hellobench 95% t interval" in ran.stdout


def test_a_run_pushed_to_the_root_beside_others_adds_its_row(online, hub, two_runs, capsys):
    assert main(["push-run", str(two_runs["gpt4o"]), "--repo", REPO, "--path-in-repo", "runs/a"]) == 0
    assert main(["push-run", str(two_runs["llama"]), "--repo", REPO]) == 0  # the root holds results.jsonl: fine
    assert [row["run_path"] for row in table(hub)] == ["", "runs/a"]
    card = hub.files(REPO)["README.md"].decode()
    assert "## Other runs in this repo" in card and "## Results table" in card
    assert 'load_dataset("org/results-repo", "scores", split="test")' in card  # the root run's scores config
    capsys.readouterr()
    assert main(["report", f"hf://datasets/{REPO}"]) == 0  # a run at the root: the repo names that run
    assert capsys.readouterr().out.splitlines()[0] == str(Path("runs/hf") / REPO / "report.md")


def test_a_results_file_push_run_did_not_write_is_left_alone(online, hub, two_runs, capsys):
    api = huggingface_hub.HfApi()
    api.create_repo(REPO, repo_type="dataset")
    mine = b'{"team": "us", "score": 1}\n'
    api.upload_file(path_or_fileobj=mine, path_in_repo="results.jsonl", repo_id=REPO, repo_type="dataset")
    assert main(["push-run", str(two_runs["gpt4o"]), "--repo", REPO, "--path-in-repo", "runs/a"]) == 0
    assert hub.files(REPO)["results.jsonl"] == mine
    assert capsys.readouterr().err.strip() == (
        "note: results.jsonl: left as it is (a file push-run did not write); no results table"
    )
    card = hub.files(REPO)["README.md"].decode()
    configs = [c["config_name"] for c in yaml.safe_load(card.split("---\n")[1])["configs"]]
    assert "results" not in configs and "runs-a-scores" in configs and "## Results table" not in card


def test_the_model_revision_is_the_embedded_models_file_hash(two_runs):
    config = yaml.safe_load((two_runs["gpt4o"] / "config.yaml").read_text())
    scores = json.loads((two_runs["gpt4o"] / "scores.json").read_text())
    scores = run_scores(scores)
    assert result_row(RunInfo("", config, scores, []))["model_revision"] is None  # a replay file: nothing recorded
    embedded = config | {"model": {"backend": "local", "model": "default", "options": {}}}
    revision = result_row(RunInfo("", embedded, scores, []))["model_revision"]
    assert revision == "sha256:1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"  # DESIGN.md's


# ----- report of a repo of runs, and the spellings of a repo ------------------------------------------------------
def test_report_of_a_repo_of_runs_reports_each_with_their_paired_comparison(online, hub, two_runs, tmp_path, capsys):
    copies = pushed_pair(two_runs, tmp_path)
    capsys.readouterr()
    assert main(["report", f"hf://datasets/{REPO}", "--out", str(tmp_path / "compared")]) == 0
    out, err = capsys.readouterr()
    copied = Path("runs/hf") / REPO / "runs"
    assert out.splitlines()[:2] == [str(copied / "a" / "report.md"), str(copied / "b" / "report.md")]
    assert f"hf://datasets/{REPO}: 2 runs (runs/a, runs/b)" in err
    assert "# Paired comparisons" in out and "## hellobench:chat: overall" in out
    comparisons = json.loads((tmp_path / "compared" / "comparisons.json").read_text())  # where --out names
    (pair,) = [c for c in comparisons["comparisons"] if c["figure"] == "overall"]
    assert {pair["a"], pair["b"]} == {str(copied / "a"), str(copied / "b")} and pair["n_paired"] == 3
    assert pair["low"] <= pair["difference"] <= pair["high"]
    for name, run in (("a", "gpt4o"), ("b", "llama")):
        assert (copied / name / "scores.json").read_bytes() == (copies[run] / "scores.json").read_bytes()

    # A repo of several runs: --out names the folder of their comparisons, not of a copy (each is in runs/hf/...).
    assert main(["report", f"hf://datasets/{REPO}", "--out", str(tmp_path / "one")]) == 0
    assert sorted(path.name for path in (tmp_path / "one").iterdir()) == ["comparisons.json"]


def test_a_dataset_page_url_is_read_as_its_hub_path(online, hub, two_runs, tmp_path, capsys):
    pushed_pair(two_runs, tmp_path)
    capsys.readouterr()
    assert main(["report", f"https://huggingface.co/datasets/{REPO}/tree/main/runs/b"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == str(Path("runs/hf") / REPO / "runs/b/report.md")
    assert main(["report", f"{hub.url}/datasets/{REPO}"]) == 0  # the endpoint in use: the whole repo
    assert "# Paired comparisons" in capsys.readouterr().out
    page = f"https://huggingface.co/datasets/{REPO}/tree/main/runs/a"  # as LONGFORM_EVAL_RUNS may give it
    assert local_path(page) == local_path(f"hf://datasets/{REPO}/runs/a") and local_path(page).name == "a"


@pytest.mark.parametrize(
    "text,path",
    [
        ("https://huggingface.co/datasets/o/n", "hf://datasets/o/n"),
        ("https://huggingface.co/datasets/o/n/", "hf://datasets/o/n"),
        ("https://huggingface.co/datasets/o/n/tree/main", "hf://datasets/o/n"),
        ("https://huggingface.co/datasets/o/n/tree/main/runs/x", "hf://datasets/o/n/runs/x"),
        ("https://hf.co/datasets/o/n/tree/v1.0/runs/x/", "hf://datasets/o/n@v1.0/runs/x"),
        ("huggingface.co/datasets/o/n", "hf://datasets/o/n"),
        ("hf://datasets/o/n@abc/runs/x", "hf://datasets/o/n@abc/runs/x"),
    ],
)
def test_report_and_space_read_a_dataset_page_as_its_hub_path(text, path):
    assert hub_or_local_path(text) == path
    assert parser().parse_args(["report", text]).folders == [path]
    assert parser().parse_args(["space", "--runs", text]).runs == [path]


@pytest.mark.parametrize(
    "text",
    [
        "https://huggingface.co/o/n",  # a model's page
        "https://huggingface.co/datasets/o/n/blob/main/runs/x/scores.json",
        "https://user:secret@example.com/runs/x",
    ],
)
def test_another_url_is_refused_in_one_line_naming_the_right_spellings(text, capsys):
    assert main(["report", text]) == 2
    error = capsys.readouterr().err.strip()
    assert error == (
        "longform-eval report: error: argument FOLDER: expected a run folder, hf://datasets/ORG/NAME[@REVISION][/PATH] "
        "or https://huggingface.co/datasets/ORG/NAME[/tree/REVISION/PATH]; got another URL (not repeated: it may "
        "hold a secret)"
    )
    assert "https:/h" not in error and "secret" not in error.partition("(")[0]


def test_a_repo_id_that_is_no_local_folder_gets_the_hub_spelling(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["report", "org/results-repo"]) == 2
    assert capsys.readouterr().err.strip() == (
        "longform-eval report: error: org/results-repo: no such run folder (a dataset repo on the Hub is written "
        "hf://datasets/org/results-repo)"
    )
    assert main(["report", "runs/a/b"]) == 2
    assert capsys.readouterr().err.strip() == "longform-eval report: error: runs/a/b: no such run folder"
