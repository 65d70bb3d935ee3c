"""The Space under load (issue targets in brackets). Prints figures; record them in bench/RESULTS.md.

1. `longform-eval space --runs A B` on two run folders made with `longform-eval import-generations` (released
   HelloBench responses of two models), started as its own process.
2. 30 visitors at once, each 10 times: a new pair, then a vote [300 votes in < 90 s, exactly 300 rows stored].
3. The store seeded to 10,000 votes (one transaction, beside the running Space); then one visitor votes 50 times
   [a vote returns in < 0.3 s]. Then the leaderboard: computed once, then served from its cache; and votes while
   another visitor's leaderboard is being recomputed.

A visitor is plain HTTP against Gradio's API (`/gradio_api/call/<api>` with its own session hash, so the Space
keeps its pair in the session's state), or with `--client gradio_client` a `gradio_client.Client` (which adds
about 0.1 s to every call on its own: an echo function answers in 0.15 s through it, in 0.03 s over plain HTTP).

Run: python bench/space_votes.py [--client http|gradio_client] [--clients 30] [--votes-per-client 10]
         [--stored 10000] [--samples 50]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from gradio_client import Client

from longform_eval.spaces.arena import VOTES
from longform_eval.spaces.storage import Vote, VoteStore

MODELS = ("qwen2_7b", "llama31_8b")
RELEASED = Path(__file__).resolve().parents[2] / "shared/data/hellobench/generations/main_exp"
VOTE_APIS = [f"vote_{outcome}" for outcome in VOTES.values()]
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_EVALUATE_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
}


class HttpVisitor:
    """One visitor over plain HTTP: its own connection and Gradio session."""

    def __init__(self, url: str):
        self.http = httpx.Client(base_url=url, trust_env=False, timeout=300)
        self.session = uuid.uuid4().hex

    def call(self, api: str, *data: Any) -> list[Any]:
        """The outputs of one event (Gradio's two-step API: join the queue, then read the event's stream)."""
        joined = self.http.post(f"gradio_api/call/{api}", json={"data": list(data), "session_hash": self.session})
        joined.raise_for_status()
        stream = self.http.get(f"gradio_api/call/{api}/{joined.json()['event_id']}").text.splitlines()
        event = [line for line in stream if line.startswith("event:")][-1]
        payload = [line for line in stream if line.startswith("data:")][-1]
        if event != "event: complete":
            raise RuntimeError(f"{api}: {event} {payload[:300]}")
        return json.loads(payload[len("data:") :])


class GradioClientVisitor:
    """One visitor through `gradio_client` (its own session)."""

    def __init__(self, url: str):
        self.client = Client(url, verbose=False)

    def call(self, api: str, *data: Any) -> list[Any]:
        outputs = self.client.predict(*data, api_name=f"/{api}")
        return list(outputs) if isinstance(outputs, tuple) else [outputs]


VISITORS = {"http": HttpVisitor, "gradio_client": GradioClientVisitor}


def cli(*args: str, **popen) -> subprocess.Popen:
    command = [sys.executable, "-m", "longform_eval.inference", *args]
    return subprocess.Popen(command, env=os.environ | OFFLINE, **popen)


def import_runs(root: Path) -> list[Path]:
    """Two run folders, one per model, made by the runner's own import command."""
    runs = []
    for model in MODELS:
        out = root / "runs" / model
        source = RELEASED / model
        process = cli("import-generations", str(source), "--out", str(out), "--benchmark", "hellobench:all")
        if process.wait() != 0:
            raise SystemExit(f"import-generations {source} failed")
        runs.append(out)
    return runs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_space(runs: list[Path], db: Path, log: Path) -> tuple[subprocess.Popen, str, float]:
    """The Space as a user starts it; returns once a pair comes back over the API (and how long that took)."""
    port = free_port()
    began = time.perf_counter()
    process = cli(
        "space",
        "--runs",
        *map(str, runs),
        "--db",
        str(db),
        "--port",
        str(port),
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 300
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the Space did not start; its log:\n{log.read_text()[-3000:]}") from None
            time.sleep(0.5)
    HttpVisitor(url).call("new_pair", "", "")
    return process, url, time.perf_counter() - began


def session(visitor: Any, number: int, votes: int) -> list[str]:
    """One visitor: `votes` times a new pair, then a vote."""
    reveals = []
    for i in range(votes):
        visitor.call("new_pair", "", "")
        reveals.append(visitor.call(VOTE_APIS[(number + i) % len(VOTE_APIS)], f"client{number}")[0])
    return reveals


def crowd(url: str, visitor: type, clients: int, votes: int, db: Path) -> None:
    began = time.perf_counter()
    with ThreadPoolExecutor(clients) as workers:
        reveals = [r for batch in workers.map(lambda n: session(visitor(url), n, votes), range(clients)) for r in batch]
    wall = time.perf_counter() - began
    stored = VoteStore(db).count()
    refused = sum(not r.startswith("You voted") for r in reveals)
    print(
        f"crowd: {clients} concurrent {visitor.__name__}s x {votes} (new pair, vote) = {clients * votes} votes in "
        f"{wall:.1f} s (connecting included; {clients * votes / wall:.1f} votes/s); stored rows: {stored}; "
        f"refused: {refused} [target < 90 s, exactly {clients * votes} rows]"
    )


def seed(db: Path, total: int) -> int:
    """Fill the store up to `total` votes in one transaction: 30 annotators, the two models, 600 items."""
    store = VoteStore(db)
    rng = random.Random(0)
    missing = max(0, total - store.count())
    models = [f"imported:{m}" for m in MODELS]
    votes = [
        Vote(
            annotator=f"seed{i % 30}",
            session=f"seed-session{i % 30}",
            item_id=f"hellobench:all/seed_{i % 600:03d}",
            model_a=models[i % 2],
            model_b=models[1 - i % 2],
            order_shown="sorted" if i % 2 else "swapped",
            outcome=rng.choice(list(VOTES.values())),
            token=f"seed-{i}",
        )
        for i in range(missing)
    ]
    store.add_votes(votes)
    return store.count()


def timed_votes(visitor: Any, samples: int) -> list[float]:
    """Seconds per vote, each on a fresh pair (the pair itself is not timed)."""
    times = []
    for i in range(samples):
        visitor.call("new_pair", "", "")
        began = time.perf_counter()
        reveal = visitor.call(VOTE_APIS[i % len(VOTE_APIS)], "latency")[0]
        times.append(time.perf_counter() - began)
        assert reveal.startswith("You voted"), reveal
    return times


def describe(times: list[float]) -> str:
    p95 = statistics.quantiles(times, n=20)[-1]
    return f"median {statistics.median(times):.3f} s, p95 {p95:.3f} s, max {max(times):.3f} s"


def vote_latency(url: str, visitor: type, samples: int, stored: int) -> None:
    client = visitor(url)
    times = timed_votes(client, samples)
    print(f"vote latency with {stored:,} votes stored, {samples} votes: {describe(times)} [target < 0.3 s]")
    for label in ("computed", "cached"):
        began = time.perf_counter()
        summary, *_ = client.call("leaderboard")
        print(f"leaderboard ({label}): {time.perf_counter() - began:.2f} s: {summary}")


def latency_beside_the_leaderboard(url: str, visitor: type, samples: int) -> None:
    """Votes while another visitor's leaderboard is being recomputed (it holds the GIL for much of the time)."""
    viewer, voter = visitor(url), visitor(url)
    with ThreadPoolExecutor(1) as background:
        computing = background.submit(lambda: [viewer.call("leaderboard") for _ in range(samples // 10)])
        times = timed_votes(voter, samples)
        computing.result()
    print(f"vote latency while leaderboards are recomputed beside it, {samples} votes: {describe(times)}")


def server_cpu(pid: int) -> float:
    """CPU seconds (user + system) the process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--client", choices=sorted(VISITORS), default="http")
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--votes-per-client", type=int, default=10)
    parser.add_argument("--stored", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="space-votes-") as folder:
        root = Path(folder)
        runs = import_runs(root)
        db = root / "votes.sqlite"
        process, url, startup = start_space(runs, db, root / "space.log")
        print(f"space: started on {len(runs)} run folders ({', '.join(MODELS)}; hellobench:all) in {startup:.1f} s")
        try:
            cpu = server_cpu(process.pid)
            visitor = VISITORS[args.client]
            crowd(url, visitor, args.clients, args.votes_per_client, db)
            print(f"crowd: the Space process used {server_cpu(process.pid) - cpu:.1f} CPU seconds")
            stored = seed(db, args.stored)
            vote_latency(url, visitor, args.samples, stored)
            latency_beside_the_leaderboard(url, visitor, args.samples)
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
