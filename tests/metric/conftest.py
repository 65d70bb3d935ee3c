from __future__ import annotations

import doctest
import gzip
import importlib.util
import json
from pathlib import Path

import pytest

from longform_eval.metric.helloeval.weights import TASKS

REPO = Path(__file__).resolve().parents[2]


def read_jsonl_gz(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


@pytest.fixture(scope="session")
def hellobench_rows(shared_data) -> dict[str, dict]:
    rows = {}
    for task in TASKS:
        for line in (shared_data / "hellobench/data/main_data" / f"{task}.jsonl").read_text().splitlines():
            record = json.loads(line)
            rows[record["id"]] = record
    return rows


@pytest.fixture(scope="session")
def released_verdicts(shared_data):
    def load(model: str) -> list[dict]:
        folder = shared_data / "hellobench/judgements/main_exp" / model
        return [record for task in TASKS for record in read_jsonl_gz(folder / f"{task}_results.jsonl.gz")]

    return load


def run_module_doctests(script: Path, monkeypatch) -> doctest.TestResults:
    """Run the doctests of an evaluate script from the repository root, as its card shows them."""
    monkeypatch.chdir(REPO)
    spec = importlib.util.spec_from_file_location(script.stem, script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(module):
        runner.run(test)
    return runner.summarize(verbose=False)
