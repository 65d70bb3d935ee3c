"""A metric Space's page as a visitor meets it: it opens with its card's worked example in the fields and the
example's result beside them, rounded as the card prints it, and the module's description in full (LongGenBench's
`"<type> N"` shown as written, not taken for an HTML tag). The browser opens each staged Space in
test_staged_metric_spaces.py."""

from __future__ import annotations

import ast
import importlib
import json
from importlib import resources
from pathlib import Path

import pytest

from longform_eval.metric.space_app import (
    build_app,
    example_texts,
    input_columns,
    json_compute,
    literal_markup,
    other_arguments,
    rounded,
)

from .staged_spaces import METRICS, ORG
from .test_metric_spaces import CLAIM, card_example, packaged_module, run_example


def package_folder(name: str) -> Path:
    return Path(str(resources.files(f"longform_eval.metric.{name}")))


@pytest.mark.parametrize("name", METRICS)
def test_the_space_example_is_the_cards_first_example(name, monkeypatch):
    """The page and the card agree: the card's first block calls compute with the arguments of the Space's EXAMPLE."""
    example = importlib.import_module(f"longform_eval.metric.{name}.example").EXAMPLE
    block = card_example(package_folder(name)).replace(f'"<org>/{name}"', f'"{ORG}/{name}"')
    arguments, _ = run_example(block, name, package_folder(name), monkeypatch)
    assert arguments == example


def example_module(name: str):
    return importlib.import_module(f"longform_eval.metric.{name}.example")


def decimals(value: float) -> int:
    return len(repr(value).partition(".")[2])


@pytest.mark.parametrize("name", METRICS)
def test_the_page_shows_the_figures_with_the_cards_digits(name):
    """Each figure the card's example claims is shown as the card writes it (`66.67`, `0.5`, not `66.66666666666667`,
    `0.49999999999999994`), and no figure on the page has more decimals than the card prints."""
    module, example = packaged_module(name), example_module(name)
    columns = list(input_columns(module))
    others = other_arguments(module, columns)
    shown = json_compute(module, columns, others, example.DIGITS)(*example_texts(example.EXAMPLE, columns, others))
    claim = ast.literal_eval(CLAIM.findall(card_example(package_folder(name)))[-1])
    assert {key: json.dumps(shown[key]) for key in claim} == {key: json.dumps(value) for key, value in claim.items()}
    floats = [value for value in shown.values() if isinstance(value, float)]
    assert floats and max(map(decimals, floats)) <= example.DIGITS, shown


def test_the_module_itself_keeps_full_precision():
    """The page rounds; the module's compute (its doctests round for themselves) does not."""
    module, example = packaged_module("longbench_write"), example_module("longbench_write")
    result = module.compute(**example.EXAMPLE)
    assert decimals(result["s_l"]) > 2 and result["s_l"] == pytest.approx(200 / 3)
    page = rounded({"s_l": result["s_l"], "n": [-0.0001, 7, None, float("nan")], "note": "0.123456"}, 2)
    assert json.dumps(page) == '{"s_l": 66.67, "n": [0.0, 7, null, NaN], "note": "0.123456"}'


def test_the_page_opens_with_its_example_rounded_as_the_card_prints_it():
    """Built as the Space's app.py builds it: the result field starts with the card's digits (pairwise: 3)."""
    example = example_module("pairwise")
    app = build_app(packaged_module("pairwise"), example=example.EXAMPLE, digits=example.DIGITS)
    (first,) = [c["props"]["value"] for c in app.config["components"] if c["props"].get("elem_id") == "result"]
    assert (json.dumps(first["agreement"]), json.dumps(first["cohen_kappa"])) == ("0.667", "0.5")


def test_the_example_fills_the_fields_and_an_unknown_argument_is_refused():
    module = packaged_module("longbench_write")
    columns = list(input_columns(module))
    others = other_arguments(module, columns)
    texts = example_texts({"predictions": ["a b"], "references": [100], "judge_completions": ["{}"]}, columns, others)
    assert texts == ['["a b"]', "[100]", '{"judge_completions": ["{}"]}']
    assert example_texts({}, columns, others) == ["[]", "[]", "{}"]
    with pytest.raises(ValueError, match=r"^example: unknown seed \(known: predictions, references, judge_compl"):
        example_texts({"seed": 1}, columns, others)


def test_markup_outside_code_is_escaped_and_code_is_left_as_written():
    text = 'split at "#*#", by the first "<type> N" & more; `a <b> c` and\n```python\nx = "<org>/m"\n```\n'
    assert literal_markup(text) == (
        'split at "#*#", by the first "&lt;type&gt; N" &amp; more; `a <b> c` and\n```python\nx = "<org>/m"\n```\n'
    )
    description = literal_markup(packaged_module("longgenbench").description)
    assert "<" not in description and 'the first "&lt;type&gt; N" in each block' in description
