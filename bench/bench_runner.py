"""Runner benchmarks (issue targets in brackets). Prints figures; record them in bench/RESULTS.md.

1. Runner overhead with the embedded local model: the same prompts through Run.generate and through the
   backend called directly [ratio <= 1.05].
2. Judge client throughput at 1 / 4 / 16 requests in flight against a local server with a fixed service
   time [>= 90% of the ideal at 16].
3. Peak RSS of a 10,000-sample run (generate + judge + score) with the replay backend [< 1 GB].

Run: python bench/bench_runner.py [--skip-model]
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def runner_overhead() -> None:
    from longform_eval.inference.backends import create_backend
    from longform_eval.inference.backends.shared import KeepOpen
    from longform_eval.inference.config import GenerationConfig, ModelSpec
    from longform_eval.inference.runner import Run, RunConfig

    spec = ModelSpec.parse("local:default", {"batch_size": 4})
    backend = KeepOpen(create_backend(spec))
    config = GenerationConfig(max_new_tokens=48, temperature=0.0, seed=0)
    with tempfile.TemporaryDirectory() as folder:
        run_config = RunConfig(
            benchmark="hellobench",
            benchmark_config="chat",
            selection={"limit": 8, "shortest": True},
            model=spec,
            generation=config,
            judge_generation=config,
        )
        run = Run.create(Path(folder) / "run", run_config)
        requests = run.pending_generations()
        backend.generate(requests[:2], config)  # warm-up
        began = time.perf_counter()
        backend.generate(requests, config)
        direct = time.perf_counter() - began
        began = time.perf_counter()
        run.generate(lambda _spec: backend)
        through_runner = time.perf_counter() - began
    print(
        f"runner overhead: direct {direct:.2f} s, through the runner {through_runner:.2f} s, "
        f"ratio {through_runner / direct:.3f} (target <= 1.05; {len(requests)} prompts, 48 new tokens)"
    )


def judge_throughput() -> None:
    """The server runs in its own process, so that it does not share the client's interpreter."""
    from longform_eval.inference.backends.base import Request
    from longform_eval.inference.backends.openai_backend import OpenAIBackend
    from longform_eval.inference.config import GenerationConfig

    service, count = 0.1, 320
    server = subprocess.Popen(
        [sys.executable, str(REPO / "tests/inference/fault_server.py"), str(service)], stdout=subprocess.PIPE, text=True
    )
    try:
        url = server.stdout.readline().strip()
        for in_flight in (1, 4, 16):
            client = OpenAIBackend("judge", base_url=url, max_in_flight=in_flight)
            requests = [Request(key=str(i), messages=({"role": "user", "content": "plain"},)) for i in range(count)]
            began = time.perf_counter()
            client.generate(requests, GenerationConfig(max_new_tokens=4))
            seconds = time.perf_counter() - began
            ideal = count * service / in_flight
            print(
                f"judge client, {in_flight:>2} in flight: {count / seconds:6.1f} req/s, "
                f"{100 * ideal / seconds:5.1f}% of ideal ({count / ideal:.1f} req/s)"
            )
    finally:
        server.terminate()


def peak_rss_10k() -> None:
    from longform_eval.dataset_builder.longgenbench_generator import generate_items

    items = generate_items("short", seed=0, per_scenario=2500)
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        model, judge = folder / "model.jsonl", folder / "judge.jsonl"
        with model.open("w") as m, judge.open("w") as j:
            for item in items:
                first = item["prefix"].removeprefix("#*# ")
                m.write(
                    json.dumps(
                        {"key": item["id"], "text": " Quiet start. #*# " + first.replace(" 1", " 2", 1) + " More."}
                    )
                    + "\n"
                )
                for index in range(len(item["checks"])):
                    j.write(json.dumps({"key": f"{item['id']}#{index}", "text": "yes"}) + "\n")
        command = [
            sys.executable,
            "-m",
            "longform_eval.inference",
            "run",
            "--benchmark",
            "longgenbench:generated_short",
            "--benchmark-arg",
            "per_scenario=2500",
            "--model",
            f"replay:{model}",
            "--judge",
            f"replay:{judge}",
            "--out",
            str(folder / "run"),
        ]
        began = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        seconds = time.perf_counter() - began
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        records = sum(1 for _ in (folder / "run" / "generations.jsonl").open())
        print(
            f"10,000-sample run ({records} generations, judge + score + report): {seconds:.1f} s, "
            f"peak RSS {peak_kb / 1024:.0f} MiB (target < 1024 MiB)"
        )


if __name__ == "__main__":
    judge_throughput()
    peak_rss_10k()
    if "--skip-model" not in sys.argv:
        runner_overhead()
