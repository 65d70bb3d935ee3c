"""Bounded Spaces: every input of every Space has a ceiling, checked before any work starts (`metric.space_limits`),
and one request cannot hold the others: a metric Space computes two requests at once, each stopped at its time limit
(`metric.space_serving`), and an arena vote waits a bounded time for the LLM judge."""

from __future__ import annotations

import json
import random
import time
from dataclasses import replace
from pathlib import Path

import evaluate
import gradio as gr
import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

from longform_eval.metric import space_serving
from longform_eval.metric.space_app import COMPUTE_SECONDS, build_app, json_compute, limited_compute
from longform_eval.metric.space_limits import CEILINGS
from longform_eval.spaces.arena import Arena
from longform_eval.spaces.storage import VoteStore
from longform_eval.spaces.viewer import NONE, Viewer
from longform_eval.spaces.viewer_rows import ALL, ORDERS, read_view_runs

from .conftest import free_port

PAIRWISE = Path(__file__).resolve().parents[2] / "metric" / "pairwise" / "pairwise.py"
HUGE = "[" + '"A",' * 5_000_001 + '"A"]'  # 20,000,009 characters of JSON


class NeverComputes:
    """A module whose compute must not run: the ceilings come first."""

    name = "never"

    def compute(self, **inputs):
        raise AssertionError("computed an input over its ceiling")


def texts(predictions, references=("A",), others=None) -> list[str]:
    return [json.dumps(predictions), json.dumps(list(references)), json.dumps(others or {})]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ([HUGE, "[]", "{}"], "predictions: 20,000,009 characters, over its ceiling of 20,000,000"),
        (texts(["A"] * 20_001), "predictions: 20,001 entries, over its ceiling of 20,000"),
        (texts(["A", "x" * 1_000_001]), "predictions[1]: 1,000,001 characters, over its ceiling of 1,000,000"),
        (texts(["A"], others={"model_a": ["m"] * 20_001}), "other_arguments['model_a']: 20,001 entries, over its"),
        (texts([{"checks": [{"description": "d" * 1_000_001}]}]), "predictions[0]['checks'][0]['description']: 1,0"),
        (texts(["A"], others={"k" * 1_000_001: 1}), "other_arguments key: 1,000,001 characters, over its"),
        (["[" * 101 + "]" * 101, "[]", "{}"], "predictions: not valid JSON (nested more than 100 levels deep)"),
        (texts([1]), None),  # within every ceiling: computed
    ],
)
def test_every_metric_space_field_is_checked_against_its_ceiling_before_any_work(fields, message):
    compute = json_compute(NeverComputes(), ["predictions", "references"], ["model_a", "bootstrap_rounds"])
    if message is None:
        with pytest.raises(AssertionError, match="computed an input"):
            compute(*fields)
        return
    with pytest.raises(ValueError) as refused:
        compute(*fields)
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


def test_the_pairwise_metric_refuses_bootstrap_rounds_over_its_ceiling_at_once_for_every_caller():
    pairwise = evaluate.load(str(PAIRWISE))
    began = time.monotonic()
    with pytest.raises(ValueError, match=r"^bootstrap_rounds: 10,000,000 rounds, over its ceiling of 1,000$"):
        pairwise.compute(predictions=["A"], references=["A"], model_a=["x"], model_b=["y"], bootstrap_rounds=10_000_000)
    assert time.monotonic() - began < 5 and CEILINGS["bootstrap_rounds"].limit == 1_000


@pytest.mark.parametrize(
    ("count", "models", "rounds", "message"),
    [
        (
            2_001,
            3,
            1_000,
            "bootstrap_rounds 1,000 x 2,001 comparisons: 2,001,000 rounds x comparisons, over its ceiling of 2,000,000",
        ),
        (20_000, 3, 101, "bootstrap_rounds 101 x 20,000 comparisons: 2,020,000 rounds x comparisons, over its"),
        (2_000, 21, 1_000, "bootstrap_rounds 1,000 x 21 models: 21,000 rounds x models, over its ceiling of 20,000"),
        (2_000, 101, 0, "model_a and model_b: 101 models, over its ceiling of 100"),
    ],
)
def test_the_pairwise_metric_refuses_a_bootstrap_too_big_to_finish_in_the_time_limit_before_any_work(
    count, models, rounds, message
):
    """The card's 8 comparisons at 10,000 rounds took 45-60 s on a Space: rounds, rounds x comparisons, rounds x
    models and the models are each bounded so that the largest request finishes well inside the time limit
    (bench/space_ceilings.py)."""
    labels, model_a, model_b = battles(count, models)
    pairwise = evaluate.load(str(PAIRWISE))
    began = time.monotonic()
    with pytest.raises(ValueError) as refused:
        pairwise.compute(
            predictions=labels, references=labels, model_a=model_a, model_b=model_b, bootstrap_rounds=rounds
        )
    assert str(refused.value).startswith(message) and time.monotonic() - began < 5


def most_allowed(models: int, most_comparisons: bool) -> tuple[int, int]:
    """(comparisons, rounds) of the largest bootstrap the ceilings allow with `models` models: the most rounds with as
    many comparisons as they leave, or the most comparisons with as many rounds as they leave."""
    unbounded = 10**12  # a ceiling not there
    most_rounds, work, model_work = (
        CEILINGS[name].limit if name in CEILINGS else unbounded
        for name in ("bootstrap_rounds", "bootstrap_work", "bootstrap_models")
    )
    rounds = min(most_rounds, model_work // models)
    if most_comparisons:
        return CEILINGS["entries"].limit, min(rounds, work // CEILINGS["entries"].limit)
    return min(CEILINGS["entries"].limit, work // rounds), rounds


@pytest.mark.slow
@pytest.mark.parametrize("most_comparisons", [False, True])
@pytest.mark.parametrize("models", [20, 100])
def test_the_largest_bootstrap_the_ceilings_allow_finishes_well_inside_the_time_limit(models, most_comparisons):
    """The corners of what the ceilings allow, computed as the Space computes them (a forked process with its time
    limit): each within half of it, on a machine shared with other work (bench/space_ceilings.py times more shapes)."""
    count, rounds = most_allowed(models, most_comparisons)
    labels, model_a, model_b = battles(count, models)
    others = {"model_a": model_a, "model_b": model_b, "bootstrap_rounds": rounds}
    compute = limited_compute(
        evaluate.load(str(PAIRWISE)), ["predictions", "references"], list(others), COMPUTE_SECONDS
    )
    began = time.monotonic()
    result = compute(*texts(labels, labels, others))
    assert time.monotonic() - began < COMPUTE_SECONDS / 2
    assert sum(result[f"bt_model-{i}_lower"] is not None for i in range(models)) == models  # every model ranked


def battles(count: int, models: int = 3) -> tuple[list[str], list[str], list[str]]:
    """`count` seeded comparisons among `models` models, every outcome present (Bradley-Terry has a finite fit): three
    models are x, y and z, more are model-0, model-1, ..."""
    rng = random.Random(0)
    names = ["x", "y", "z"] if models == 3 else [f"model-{i}" for i in range(models)]
    pairs = [rng.sample(names, 2) for _ in range(count)]
    labels = [rng.choice(["A", "B", "equally_good"]) for _ in range(count)]
    return labels, [a for a, _ in pairs], [b for _, b in pairs]


@pytest.fixture
def long_bootstraps_allowed(monkeypatch):
    """The pairwise ceilings raised, for a computation of minutes (the time limit's own test)."""
    for name in ("bootstrap_rounds", "bootstrap_work", "bootstrap_models"):
        monkeypatch.setitem(CEILINGS, name, replace(CEILINGS[name], limit=10**12))


@pytest.fixture(scope="module")
def pairwise_space():
    """The pairwise Space, launched as its app.py launches it, with a 4 s time limit; its URL."""
    app = build_app(evaluate.load(str(PAIRWISE)), seconds=4)
    port = free_port()
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield app, f"http://127.0.0.1:{port}/"
    finally:
        app.close()


def test_a_one_row_request_is_answered_while_a_long_one_runs_and_the_long_one_stops_at_its_time_limit(
    pairwise_space, long_bootstraps_allowed
):
    app, url = pairwise_space
    assert app._queue.max_size == space_serving.QUEUE_SIZE
    labels, model_a, model_b = battles(300)
    others = {"model_a": model_a, "model_b": model_b, "bootstrap_rounds": 10_000}  # minutes of work
    long_job = Client(url, verbose=False).submit(*texts(labels, ["A"] * 300, others), api_name="/compute")
    time.sleep(1)  # the long one is under way
    began = time.monotonic()
    short = Client(url, verbose=False).predict(*texts(["A"], ["A"]), api_name="/compute")
    answered = time.monotonic() - began
    assert short["agreement"] == pytest.approx(1.0) and answered < 3.5 and not long_job.done()
    with pytest.raises(AppError, match=r"^pairwise compute took over 4 s and was stopped; send fewer rows or rounds"):
        long_job.result(timeout=60)
    assert not space_serving.RUNNING  # its process is gone


def test_the_space_answers_a_request_over_a_ceiling_with_one_line(pairwise_space):
    _, url = pairwise_space
    client = Client(url, verbose=False)
    with pytest.raises(AppError, match=r"^bootstrap_rounds: 10,000,000 rounds, over its ceiling of 1,000$"):
        client.predict(*texts(["A"], ["A"], {"bootstrap_rounds": 10_000_000}), api_name="/compute")
    with pytest.raises(AppError, match=r"^references: 20,001 entries, over its ceiling of 20,000$"):
        client.predict(*texts(["A"], ["A"] * 20_001), api_name="/compute")
    assert client.predict(*texts(["A", "B"], ["A", "A"]), api_name="/compute")["n_scored"] == 2  # still serving


class SlowJudge:
    """An LLM judge that answers after `seconds`."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def judge(self, question: str, answer_a: str, answer_b: str):
        time.sleep(self.seconds)
        return None


def test_a_vote_waits_at_most_its_time_limit_for_the_judge_and_is_stored(small_pool, tmp_path):
    arena = Arena(small_pool, VoteStore(tmp_path / "votes.sqlite"), SlowJudge(6), seed=1, judge_seconds=0.5)
    *_, state, _ = arena.new_pair("", "", {})
    began = time.monotonic()
    reveal = arena.vote("A is better", "tester", state)
    assert time.monotonic() - began < 3 and reveal.startswith("You voted")
    assert reveal.count("unscored \\(the judge took over 0.5 s\\)") == 3  # combined, and both orders
    (vote,) = arena.store.votes()
    assert (vote.annotator, vote.outcome, vote.judge_outcome) == ("tester", "A", "unscored")


def test_the_viewer_refuses_a_search_over_its_ceiling(zh_runs):
    viewer = Viewer(read_view_runs(zh_runs))
    name = viewer.names[0]
    with pytest.raises(gr.Error) as refused:
        viewer.refresh(name, NONE, ALL, ALL, ORDERS[0], "x" * 501, None)
    assert refused.value.message == "search is too long (501 characters; at most 500)"
    assert viewer.refresh(name, NONE, ALL, ALL, ORDERS[0], "x" * 500, None)[3].startswith("0 of ")


def test_a_computation_uses_one_blas_thread_as_two_run_at_once_on_two_vcpus():
    """Two BLAS threads per computation made the largest bootstraps 2-3x slower on 2 busy cores (over the 20 s target
    of bench/space_ceilings.py --blas-threads 2; at most 10 s with one)."""
    from threadpoolctl import threadpool_info

    threads = space_serving.run_limited(lambda: [pool["num_threads"] for pool in threadpool_info()], 30)
    assert threads and set(threads) == {space_serving.BLAS_THREADS} == {1}
