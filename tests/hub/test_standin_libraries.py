"""The local Hub stand-in, read by datasets and evaluate in a subprocess, as a user's code would read the Hub."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from huggingface_hub import HfApi

REPO = Path(__file__).resolve().parents[2]
SUBPROCESS_TIMEOUT = 300


@pytest.fixture
def api(hub, monkeypatch) -> HfApi:
    hub.patch_client(monkeypatch)
    return HfApi(endpoint=hub.url, token="x")


def run_python(code: str, env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="session")
def hellobench_build(shared_data, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hellobench") / "hellobench"
    command = [str(Path(sys.executable).parent / "longform-eval"), "build", "hellobench"]
    command += ["--source", str(shared_data / "hellobench"), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_load_dataset_reads_a_hellobench_build_through_the_stand_in(hub, api, hellobench_build, tmp_path):
    api.create_repo("org/hellobench", repo_type="dataset")
    api.upload_folder(folder_path=hellobench_build, repo_id="org/hellobench", repo_type="dataset")
    built = {
        p.relative_to(hellobench_build).as_posix(): p.read_bytes() for p in hellobench_build.rglob("*") if p.is_file()
    }
    assert hub.files("org/hellobench") == built
    code = "import datasets; print(len(datasets.load_dataset('org/hellobench', 'chat', split='test')))"
    assert run_python(code, hub.env(tmp_path / "hf"), tmp_path).split()[-1] == "147"
    assert any(path.startswith("/datasets/org/hellobench/resolve/") for _, path in hub.requests)


@pytest.mark.slow
def test_evaluate_loads_a_metric_from_a_space_repo(hub, api, tmp_path):
    api.create_repo("org/helloeval", repo_type="space", space_sdk="gradio")
    ignored = ["__pycache__/*", "*.pyc"]
    api.upload_folder(
        folder_path=REPO / "metric/helloeval", repo_id="org/helloeval", repo_type="space", ignore_patterns=ignored
    )
    code = (
        "import evaluate, json; metric = evaluate.load('org/helloeval'); "
        "print(json.dumps(metric.compute(predictions=[[1, 1, 1, 1, 1, 1], [0.75] * 7], "
        "references=['report_write', 'Science'])))"
    )
    result = json.loads(run_python(code, hub.env(tmp_path / "hf"), tmp_path).splitlines()[-1])
    # The weights sum to 100 up to rounding, in whatever order the machine's BLAS adds them.
    assert [result["chat"], result["open_ended_qa"], result["score"]] == pytest.approx([100.0, 0.0, 50.0], abs=1e-9)
    assert ("GET", "/spaces/org/helloeval/resolve/main/helloeval.py") in hub.requests
