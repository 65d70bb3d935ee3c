"""Every card of a published release runs as written: the whole release (`publish --with-restricted`) and a shared
run (`push-run`) go to the local Hub stand-in, then each README.md there has its ```python blocks run in a fresh
Python process whose datasets and evaluate reach the stand-in and nothing else, as a reader would run them.

Each of a card's blocks runs alone, in a fresh process: a reader copies one block, not the page.
```bash blocks are not run; but a card whose Python code imports longform_eval or loads one of the release's metrics
must say `pip install longform-eval==VERSION`, the release's version (here the installed one), so that the code stays
with the modules it was written against. One test per card of the release, named by its repo; one more (`others`) runs
every other README.md found there (one that another command adds), naming each that fails.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import huggingface_hub
import pytest
from hub_standin import FAKE_TOKEN, HubStandIn
from inference.conftest import chat_run, released, write_replay

from longform_eval.dataset_builder.folder import package_version
from longform_eval.dataset_builder.registry import BUILDERS
from longform_eval.inference.cli import main
from longform_eval.inference.hub.release_plan import DEFAULT_SPACE_NAME, metric_names

pytestmark = pytest.mark.slow

ORG = "card-org"
RESULTS = f"{ORG}/results"
TIMEOUT = 300
FENCE = re.compile(r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<code>.*?)^```[ \t]*$", re.M | re.S)
SHELLS = ("bash", "sh", "shell", "console")
VERSION = package_version()  # what publish pins every card's install line to
INSTALL = re.compile(rf"^\s*pip install\b.*\blongform[-_.]eval=={re.escape(VERSION)}\s*$", re.M | re.I)
NEEDS_PACKAGE = re.compile(rf"^\s*(?:from|import)\s+longform_eval\b|evaluate\.load\(\s*['\"]{re.escape(ORG)}/", re.M)
# A file of this repository (a Hub user has the package, not the checkout): a top-level folder or a design document.
REPO_PATH = re.compile(
    r"(?<![\w/.-])(?:bench|cards|dataset_builder|docs|inference|metric|spaces|tests|\.ci|\.github)/|\b(?:SPEC|DESIGN)\.md\b"
)
# Every other host is refused: the blocks may reach the stand-in (127.0.0.1) only.
NO_OUTSIDE = {
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "ALL_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "127.0.0.1,localhost",
}

CARDS = [
    *(("dataset", f"{ORG}/{name}") for name in sorted(BUILDERS)),
    *(("space", f"{ORG}/{name}") for name in metric_names()),
    ("space", f"{ORG}/{DEFAULT_SPACE_NAME}"),
    ("dataset", RESULTS),
]
OTHERS = ("any", "other card")  # every README.md on the stand-in not named in CARDS


def card_id(card: tuple[str, str]) -> str:
    return "others" if card == OTHERS else f"{card[0]}:{card[1]}"


@pytest.fixture(scope="module")
def published(shared_data, tmp_path_factory):
    """The stand-in holding the release for ORG (the restricted datasets too) and a finished run at ORG/results."""
    work = tmp_path_factory.mktemp("cards")
    run = finished_run(shared_data, work)
    with HubStandIn() as hub, pytest.MonkeyPatch.context() as monkeypatch:
        for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HF_TOKEN", FAKE_TOKEN)
        hub.patch_client(monkeypatch)
        monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(work / "cache"))
        release = ["publish", "--org", ORG, "--source", str(shared_data), "--with-restricted"]
        assert main(release) == 0
        assert main(["push-run", str(run), "--repo", RESULTS]) == 0
        yield hub


def finished_run(shared_data: Path, work: Path) -> Path:
    """3 HelloBench chat prompts: GPT-4o's released responses, judged by replaying its released verdicts."""
    generations = write_replay(
        work / "gen.jsonl", ((r["id"], r["response"]) for r in released(shared_data, "generations", "gpt4o_0806"))
    )
    verdicts = write_replay(
        work / "judge.jsonl",
        (
            (r["id"], json.dumps(r["checklist_wise_evaluation"], ensure_ascii=False))
            for r in released(shared_data, "judgements", "gpt4o_0806")
        ),
    )
    out = work / "run"
    assert main(chat_run(3, f"replay:{generations}", f"replay:{verdicts}", str(out))) == 0
    return out


def cards_on(hub) -> dict[tuple[str, str, str], str]:
    """Every README.md on the stand-in, in every repo and folder: (type, repo id, path) -> text."""
    return {
        (repo_type, repo_id, path): data.decode("utf-8")
        for repo_type, repo_id in hub.repos()
        for path, data in hub.files(repo_id, repo_type).items()
        if path.rsplit("/", 1)[-1] == "README.md"
    }


def blocks(card: str, *languages: str) -> list[str]:
    return [m["code"] for m in FENCE.finditer(card) if m["lang"].lower() in languages]


def run_block(hub, code: str, home: Path) -> subprocess.CompletedProcess:
    """One block alone in a fresh Python process: HF_HOME of its own, the stand-in as the Hub, offline off."""
    env = hub.env(home / "hf") | NO_OUTSIDE
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


@pytest.fixture(scope="module")
def card_problems(published, tmp_path_factory) -> dict[tuple[str, str, str], str | None]:
    """Every card on the stand-in -> why it does not work as written (None: it works). The cards run side by side,
    each in its own process (most of a card's time is `import evaluate`, which imports transformers and torch)."""
    cards = cards_on(published)
    home = tmp_path_factory.mktemp("readers")
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1)) as pool:
        problems = pool.map(lambda key: card_problem(published, key, cards[key], home), cards)
        return dict(zip(cards, problems, strict=True))


def test_every_card_named_here_is_on_the_hub(card_problems):
    """The cards named one by one exist (others, which other commands may add, are run by the `others` case)."""
    assert {(t, r, "README.md") for t, r in CARDS} <= set(card_problems)


def test_no_card_names_a_file_of_the_repository(published):
    named = {" ".join(key): REPO_PATH.findall(text) for key, text in cards_on(published).items()}
    assert {card: paths for card, paths in named.items() if paths} == {}


@pytest.mark.parametrize("card", [*CARDS, OTHERS], ids=card_id)
def test_the_python_blocks_of_a_card_run_as_written(card_problems, card):
    if card == OTHERS:
        chosen = sorted(key for key in card_problems if key[:2] not in CARDS or key[2] != "README.md")
    else:
        chosen = [(*card, "README.md")]
    failures = [problem for key in chosen if (problem := card_problems[key])]
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)


def card_problem(hub, key: tuple[str, str, str], text: str, home: Path) -> str | None:
    """Why the card `key` (type, repo id, path) does not work as written, or None."""
    where = f"{key[0]} {key[1]} {key[2]}"
    code = blocks(text, "python", "py")
    if NEEDS_PACKAGE.search("\n".join(code)) and not INSTALL.search("\n".join(blocks(text, *SHELLS))):
        return (
            f"{where}: its Python code needs longform-eval (imports it or loads an {ORG} metric) but no ```bash "
            f"block says `pip install longform-eval=={VERSION}`"
        )
    if not code:
        return None
    failures = []
    for number, block in enumerate(code, start=1):
        folder = home / "-".join(key).replace("/", "_") / str(number)
        folder.mkdir(parents=True)
        done = run_block(hub, block, folder)
        if done.returncode != 0:
            failures.append(
                f"{where}: python block {number} of {len(code)} failed alone (exit {done.returncode}):\n{block}\n"
                f"--- stderr:\n{done.stderr[-4000:]}"
            )
    return "\n\n".join(failures) or None
