"""The read path at many runs (issue 36): what reading finished runs costs at 1, 10 and 30 runs of 647 rows.

Builds three finished HelloBench runs from released data (GPT-4o's, Llama-3.1-8B's and Qwen2-7B's answers, each
judged by GPT-4o's released verdicts, through the replay backend), copies them into 30 runs of distinct model names,
and times, each command in a fresh interpreter (median of --repeat), on this machine:

- `longform-eval --help`, and the imports of `report`                                   [<= 1.5 s]
- `le.open_run`, `score` and `report` of one finished run, beyond the imports            [<= 1 s each]
- `run` again on a finished run (no model call), whole command                          [<= 2 s beyond start]
- `report` and `leaderboard` of 1, 10 and 30 runs, whole command                         [30 runs <= 10 s]
- the Space's board rebuilt over 30 runs (`spaces.leaderboard.compute_board`)
- one TencentLLMEval pairwise run of 3,000 questions x 2 orders: `open_run` and `report`

Run: python bench/read_path.py [--work DIR] [--repeat 3] (LONGFORM_EVAL_SOURCE names the benchmarks' source files;
default ../shared/data). Paste the output into bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE = Path(os.environ.get("LONGFORM_EVAL_SOURCE", REPO.parent / "shared" / "data")).resolve()
TASKS = ("open_ended_qa", "summarization", "chat", "text_completion", "heuristic_text_generation")
JUDGED = ("gpt4o_0806", "llama31_8b", "qwen2_7b")  # models with GPT-4o's released verdicts
CLI = [sys.executable, "-m", "longform_eval.inference"]


def released(kind: str, model: str) -> list[dict]:
    folder = SOURCE / "hellobench" / kind / "main_exp" / model
    records = []
    for task in TASKS:
        with gzip.open(folder / f"{task}_results.jsonl.gz", "rt", encoding="utf-8") as handle:
            records.extend(json.loads(line) for line in handle)
    return records


def write_replay(path: Path, pairs) -> Path:
    path.write_text("".join(json.dumps({"key": k, "text": t}) + "\n" for k, t in pairs), encoding="utf-8")
    return path


def cli(*args: str, cwd: Path, cache: Path | None = None) -> float:
    """Seconds the command takes, whole (a fresh interpreter); its failure stops the bench. `cache`: the folder of
    cached results (comparisons, rank ranges) it may use."""
    env = os.environ | ({"LONGFORM_EVAL_CACHE": str(cache)} if cache else {})
    began = time.perf_counter()
    done = subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"longform-eval {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return seconds


def python(code: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"python -c failed:\n{done.stderr[-3000:]}")
    return done.stdout.strip()


def median(measure, repeat: int) -> float:
    return statistics.median(measure() for _ in range(repeat))


def base_runs(work: Path) -> list[Path]:
    """The three finished runs from released data (made once; a later bench reuses them). Each model's verdicts are
    a replay file `judge.jsonl` in a folder of its own, named alike from there: the three runs share one judge name,
    and so one leaderboard table (the released verdicts are all GPT-4o's)."""
    runs = []
    for model in JUDGED:
        out = work / "base" / model
        if not (out / "scores.json").is_file():
            home = work / "replay" / model
            home.mkdir(parents=True, exist_ok=True)
            generations = write_replay(
                home / "generations.jsonl", ((r["id"], r["response"]) for r in released("generations", model))
            )
            write_replay(
                home / "judge.jsonl",
                (
                    (r["id"], json.dumps(r["checklist_wise_evaluation"], ensure_ascii=False))
                    for r in released("judgements", model)
                ),
            )
            cli(
                "run", "--benchmark", "hellobench", "--model", f"replay:{generations}", "--name", model,
                "--judge", "replay:judge.jsonl", "--judge-name", "GPT-4o (released verdicts)", "--out", str(out),
                cwd=home,
            )  # fmt: skip
        runs.append(out)
    return runs


def copies(work: Path, bases: list[Path], count: int) -> list[Path]:
    """`count` finished runs: the bases, then copies whose model is renamed (records and scores alike)."""
    runs = list(bases)
    for index in range(len(bases), count):
        base = bases[index % len(bases)]
        out = work / "many" / f"{base.name}-{index:02d}"
        if not (out / "scores.json").is_file():
            shutil.rmtree(out, ignore_errors=True)  # a copy this bench made and did not finish
            shutil.copytree(base, out, ignore=shutil.ignore_patterns(".lock*", "*.tmp"))
            old = f"replay/{base.name}/generations.jsonl"
            new = f"replay/{base.name}-{index:02d}/generations.jsonl"
            for name in ("config.yaml", "generations.jsonl", "scores.json"):
                path = out / name
                path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
            config = out / "config.yaml"
            config.write_text(
                config.read_text(encoding="utf-8").replace(f"name: {base.name}", f"name: {base.name}-{index:02d}")
            )
        runs.append(out)
    return runs


IN_PROCESS = """
import time, sys, io, contextlib
began = time.perf_counter()
import longform_eval as le
from longform_eval.inference.cli import main
le.open_run  # the API's imports
imports = time.perf_counter() - began
folder = sys.argv[1] if len(sys.argv) > 1 else {folder!r}
times = {{}}
began = time.perf_counter(); le.open_run({folder!r}); times["open_run"] = time.perf_counter() - began
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    began = time.perf_counter(); main(["score", {folder!r}]); times["score"] = time.perf_counter() - began
    began = time.perf_counter(); main(["report", {folder!r}]); times["report"] = time.perf_counter() - began
print(imports, times["open_run"], times["score"], times["report"])
"""

BOARD = """
import time
from pathlib import Path
from longform_eval.spaces.leaderboard import compute_board
runs = [Path(p) for p in {runs!r}]
compute_board([], runs)  # imports and first read
began = time.perf_counter(); compute_board([], runs); print(time.perf_counter() - began)
"""


def one_run(run: Path, work: Path, repeat: int) -> None:
    startup = median(lambda: timed_python("pass", work), repeat)
    help_ = median(lambda: cli("--help", cwd=work), repeat) - startup
    imports = median(lambda: timed_python("import longform_eval.inference.cli.run", work), repeat) - startup
    print(f"interpreter start                                   {startup:6.2f} s")
    print(f"longform-eval --help (beyond start)                 {help_:6.2f} s   target <= 1.5 s")
    print(f"report's imports (cli.run; beyond start)            {imports:6.2f} s   target <= 1.5 s")
    rows = [python(IN_PROCESS.format(folder=str(run)), work).split() for _ in range(repeat)]
    figures = [statistics.median(float(r[i]) for r in rows) for i in range(4)]
    print(f"API imports (import longform_eval; le.open_run)     {figures[0]:6.2f} s")
    for name, seconds in zip(("open_run", "score", "report"), figures[1:], strict=True):
        print(f"{name + ' of one finished 647-row run (in process)':52s}{seconds:6.2f} s   target <= 1 s")


def timed_python(code: str, cwd: Path) -> float:
    began = time.perf_counter()
    python(code, cwd)
    return time.perf_counter() - began


def rerun(work: Path, repeat: int) -> None:
    model = JUDGED[0]
    home = work / "replay" / model
    args = ("run", "--benchmark", "hellobench", "--model", f"replay:{home / 'generations.jsonl'}", "--name", model,
            "--judge", "replay:judge.jsonl", "--judge-name", "GPT-4o (released verdicts)", "--out",
            str(work / "base" / model))  # fmt: skip
    seconds = median(lambda: cli(*args, cwd=home), repeat)
    print(f"run again on a finished 647-row run (whole command)  {seconds:6.2f} s   target <= 2 s beyond start")


def many(runs: list[Path], work: Path, repeat: int, leaderboard: bool) -> None:
    """Each command first with nothing cached (every record checked, every paired comparison computed: the runs'
    derived.json removed, an empty cache of results), then again (what the first kept is used)."""
    for count in (1, 10, 30):
        chosen = [str(run) for run in runs[:count]]
        commands = {"report": ["report", *chosen, *(["--out", str(work / f"cmp-{count}")] if count > 1 else [])]}
        if leaderboard:
            commands["leaderboard"] = ["leaderboard", *chosen, "--out", str(work / f"board-{count}")]
        for name, args in commands.items():
            cache = Path(tempfile.mkdtemp(prefix="results-", dir=work))
            for run in runs[:count]:  # nothing remembered of an earlier check: the first reads every record
                (run / "derived.json").unlink(missing_ok=True)
            first = cli(*args, cwd=work, cache=cache)
            again = median(functools.partial(cli, *args, cwd=work, cache=cache), repeat)
            target = "   target <= 10 s" if count == 30 else ""
            print(f"{name} of {count:2d} runs (whole command): first {first:6.2f} s, again {again:6.2f} s{target}")
    board = python(BOARD.format(runs=[str(run) for run in runs[:30]]), work)
    print(f"Space board rebuild over 30 runs (in process)         {float(board):6.2f} s")


PAIRWISE_JUDGE = """
import json, sys
from longform_eval.inference.runner import Run
run = Run.open(sys.argv[1], read_only=True)
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for index, (sample_id, (text, _)) in enumerate(run.responses().items()):
        for key in run.benchmark.judge_keys(run.by_id[sample_id], text):
            first = key.rsplit("@", 1)[0].endswith("#ab")
            reply = "Verdict: A" if (index % 3 == 0) == first else "Verdict: B"  # one in three wins, the rest lose
            out.write(json.dumps({"key": key, "text": reply}) + "\\n")
print(len(run.rows))
"""

PAIRWISE_OPEN = """
import time, sys
import longform_eval as le
began = time.perf_counter(); le.open_run(sys.argv[1]); print(time.perf_counter() - began)
"""


def pairwise(work: Path, repeat: int) -> None:
    """TencentLLMEval:en (about 2,900 questions) against its reference answers, both orders judged."""
    answers = work / "tencent_answers.jsonl"
    out = work / "tencent"
    if not (out / "scores.json").is_file():
        rows = python(TENCENT_ROWS, work).splitlines()
        write_replay(
            answers, ((row, f"Answer to {row}.\n\n" + "A detailed point. " * (5 + len(row) % 40)) for row in rows)
        )
        cli(
            "generate",
            "--benchmark",
            "tencentllmeval:en",
            "--model",
            f"replay:{answers}",
            "--baseline",
            "reference",
            "--out",
            str(out),
            cwd=work,
        )
        judge = work / "tencent_judge.jsonl"
        done = subprocess.run(
            [sys.executable, "-c", PAIRWISE_JUDGE, str(out), str(judge)], capture_output=True, text=True
        )
        if done.returncode:
            raise SystemExit(done.stderr[-3000:])
        cli(
            "run",
            "--benchmark",
            "tencentllmeval:en",
            "--model",
            f"replay:{answers}",
            "--baseline",
            "reference",
            "--judge",
            f"replay:{judge}",
            "--out",
            str(out),
            cwd=work,
        )
    rows = json.loads((out / "scores.json").read_text())["n_samples"]
    opened = median(
        lambda: float(
            subprocess.run(
                [sys.executable, "-c", PAIRWISE_OPEN, str(out)], capture_output=True, text=True, cwd=work
            ).stdout
            or "nan"
        ),
        repeat,
    )
    reported = median(functools.partial(cli, "report", str(out), cwd=work), repeat)
    print(
        f"TencentLLMEval:en pairwise, {rows} questions x 2 orders: open_run {opened:.2f} s (in process), "
        f"report {reported:.2f} s (whole command)"
    )


TENCENT_ROWS = """
from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.benchmarks.rows import benchmark_rows
for row in benchmark_rows(create_benchmark("tencentllmeval", "en"), None):
    print(row["id"])
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, help="folder for the runs (default: a new temporary folder)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("LONGFORM_EVAL_SOURCE", str(SOURCE))
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "HF_EVALUATE_OFFLINE"):
        os.environ.setdefault(name, "1")
    work = (args.work or Path(tempfile.mkdtemp(prefix="read-path-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    print(f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, Python {sys.version.split()[0]}; runs in {work}")
    runs = copies(work, base_runs(work), 30)
    leaderboard = "leaderboard" in subprocess.run([*CLI, "--help"], capture_output=True, text=True).stdout
    one_run(runs[1], work, args.repeat)
    rerun(work, args.repeat)
    many(runs, work, args.repeat, leaderboard)
    pairwise(work, args.repeat)


if __name__ == "__main__":
    main()
