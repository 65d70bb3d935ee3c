"""The read path at many runs: what reading finished runs costs at 1, 10 and 30 runs of 647 real answers, cold and warm.

Builds three finished HelloBench runs from released data (GPT-4o's, Llama-3.1-8B's and Qwen2-7B's answers, each
judged by GPT-4o's released verdicts, through the replay backend), copies them into 30 runs of distinct model names,
and times, each command in a fresh interpreter (median of --repeat), on this machine. "cold": fresh copies of the run
folders (as a clone of a shared run, or an `hf://` run, arrives) and an empty `$LONGFORM_EVAL_CACHE` (no word count,
comparison or rank range computed before); "warm": the same command again, with what the cold one kept.

- `longform-eval --help` and `--version`, beyond interpreter start                       [<= 0.8 s]
- `le.open_run`, `score` and `report` of one finished run, in process beyond the imports [<= 1 s each, cold]
- `run` again on a finished run (no model call), whole command beyond start              [<= 1 s, cold]
- `view` of one run: imports, the run read and the page's first row made, in process     [<= 5 s, cold]
- `report` and `leaderboard` of 1, 10 and 30 runs, whole command                         [30 runs <= 5 s, cold]
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

from longform_eval.common.plurals import plural

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


def python(code: str, cwd: Path, cache: Path | None = None) -> str:
    env = os.environ | ({"LONGFORM_EVAL_CACHE": str(cache)} if cache else {})
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, env=env)
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

SCORE_ALL = """
import longform_eval as le
from longform_eval.inference.cli import main
for folder in {runs!r}:
    le.score(folder)
    main(["report", folder])  # as a finished run is shared: its report.md and plots drawn by this code
"""

VIEW = """
import time
began = time.perf_counter()
from pathlib import Path
from longform_eval.spaces.viewer import NONE, Viewer, build_viewer
from longform_eval.spaces.viewer_rows import ALL, ORDERS, read_view_runs
runs = read_view_runs([Path({folder!r})])
build_viewer(runs)
Viewer(runs).refresh(runs[0].name, NONE, ALL, ALL, ORDERS[0], "", None)  # what the page loads first
print(time.perf_counter() - began)
"""

BOARD = """
import time
from pathlib import Path
from longform_eval.spaces.leaderboard import compute_board
runs = [Path(p) for p in {runs!r}]
compute_board([], runs)  # imports and first read
began = time.perf_counter(); compute_board([], runs); print(time.perf_counter() - began)
"""


def fresh(work: Path, runs: list[Path]) -> tuple[list[Path], Path]:
    """Copies of `runs` in a new folder (nothing a read of the originals kept in them) and an empty cache folder."""
    where = Path(tempfile.mkdtemp(prefix="cold-", dir=work))
    copied = [Path(shutil.copytree(run, where / run.name, ignore=shutil.ignore_patterns(".lock*"))) for run in runs]
    return copied, Path(tempfile.mkdtemp(prefix="cache-", dir=work))


def cold_and_warm(measure, work: Path, runs: list[Path], repeat: int) -> tuple[float, float]:
    """`measure(copies, cache)` on fresh copies with an empty cache (median of `repeat` fresh starts), then again on
    the last of them (median of `repeat`)."""
    colds = []
    for _ in range(repeat):
        copied, cache = fresh(work, runs)
        colds.append(measure(copied, cache))
    return statistics.median(colds), median(lambda: measure(copied, cache), repeat)


def one_run(run: Path, work: Path, repeat: int) -> None:
    startup = median(lambda: timed_python("pass", work), repeat)
    help_ = median(lambda: cli("--help", cwd=work), repeat) - startup
    version = median(lambda: cli("--version", cwd=work), repeat) - startup
    print(f"interpreter start                                   {startup:6.2f} s")
    print(f"longform-eval --help (beyond start)                 {help_:6.2f} s   target <= 0.8 s")
    print(f"longform-eval --version (beyond start)              {version:6.2f} s   target <= 0.8 s")
    figures: dict[str, list[list[float]]] = {"cold": [], "warm": []}
    for _ in range(repeat):
        (copied,), cache = fresh(work, [run])
        for rows in figures.values():  # cold first, then warm on the same copy and cache
            rows.append([float(x) for x in python(IN_PROCESS.format(folder=str(copied)), work, cache).split()])
    for kind, rows in figures.items():
        found = [statistics.median(row[i] for row in rows) for i in range(4)]
        print(f"API imports (import longform_eval; le.open_run), {kind} {found[0]:6.2f} s")
        for name, seconds in zip(("open_run", "score", "report"), found[1:], strict=True):
            label = f"{name} of one finished 647-row run (in process), {kind}"
            print(f"{label:58s}{seconds:6.2f} s" + ("   target <= 1 s" if kind == "cold" else ""))

    def view(runs: list[Path], cache: Path) -> float:
        return float(python(VIEW.format(folder=str(runs[0])), work, cache))

    cold, warm = cold_and_warm(view, work, [run], repeat)
    print(f"view of one run, first row made (in process, imports included): cold {cold:5.2f} s, warm {warm:5.2f} s"
          "   target <= 5 s")  # fmt: skip


def timed_python(code: str, cwd: Path) -> float:
    began = time.perf_counter()
    python(code, cwd)
    return time.perf_counter() - began


def rerun(work: Path, repeat: int) -> None:
    model = JUDGED[0]
    home = work / "replay" / model
    startup = median(lambda: timed_python("pass", work), repeat)

    def again(runs: list[Path], cache: Path) -> float:
        args = ("run", "--benchmark", "hellobench", "--model", f"replay:{home / 'generations.jsonl'}", "--name", model,
                "--judge", "replay:judge.jsonl", "--judge-name", "GPT-4o (released verdicts)",
                "--out", str(runs[0]))  # fmt: skip
        return cli(*args, cwd=home, cache=cache) - startup

    cold, warm = cold_and_warm(again, work, [work / "base" / model], repeat)
    print(f"run again on a finished 647-row run (whole command beyond start): cold {cold:5.2f} s, warm {warm:5.2f} s"
          "   target <= 1 s")  # fmt: skip


def many(runs: list[Path], work: Path, repeat: int) -> None:
    """`report` and `leaderboard` of 1, 10 and 30 runs, cold (fresh copies, empty cache) and warm."""
    for count in (1, 10, 30):
        for name in ("report", "leaderboard"):

            def command(copied: list[Path], cache: Path, name: str = name, count: int = count) -> float:
                out = (
                    ["--out", str(cache.parent / f"{name}-{cache.name}")] if name == "leaderboard" or count > 1 else []
                )
                return cli(name, *map(str, copied), *out, cwd=work, cache=cache)

            cold, warm = cold_and_warm(command, work, runs[:count], 1 if count == 30 else repeat)
            target = "   target <= 5 s" if count == 30 else ""
            runs_of = f"{count:2d} {plural(count, 'run'):4}"  # `report of  1 run  (...)`, aligned with `10 runs`
            print(f"{name} of {runs_of} (whole command): cold {cold:6.2f} s, warm {warm:6.2f} s{target}")
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
    python(SCORE_ALL.format(runs=[str(run) for run in runs]), work)  # finished by this code: nothing stale in them
    one_run(runs[1], work, args.repeat)
    rerun(work, args.repeat)
    many(runs, work, args.repeat)
    pairwise(work, args.repeat)


if __name__ == "__main__":
    main()
