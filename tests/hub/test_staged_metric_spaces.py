"""The metric Spaces as `publish --stage` writes them, started once as the Hub starts them (`staged_spaces`): each
answers its card's example on `/compute` as `evaluate` does in-process and refuses bad input in one line, and its page
opens in a browser with the example's result computed without a click (a screenshot of each first view goes to the
test's output folder, whose path is printed)."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator

import pytest
from spaces.test_app import browser, text_of, wait_for  # noqa: F401 (the browser fixture, reused)

from longform_eval.metric.space_app import rounded

from .staged_spaces import METRICS, running_spaces, staged  # noqa: F401 (the staged fixture, reused)
from .test_metric_spaces import COLUMNS, assert_claim, card_example, run_example

pytestmark = pytest.mark.slow

# What each page shows first: a line of its example's input, and figures of its result (the card's claim).
FIRST_VIEW = {
    "helloeval": ("report_write", ["score", "50", "chat", "100"]),
    "longbench_write": ("Breadth and Depth", ["s_l", "66.67", "s_q", "75", "70.83"]),
    "longgenbench": ("skyscraper", ["cr", "75", "stic1", "50", "stic2", "33.33", "wavg", "25"]),
    "pairwise": ("equally_good", ["agreement", "0.667", "cohen_kappa", "0.5"]),
}
RAW = ("66.666", "33.333", "70.833", "0.6666", "0.4999")  # what the pages showed before they rounded (issue 49)
# LongGenBench's definitions, as its description words them
DEFINITIONS = [
    'identified by the first "<type> N" in each block',
    "CR is the share of expected sub-tasks present",
    "STIC-1 = yes / judged checks",
    "STIC-2 = yes / all checks",
    "wAvg = CR * STIC-2 / 100",
    "This is the benchmark of Wu et al.",
]


@pytest.fixture(scope="module")
def served(staged, tmp_path_factory) -> Iterator[dict]:  # noqa: F811
    """Every staged metric Space, running: name -> (process, url); started once for the tests of this module."""
    with running_spaces({name: staged / name for name in METRICS}, tmp_path_factory.mktemp("spaces") / "logs") as found:
        yield found


def test_each_staged_metric_space_starts_and_answers_its_card_examples_as_evaluate_does(
    served,
    staged,  # noqa: F811
    monkeypatch,
):
    from gradio_client import Client
    from gradio_client.exceptions import AppError

    assert sorted(p.name for p in staged.iterdir() if (p / f"{p.name}.py").is_file()) == METRICS
    for name, (process, url) in served.items():
        example = card_example(staged / name)
        arguments, expected = run_example(example, name, staged / name, monkeypatch)
        assert_claim(expected, example)
        fields = {column: json.dumps(arguments[column]) for column in COLUMNS}
        others = json.dumps({key: value for key, value in arguments.items() if key not in COLUMNS})
        client = Client(url, verbose=False)
        answered = client.predict(**fields, other_arguments=others, api_name="/compute")
        digits = importlib.import_module(f"longform_eval.metric.{name}.example").DIGITS
        expected = rounded(json.loads(json.dumps(expected)), digits)  # as the card prints it
        assert answered == pytest.approx(expected), name

        with pytest.raises(AppError, match=r"^predictions: not valid JSON \(Expecting value"):
            client.predict(predictions="[oops", references=fields["references"], api_name="/compute")
        with pytest.raises(AppError, match="(?i)mismatch in the number of predictions"):
            longer = json.dumps([*arguments["references"], arguments["references"][0]])
            client.predict(predictions=fields["predictions"], references=longer, api_name="/compute")
        with pytest.raises(AppError, match=r"^other_arguments: unknown nonsense \(known: "):
            client.predict(**fields, other_arguments='{"nonsense": 1}', api_name="/compute")
        assert process.poll() is None, name  # still serving after the bad input
        assert client.predict(**fields, other_arguments=others, api_name="/compute") == pytest.approx(expected)


def shown_json(driver) -> str:
    """The result's text as the page shows it (gradio's JSON view: one `key: value` a line)."""
    return text_of(driver, "#result")


def test_each_staged_metric_space_opens_with_its_example_computed(served, browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By

    print(f"screenshots: {tmp_path}")
    for name, (_, url) in served.items():
        example_line, figures = FIRST_VIEW[name]
        browser.get(url)
        shown = wait_for(lambda key=figures[0]: shown_json(browser) if key in shown_json(browser) else None)
        assert all(figure in shown for figure in figures), (name, shown)
        assert not any(raw in shown for raw in RAW), (name, shown)
        page = browser.find_element(By.TAG_NAME, "body").text
        assert example_line in page and "predictions: empty" not in page, name
        browser.save_screenshot(str(tmp_path / f"{name}.png"))
        assert (tmp_path / f"{name}.png").stat().st_size > 0
        if name == "longgenbench":
            description = text_of(browser, "#description")
            assert all(definition in description for definition in DEFINITIONS), description
