"""The release smoke test: what a user gets from the wheel, run from a folder outside the checkout.

Started by `.ci/rehearse-release` with the Python of a fresh venv holding only the installed wheel (and its
dependencies). Each step prints one line; the first failure stops it with exit status 1.
"""

from __future__ import annotations

import argparse
import doctest
import gzip
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

DISTRIBUTION = "longform-eval"
METRICS = ("helloeval", "longgenbench", "longbench_write", "pairwise")
ORG = "rehearsal"
CHAT_ROWS = 147
RUN_LIMIT = 5
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_EVALUATE_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
}


class SmokeFailure(RuntimeError):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SmokeFailure(message)


def cli(*args: str) -> str:
    """Run the installed `longform-eval` console script; its stdout."""
    command = [str(Path(sys.executable).parent / "longform-eval"), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    check(done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def installed_not_checkout(checkout: Path) -> Path:
    origin = Path(importlib.util.find_spec("longform_eval.inference").origin).resolve()
    check(checkout.resolve() not in origin.parents, f"longform_eval imported from the checkout ({origin})")
    check("site-packages" in origin.parts, f"longform_eval not from site-packages ({origin})")
    return origin.parent.parent


def version_from_one_place(wheel: Path, sdist: Path) -> str:
    version = importlib.metadata.version(DISTRIBUTION)
    check(wheel.name.startswith(f"longform_eval-{version}-"), f"{wheel.name} is not version {version}")
    check(sdist.name == f"longform_eval-{version}.tar.gz", f"{sdist.name} is not version {version}")
    printed = cli("--version").strip()
    check(printed == f"longform-eval {version}", f"--version printed {printed!r}, the metadata says {version}")
    return version


def sdist_holds_the_sources(sdist: Path) -> None:
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for name in ("pyproject.toml", "metric/helloeval/checklist_weights.json", "spaces/app.py", "cards/_common.j2"):
        check(name in names, f"{sdist.name} lacks {name}")


def dataset_loads(data: Path) -> Path:
    import datasets

    cli("build", "hellobench", "--source", str(data / "hellobench"), "--out", "hellobench")
    rows = datasets.load_dataset("hellobench", "chat")["test"].num_rows
    check(rows == CHAT_ROWS, f"load_dataset('hellobench', 'chat'): {rows} rows, expected {CHAT_ROWS}")
    return Path("hellobench").resolve()


def metrics_load_as_published(data: Path, version: str) -> None:
    """`publish --stage` writes the release's repos as they would be uploaded; each metric Space folder is loaded
    with `evaluate.load` through the doctests of its module (its card's examples), from a `metric/` folder here."""
    cli("publish", "--org", ORG, "--stage", "release", "--source", str(data))
    Path("metric").mkdir()
    for name in METRICS:
        published = Path("release") / "spaces" / ORG / name
        check((published / f"{name}.py").is_file(), f"the release has no metric Space {ORG}/{name}")
        requirements = (published / "requirements.txt").read_text(encoding="utf-8")
        pin = f"{DISTRIBUTION}[space]=={version}"  # the Space serves the metric's page with the package's gradio
        check(pin in requirements.splitlines(), f"{name}/requirements.txt is not pinned to {pin}: {requirements!r}")
        card = (published / "README.md").read_text(encoding="utf-8")
        check(f'evaluate.load("{ORG}/{name}")' in card, f"{name}/README.md does not load the published {ORG}/{name}")
        (Path("metric") / name).symlink_to(published.resolve(), target_is_directory=True)
        results = module_doctests(Path("metric") / name / f"{name}.py")
        check(results.failed == 0 and results.attempted >= 2, f"{name}: doctests {results}")


def module_doctests(script: Path) -> doctest.TestResults:
    spec = importlib.util.spec_from_file_location(script.stem, script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(module):
        runner.run(test)
    return runner.summarize(verbose=False)


def released(data: Path, kind: str) -> list[dict]:
    with gzip.open(data / "hellobench" / kind / "main_exp" / "gpt4o_0806" / "chat_results.jsonl.gz", "rt") as handle:
        return [json.loads(line) for line in handle]


def replay_file(path: Path, pairs) -> Path:
    path.write_text("".join(json.dumps({"key": key, "text": text}) + "\n" for key, text in pairs), encoding="utf-8")
    return path


def replay_run(data: Path, dataset: Path) -> Path:
    """GPT-4o's released chat responses as the model, its released verdicts as the judge, end to end."""
    model = replay_file(Path("model.jsonl"), ((r["id"], r["response"]) for r in released(data, "generations")))
    judge = replay_file(
        Path("judge.jsonl"),
        ((r["id"], json.dumps(r["checklist_wise_evaluation"])) for r in released(data, "judgements")),
    )
    out = Path("run")
    cli(
        "run", "--benchmark", "hellobench:chat", "--limit", str(RUN_LIMIT), "--dataset", str(dataset),
        "--model", f"replay:{model}", "--judge", f"replay:{judge}", "--out", str(out),
    )  # fmt: skip
    scores = json.loads(next(out.glob("**/scores.json")).read_text(encoding="utf-8"))
    check(scores.get("n_scored") == RUN_LIMIT, f"replay run scored {scores.get('n_scored')} rows of {RUN_LIMIT}")
    check("overall" in scores.get("intervals", {}), "replay run: scores.json has no interval for its headline")
    check(any(out.glob("**/report.md")), "replay run wrote no report.md")
    return next(out.glob("**/config.yaml")).parent


def missing_extra_names_this_wheel(wheel: Path) -> None:
    """A missing extra's hint works from this install (issue 49): torch's CPU build first, then this wheel file with
    the extra (before the release `pip install 'longform-eval[local]'` finds nothing), no line over 100 characters."""
    from longform_eval.inference.backends import MissingExtraError, create_backend
    from longform_eval.inference.config import ModelSpec

    try:
        create_backend(ModelSpec(backend="local", model="default"))
    except MissingExtraError as error:
        lines = str(error).splitlines()
    else:
        raise SmokeFailure("local:default started without the local extra")
    commands = [line.strip() for line in lines if line.startswith("  ")]
    wheels = {f"pip install '{path}[local]'" for path in (wheel, wheel.resolve())}
    check(
        len(commands) == 2 and commands[0].startswith("first: pip install torch==2.13.0") and commands[1] in wheels,
        "the local extra's hint does not name torch, then this wheel:\n" + "\n".join(lines),
    )
    check(max(map(len, lines)) <= 100, "a line of the hint is over 100 characters:\n" + "\n".join(lines))


def space_starts(run: Path) -> None:
    from longform_eval.spaces.app import arena_from_settings, build_app

    arena = arena_from_settings([str(run)], db=str(Path("votes.sqlite").resolve()))
    build_app(arena)
    check(arena.pool.models() != [], "the Space's arena holds no model from the replay run")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the benchmark data (../shared/data)")
    parser.add_argument("--wheel", type=Path, required=True)
    parser.add_argument("--sdist", type=Path, required=True)
    parser.add_argument("--checkout", type=Path, required=True, help="the checkout the wheel must NOT be read from")
    args = parser.parse_args()
    os.environ.update(OFFLINE)
    try:
        installed = installed_not_checkout(args.checkout)
        print(f"ok  imported from {installed}")
        version = version_from_one_place(args.wheel, args.sdist)
        print(f"ok  version {version}: --version, wheel and sdist agree")
        missing_extra_names_this_wheel(args.wheel)
        print("ok  a missing extra names torch's CPU build, then this wheel file, in lines of at most 100 characters")
        sdist_holds_the_sources(args.sdist)
        print("ok  the sdist holds the sources and package data")
        dataset = dataset_loads(args.data)
        print(f"ok  build hellobench --source; load_dataset(..., 'chat'): {CHAT_ROWS} rows")
        metrics_load_as_published(args.data, version)
        print(f"ok  publish --stage; evaluate.load of {', '.join(METRICS)} as published: card doctests pass")
        run = replay_run(args.data, dataset)
        print(f"ok  replay run end to end: {run}")
        space_starts(run)
        print("ok  the Space's app imports and builds over the run")
    except SmokeFailure as failure:
        print(f"FAILED  {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
