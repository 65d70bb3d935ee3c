"""Every input of every `evaluate` metric, given a bad value, is refused with a ValueError naming that input (and the
example and field inside it), never `evaluate`'s "don't match the expected format", a bare `int()` error, a KeyError
or a TypeError: each field of each metric's card example is replaced in turn by a value that does not fit."""

from __future__ import annotations

import copy
import importlib
import re
from collections.abc import Callable
from typing import Any

import evaluate
import pytest

from longform_eval.metric.space_app import input_columns, json_compute, other_arguments

from .conftest import REPO

METRICS = ("helloeval", "longbench_write", "longgenbench", "pairwise")
WHOLE = ("nonsense", 5, {"a": 1})  # in place of a list argument: none is a list
SCALAR = ("nonsense", [], {"a": 1})  # in place of an option: none is one of its values
# The first entry of each list argument replaced by a value of the wrong kind
ENTRY: dict[str, dict[str, tuple[Any, ...]]] = {
    "helloeval": {"predictions": ({"a": 1}, 1.5, True), "references": (5, None), "word_counts": ("many", -1)},
    "longbench_write": {
        "predictions": (5, None, ["a"]),
        "references": ("nonsense", 1.5, True, None, 0, 2**70),
        "judge_completions": (5, {"Relevance": 4}),
    },
    "longgenbench": {"predictions": (5, None), "references": ("nonsense", None, 5), "judge_completions": ("yes", 5)},
    "pairwise": {"predictions": (5, None, "maybe"), "references": (5, "maybe"), "model_a": (5, ""), "model_b": (7,)},
}
OPTIONS = {"parser", "verdict_rule", "bootstrap_rounds", "seed", "labels"}
# LongGenBench's items: each field of the first item (and of its first check) replaced
ITEM_FIELDS: list[tuple[str, Callable[[dict], None], str]] = [
    ("['id']", lambda item: item.update(id=5), "expected a string, got 5"),
    ("['scenario']", lambda item: item.update(scenario=5), "5"),
    ("['subtask_type']", lambda item: item.update(subtask_type=[1]), "[1]"),
    ("['num_subtasks']", lambda item: item.update(num_subtasks="four"), "'four'"),
    ("['num_subtasks']", lambda item: item.update(num_subtasks=2**40), "1099511627776"),
    ("['checks']", lambda item: item.update(checks="x"), "str"),
    ("['checks'][0]['kind']", lambda item: item["checks"][0].update(kind=5), "5"),
    ("['checks'][0]['subtask']", lambda item: item["checks"][0].update(subtask="x"), "'x'"),
    ("['checks'][0]['description']", lambda item: item["checks"][0].update(description=3), "3"),
    ("['checks'][0]['extra']", lambda item: item["checks"][0].update(extra=1), "unknown field"),
    ("['extra']", lambda item: item.update(extra=1), "unknown field"),
]


def example(name: str) -> dict[str, Any]:
    """The card's example, rated where the metric rates (pairwise: with the models' names)."""
    arguments = copy.deepcopy(importlib.import_module(f"longform_eval.metric.{name}.example").EXAMPLE)
    if name == "pairwise":
        size = len(arguments["predictions"])
        arguments |= {"model_a": ["gpt"] * size, "model_b": ["llama"] * size, "bootstrap_rounds": 0}
    return arguments


@pytest.fixture(scope="module")
def modules() -> dict[str, evaluate.EvaluationModule]:
    return {name: evaluate.load(str(REPO / "metric" / name), keep_in_memory=True) for name in METRICS}


def fields(module: evaluate.EvaluationModule) -> list[str]:
    columns = list(input_columns(module))
    return columns + other_arguments(module, columns)


def bad_calls() -> list:
    """(metric, field named, arguments) for every field of every metric."""
    calls = []
    for name in METRICS:
        base = example(name)
        for field, values in ENTRY[name].items():
            for value in WHOLE:
                calls.append(pytest.param(name, field, base | {field: value}, id=f"{name}-{field}={value!r}"))
            for value in values:
                entries = copy.deepcopy(base[field]) if field in base else [None] * len(base["predictions"])
                entries[0] = value
                calls.append(
                    pytest.param(name, f"{field}[0]", base | {field: entries}, id=f"{name}-{field}[0]={value!r}")
                )
    for name, option in (("longbench_write", "parser"), ("longgenbench", "verdict_rule")):
        calls += [pytest.param(name, option, example(name) | {option: v}, id=f"{name}-{option}={v!r}") for v in SCALAR]
    for option in ("bootstrap_rounds", "seed", "labels"):
        calls += [
            pytest.param("pairwise", option, example("pairwise") | {option: v}, id=f"pairwise-{option}={v!r}")
            for v in SCALAR
        ]
    return calls


def item_calls() -> list:
    """(field named, arguments, the value the message shows) for each field of LongGenBench's first item."""
    calls = []
    for place, change, shown in ITEM_FIELDS:
        arguments = example("longgenbench")
        change(arguments["references"][0])
        calls.append(pytest.param(f"references[0]{place}", arguments, shown, id=f"{place}-{shown}"))
    return calls


def test_the_table_covers_every_field_of_every_metric(modules):
    covered = {name: {*ENTRY[name]} for name in METRICS}
    covered["longbench_write"].add("parser")
    covered["longgenbench"].add("verdict_rule")
    covered["pairwise"] |= {"bootstrap_rounds", "seed", "labels"}
    assert {name: set(fields(module)) for name, module in modules.items()} == covered


def refusal(module: evaluate.EvaluationModule, arguments: dict[str, Any]) -> str:
    """The first line of the ValueError `compute` raises on `arguments`."""
    with pytest.raises(ValueError) as refused:
        module.compute(**arguments)
    assert "expected format" not in str(refused.value)
    return str(refused.value).splitlines()[0]


def names(field: str, line: str) -> bool:
    """`line` names `field` itself: `references[0]` is not named by `references[0]['id']`, nor by `references`."""
    return re.search(rf"(?<![\w\]']){re.escape(field)}(?![\w\[])", line) is not None


@pytest.mark.parametrize(("name", "field", "arguments"), bad_calls())
def test_a_bad_value_in_any_field_is_a_value_error_naming_the_field(modules, name, field, arguments):
    line = refusal(modules[name], arguments)
    assert names(field, line), line


@pytest.mark.parametrize(("field", "arguments", "shown"), item_calls())
def test_a_bad_field_of_a_longgenbench_item_is_named_with_its_value(modules, field, arguments, shown):
    line = refusal(modules["longgenbench"], arguments)
    assert names(field, line) and shown in line, line


def test_longbench_write_page_names_the_reference_it_cannot_read(modules):
    """The page's own words for issue 49's case: not "invalid literal for int() with base 10: 'nonsense'"."""
    module = modules["longbench_write"]
    columns = list(input_columns(module))
    compute = json_compute(module, columns, other_arguments(module, columns))
    with pytest.raises(ValueError, match=r"^references\[0\]: expected an integer, got 'nonsense'$"):
        compute('["a b"]', '["nonsense"]', "{}")
    with pytest.raises(ValueError, match=r"^references\[0\]: expected an integer, got 1\.5$"):  # no longer cut to 1
        compute('["a b"]', "[1.5]", "{}")
