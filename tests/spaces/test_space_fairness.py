"""A metric Space is fair under load: a client holds one computation at a time (its further requests while one runs
are refused at once), so one client's heavy requests never keep another client's light one waiting."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import evaluate
import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

from longform_eval.metric import space_serving
from longform_eval.metric.space_app import build_app
from longform_eval.metric.space_serving import ClientBusy, OnePerClient

from . import test_bounded_spaces
from .conftest import free_port
from .test_bounded_spaces import PAIRWISE, battles, texts

long_bootstraps_allowed = test_bounded_spaces.long_bootstraps_allowed  # the fixture: the pairwise ceilings raised

LIGHT_S = 4.0  # a two-row request, answered while another client's heavy ones run (0.2 s alone)
BUSY = r"^your computation started \d+ s ago is still running; one at a time for each client"


def test_a_client_holds_one_computation_at_a_time_and_others_are_not_held_by_it():
    clients = OnePerClient()
    with clients.held("session:a"):
        with pytest.raises(ClientBusy, match=BUSY + r": send this one when it is done$"), clients.held("session:a"):
            pass
        with clients.held("session:b"):  # another client meanwhile
            pass
    with clients.held("session:a"):  # its computation done, the client's next one runs
        pass
    assert clients.started == {}


def test_only_one_of_a_clients_simultaneous_requests_runs():
    clients, ran, gate = OnePerClient(), [], threading.Event()

    def request(number: int) -> str:
        try:
            with clients.held("session:a"):
                ran.append(number)
                gate.wait(5)
                return "ran"
        except ClientBusy:
            return "refused"

    with ThreadPoolExecutor(4) as pool:
        answers = [pool.submit(request, n) for n in range(4)]
        time.sleep(0.5)
        gate.set()
    assert sorted(a.result() for a in answers) == ["ran", "refused", "refused", "refused"] and len(ran) == 1


@pytest.fixture
def pairwise_space(long_bootstraps_allowed):
    """The pairwise Space with an 8 s time limit (its ceilings raised, for requests that run until it); its URL."""
    app = build_app(evaluate.load(str(PAIRWISE)), seconds=8)
    port = free_port()
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        app.close()
        for process in list(space_serving.RUNNING):
            process.kill()


@pytest.mark.slow
def test_three_heavy_requests_of_one_client_do_not_keep_another_clients_light_request_waiting(pairwise_space):
    """Before: two of the three took both computations and the light request waited for the time limit (55-59 s on
    the Space); now the client's first runs, its two others are refused at once, and the light one starts at once."""
    url = pairwise_space
    labels, model_a, model_b = battles(300)
    heavy = texts(labels, ["A"] * 300, {"model_a": model_a, "model_b": model_b, "bootstrap_rounds": 100_000})
    busy_client, other_client = Client(url, verbose=False), Client(url, verbose=False)
    jobs = [busy_client.submit(*heavy, api_name="/compute") for _ in range(3)]
    time.sleep(1.5)  # all three sent, the first computing
    began = time.monotonic()
    light = other_client.predict(*texts(["A", "B"], ["A", "A"]), api_name="/compute")
    answered = time.monotonic() - began
    assert light["n_scored"] == 2 and answered < LIGHT_S, f"the light request took {answered:.1f} s"
    outcomes = []
    for job in jobs:
        with pytest.raises(AppError) as ended:
            job.result(timeout=60)
        outcomes.append(str(ended.value))
    refused = [o for o in outcomes if o.startswith("your computation started")]
    stopped = [o for o in outcomes if o.startswith("pairwise compute took over 8 s and was stopped")]
    assert len(refused) == 2 and len(stopped) == 1, outcomes  # the first ran until its time limit
    again = busy_client.predict(*texts(["A"], ["A"]), api_name="/compute")  # its computation done: served again
    assert again["n_scored"] == 1
