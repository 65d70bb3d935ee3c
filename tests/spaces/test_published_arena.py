"""The arena Space as `publish` releases it opens with pairs: staged with `publish --stage`, published to the local Hub
stand-in, then its staged `app.py` started as a Space starts it (its own folder, only the variables publish set, the
Hub and a token) opens with a pair of released HelloBench responses, offers another and keeps a vote in the private
votes repo."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from answering import wait_until_answers
from gradio_client import Client

from longform_eval.spaces.storage import VoteStore

from .conftest import free_port

ORG = "arena-org"
SPACE = f"{ORG}/longform-eval-arena"
VOTES = f"{ORG}/longform-eval-arena-votes"
MODELS = {"claude35", "gemma2_27b", "gpt4o_0806", "llama31_8b", "longwriter_9b", "mistral_large_api", "qwen2_7b"}


def publish(hub, home: Path, *args: str) -> str:
    """`longform-eval publish --org ORG ARGS` in a subprocess talking to the stand-in; its output."""
    done = subprocess.run(
        [sys.executable, "-m", "longform_eval.inference", "publish", "--org", ORG, *args],
        env=hub.env(home),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def start(folder: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """`python app.py` in the Space's folder, as a Space runs it; (process, url) once it answers."""
    port = free_port()
    env = env | {"GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port)}
    process = subprocess.Popen(
        [sys.executable, "app.py"], cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}/"
    wait_until_answers(process, url, time.monotonic() + 180)
    return process, url


def opening_event(url: str) -> tuple[str, set[str]]:
    """The event the page runs as it opens (the app's `load`, which fills the question, from the page's /config): its
    API name and the elem_ids of the components it fills."""
    with urllib.request.urlopen(f"{url}config", timeout=30) as response:
        config = json.load(response)
    elem_ids = {component["id"]: component.get("props", {}).get("elem_id") for component in config["components"]}
    on_load = [d for d in config["dependencies"] if any(trigger == "load" for _, trigger in d["targets"])]
    (event,) = [d for d in on_load if "prompt" in {elem_ids.get(i) for i in d["outputs"]}]
    return event["api_name"], {elem_ids.get(i) for i in event["outputs"]} - {None}


@pytest.mark.slow
def test_the_published_arena_space_offers_released_pairs_and_keeps_a_vote(hub, shared_data, tmp_path):
    stage = tmp_path / "stage"
    staged = publish(hub, tmp_path / "hf", "--stage", str(stage), "--source", str(shared_data))
    assert f"  variable LONGFORM_EVAL_RELEASED={ORG}/hellobench" in staged.splitlines() and hub.repos() == []
    published = publish(hub, tmp_path / "hf", "--source", str(shared_data))
    assert f"space {SPACE}: set its secret HF_TOKEN at {hub.url}/spaces/{SPACE}/settings" in published
    variables = hub.variables(SPACE)
    assert variables == {"LONGFORM_EVAL_RELEASED": f"{ORG}/hellobench", "LONGFORM_EVAL_VOTES_REPO": VOTES}
    assert hub.is_private(VOTES) and "released_responses/test.parquet" in hub.files(f"{ORG}/hellobench")

    folder = stage / "spaces" / SPACE
    assert hub.files(SPACE, "space") == {p.name: p.read_bytes() for p in folder.iterdir()}
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "app.py", "requirements.txt"]
    env = {k: v for k, v in hub.env(tmp_path / "space-hf").items() if not k.startswith("LONGFORM_EVAL_")}
    process, url = start(folder, env | variables)  # with HF_ENDPOINT (the stand-in) and HF_TOKEN, as a Space has
    try:
        api_name, filled = opening_event(url)
        assert api_name == "open" and filled == {"prompt", "answer-a", "answer-b", "status"}
        client = Client(url, verbose=False)
        for endpoint in ("/open", "/new_pair"):  # what the page shows as it opens, then on "New comparison"
            prompt, left, right, status = client.predict("", "", api_name=endpoint)  # the filters' initial values
            assert prompt.startswith("**hellobench · ") and left and right and left != right, endpoint
            assert status == "Which answer is better?"
        reveal = client.predict("published-tester", api_name="/vote_A")
        assert reveal.startswith("You voted") and sum(model.replace("_", "\\_") in reveal for model in MODELS) == 2
    finally:
        process.send_signal(signal.SIGTERM)  # a Space stopping: its votes are pushed at once
        output = process.communicate(timeout=60)[0].decode()
    assert process.returncode in (0, -signal.SIGTERM), output[-3000:]
    (vote,) = VoteStore(folder / "votes.sqlite").votes()
    assert vote.annotator == "published-tester" and {vote.model_a, vote.model_b} <= MODELS
    pushed = [
        json.loads(line)
        for path, data in hub.files(VOTES).items()
        if path.startswith("votes/")
        for line in data.decode().splitlines()
    ]
    assert [(v["token"], v["annotator"]) for v in pushed] == [(vote.token, "published-tester")]
