"""The metric Spaces as `publish --stage` writes them: every Space card declares the gradio the package pins and links
the datasets it serves, and each page computes what its module computes. (test_staged_metric_spaces.py starts each
Space as the Hub starts it; tests/hub/test_card_code.py runs every card's code against the Hub stand-in.)"""

from __future__ import annotations

import ast
import re
import sys
from importlib import resources
from importlib.metadata import requires
from pathlib import Path
from typing import Any

import evaluate
import pytest
import yaml
from packaging.requirements import Requirement

from longform_eval.dataset_builder.folder import package_version
from longform_eval.inference.hub.release_plan import arena_repo, metric_names, metric_repo
from longform_eval.metric.space_app import describe, input_columns, json_compute, other_arguments, rounded

from .staged_spaces import ORG

COLUMNS = ("predictions", "references")  # the input columns of the four metrics; the rest is `other_arguments`
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.M | re.S)
CLAIM = re.compile(r"^# [^{\n]*(\{.*\})$", re.M)  # `# {'score': 50.0, ...}` or `# among its keys: {...}`


def gradio_pin() -> str:
    """The gradio version the `space` extra pins (pyproject.toml, as installed)."""
    wanted = [Requirement(line) for line in requires("longform-eval") or []]
    (pin,) = [r for r in wanted if r.name == "gradio" and r.marker and r.marker.evaluate({"extra": "space"})]
    (specifier,) = pin.specifier
    assert specifier.operator == "==", pin
    return specifier.version


def card_header(card: bytes) -> dict:
    return yaml.safe_load(card.decode("utf-8").split("---\n", 2)[1])


def space_cards() -> dict[str, bytes]:
    """The card of every Space of a release for ORG: the metrics' by name, and the arena's."""
    version = package_version()
    cards = {name: metric_repo(ORG, name, version).files["README.md"] for name in metric_names()}
    cards["arena"] = arena_repo(ORG, version).files["README.md"]
    return cards


def test_every_space_card_declares_the_gradio_the_space_extra_pins():
    cards = space_cards()
    assert len(cards) == 5
    pin = gradio_pin()
    assert re.fullmatch(r"\d+\.\d+\.\d+", pin), pin
    assert {name: card_header(card)["sdk_version"] for name, card in cards.items()} == dict.fromkeys(cards, pin)


def test_every_space_card_links_the_datasets_it_serves_with_its_licence_python_and_a_short_description():
    """The keys of the Hub's Spaces config reference: `datasets` (the Space's page links them), `license`,
    `python_version` (the Python these tests run on, as CI's) and `short_description` (the Hub refuses over 60)."""
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    headers = {name: card_header(card) for name, card in space_cards().items()}
    assert {name: header["datasets"] for name, header in headers.items()} == {
        "helloeval": [f"{ORG}/hellobench"],
        "longbench_write": [f"{ORG}/longbench_write"],
        "longgenbench": [f"{ORG}/longgenbench"],
        "pairwise": [f"{ORG}/tencentllmeval"],
        "arena": [f"{ORG}/hellobench"],
    }
    for name, header in headers.items():
        assert (header["license"], header["python_version"]) == ("mit", python), name
        assert 0 < len(header["short_description"]) <= 60, name


def packaged_module(name: str) -> evaluate.EvaluationModule:
    return evaluate.load(str(resources.files(f"longform_eval.metric.{name}").joinpath(f"{name}.py")))


def test_the_page_has_a_json_field_per_input_column_and_one_for_the_other_arguments():
    helloeval, longgenbench = packaged_module("helloeval"), packaged_module("longgenbench")
    columns = {name: [describe(kind) for kind in kinds] for name, kinds in input_columns(helloeval).items()}
    assert columns == {"predictions": ["list of number", "string"], "references": ["string", "string"]}
    assert other_arguments(helloeval, list(columns)) == ["word_counts"]
    (references,) = input_columns(longgenbench)["references"]
    assert describe(references) == "object {id, scenario, subtask_type, num_subtasks, checks}"
    assert describe(references["checks"]) == "list of object {kind, subtask, description}"
    assert other_arguments(longgenbench, ["predictions", "references"]) == ["judge_completions", "verdict_rule"]


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        (("[1", '["report_write"]', "{}"), r"^predictions: not valid JSON \(Expecting"),
        (('"a"', '["report_write"]', "{}"), r"^predictions: expected a JSON list, one entry per example, got str"),
        (("[]", "[]", "{}"), r"^predictions: empty; give one entry per example$"),
        (("[[1, 1, 1, 1, 1, 1]]", '["report_write"]', "[]"), r"^other_arguments: expected a JSON object, got list"),
        (("[[1, 1, 1, 1, 1, 1]]", '["report_write"]', '{"seed": 1}'), r"^other_arguments: unknown seed \(known: word"),
        (
            ("[[1, 1, 1, 1, 1, 1]]", '["report_write"]', '{"word_counts": 5}'),
            r"^word_counts: expected a list, one word count per prediction, got 5$",
        ),
        (("[[1, 1, 1, 1, 1, 5]]", '["report_write"]', "{}"), r"^predictions\[0\]\[5\]: 5 is outside \[0, 1\]$"),
    ],
)
def test_bad_input_to_the_page_is_a_value_error_naming_the_field(texts, message):
    module = packaged_module("helloeval")
    compute = json_compute(module, ["predictions", "references"], ["word_counts"])
    with pytest.raises(ValueError, match=message):
        compute(*texts)


def test_the_page_computes_what_the_module_computes():
    module = packaged_module("helloeval")
    compute = json_compute(module, ["predictions", "references"], ["word_counts"])
    served = compute(
        "[[1, 1, 1, 1, 1, 1], [0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75]]",
        '["report_write", "Science"]',
        '{"word_counts": [10, 20]}',
    )
    direct = module.compute(
        predictions=[[1] * 6, [0.75] * 7], references=["report_write", "Science"], word_counts=[10, 20]
    )
    assert served == pytest.approx(rounded(direct, 2)) and served["word_count"] == pytest.approx(15.0)


# A card's code


def how_to_use(card: str) -> list[str]:
    """The Python blocks of the card's "How to Use" section, up to its "Inputs"."""
    return PYTHON_BLOCK.findall(card.split("\n## How to Use\n", 1)[1].split("\n### Inputs\n", 1)[0])


def card_example(folder: Path) -> str:
    """The card's example: the first Python block of its "How to Use"."""
    return how_to_use((folder / "README.md").read_text(encoding="utf-8"))[0]


def assert_claim(result: dict, block: str) -> None:
    """The values the block's last `# {...}` comment shows (rounded there) are the result's."""
    claim = ast.literal_eval(CLAIM.findall(block)[-1])
    assert len(claim) >= 4
    assert {key: result[key] for key in claim} == pytest.approx(claim, abs=0.005)


class Recording:
    """An evaluate module whose compute calls are kept."""

    def __init__(self, module: evaluate.EvaluationModule) -> None:
        self.module, self.calls = module, []

    def compute(self, **kwargs: Any) -> dict:
        self.calls.append(kwargs)
        return self.module.compute(**kwargs)


def run_example(block: str, name: str, folder: Path, monkeypatch) -> tuple[dict, dict]:
    """Run the card's example as written, its `evaluate.load("ORG/<name>")` reading the staged folder instead:
    the arguments of its compute call and the result in-process."""
    load, recordings = evaluate.load, []

    def from_stage(path: str, *args: Any, **kwargs: Any) -> Recording:
        assert path == f"{ORG}/{name}"
        recordings.append(Recording(load(str(folder / f"{name}.py"))))
        return recordings[-1]

    with monkeypatch.context() as patch:
        patch.setattr(evaluate, "load", from_stage)
        namespace: dict[str, Any] = {}
        exec(block, namespace)
    (recording,) = recordings
    (arguments,) = recording.calls
    return arguments, namespace["result"]
