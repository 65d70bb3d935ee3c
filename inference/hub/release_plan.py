"""What a release holds: its repos (datasets, one Space per `evaluate` metric, the arena Space) and their files.

Pure: reads the package's own files and built dataset folders, never the network. Every file's bytes are
fixed here, so a dry run, a staged copy and an upload show the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import yaml

from longform_eval.common.install import DISTRIBUTION
from longform_eval.dataset_builder.hub import card_metadata, checked_repo_id, upload_files
from longform_eval.registry import benchmark_declarations

from .licences import check_built_licence, licence_of
from .space_settings import DEFAULT_SPACE_NAME, SpaceSettings, arena_settings, card_with_settings

METRIC_PACKAGE = "longform_eval.metric"
SPACE_PACKAGE = "longform_eval.spaces"
SPACE_FILES = ("app.py", "README.md", "requirements.txt")
SPACE_EXTRAS = ("space",)
ORG_PLACEHOLDER = "<org>"  # in a Space card (its code, `datasets:` and prose), replaced by the org published to
REQUIREMENT = re.compile(r"^longform[-_.]eval\s*(?:\[(?P<extras>[^\]]*)\])?\s*(?P<spec>[^;#]*)$", re.IGNORECASE)
INSTALL_LINE = re.compile(rf"^pip install {DISTRIBUTION}[ \t]*$", re.MULTILINE)  # a card's unpinned install line


@dataclass
class RepoPlan:
    """One Hub repo of the release: its type, id, visibility and every file it holds (path in repo -> bytes)."""

    repo_type: str  # "dataset" or "space"
    repo_id: str
    private: bool
    role: str  # what it is, for the listing: "dataset", "evaluate metric", "arena Space"
    files: dict[str, bytes] = field(default_factory=dict)
    restricted: bool = False  # a dataset without an open licence: private whatever --private says
    settings: SpaceSettings | None = None  # a Space's variables, secrets and the repos it reads and writes

    @property
    def space_sdk(self) -> str | None:
        return "gradio" if self.repo_type == "space" else None

    @property
    def folder(self) -> str:
        """Where the repo lives, as on the Hub's URLs: `datasets/ORG/NAME` or `spaces/ORG/NAME`."""
        return f"{self.repo_type}s/{self.repo_id}"


@dataclass(frozen=True)
class Refusal:
    """A dataset left out of the release, and why (its licence terms)."""

    dataset: str
    repo_id: str
    reason: str


@dataclass
class Release:
    org: str
    version: str
    repos: list[RepoPlan]
    refused: list[Refusal]


def pin_requirements(text: str, version: str, extras: Sequence[str] = (), where: str = "requirements.txt") -> str:
    """`text` with its longform-eval line pinned to `longform-eval[extras]==version` (its own extras kept).

    Raises:
        ValueError: no line names longform-eval (the module could not import the package on the Hub).
    """
    lines, pinned = [], False
    for line in text.splitlines():
        match = REQUIREMENT.match(line.strip())
        if match:
            wanted = {e.strip() for e in (match.group("extras") or "").split(",") if e.strip()} | set(extras)
            line = DISTRIBUTION + (f"[{','.join(sorted(wanted))}]" if wanted else "") + f"=={version}"
            pinned = True
        lines.append(line)
    if not pinned:
        raise ValueError(f"{where}: no {DISTRIBUTION} line to pin to version {version}")
    return "\n".join(lines) + "\n"


def metric_packages() -> dict[str, str]:
    """The `evaluate` modules the benchmarks declare (`metric`: "package:folder"), each once: name -> its package,
    a folder holding `<name>.py` and a Space's files."""
    packages: dict[str, str] = {}
    for declaration in benchmark_declarations().values():
        if declaration.metric:
            package, _, name = declaration.metric.partition(":")
            packages.setdefault(name, f"{package}.{name}")
    return dict(sorted(packages.items()))


def metric_names() -> list[str]:
    return list(metric_packages())


def space_card_problem(card: str) -> str | None:
    """Why `card` (a README) is not a Space card: it needs a YAML header naming the gradio sdk and `app.py`."""
    if not card.startswith("---\n"):
        return "no YAML header"
    header = yaml.safe_load(card.split("---\n", 2)[1]) or {}
    for key, value in (("sdk", "gradio"), ("app_file", "app.py")):
        if header.get(key) != value:
            return f"its YAML header needs {key}: {value} (has {header.get(key)!r})"
    return None


def space_files(package: str, script: str | None, version: str, extras: Sequence[str]) -> dict[str, bytes]:
    """The files of a Space made from a package folder: `script` (if any), the card, app.py, pinned requirements."""
    root = resources.files(package)
    names = ([script] if script else []) + list(SPACE_FILES)
    files = {name: root.joinpath(name).read_bytes() for name in names}
    folder = package.replace(".", "/")
    problem = space_card_problem(files["README.md"].decode("utf-8"))
    if problem:
        raise ValueError(f"{folder}/README.md: not a Space card: {problem}")
    requirements = files["requirements.txt"].decode("utf-8")
    pinned = pin_requirements(requirements, version, extras, f"{folder}/requirements.txt")
    files["requirements.txt"] = pinned.encode("utf-8")
    return files


def metric_card(card: bytes, repo_id: str, version: str, linked: Collection[str] | None = None) -> bytes:
    """A metric's card as published to `repo_id` (ORG/NAME): its code loads `"ORG/NAME"` (`"<org>/NAME"` in the
    package), its YAML header's `datasets:` name ORG's datasets (`<org>/DATASET`; only those in `linked`, the
    datasets the release publishes in public, when given) and its install line pins `longform-eval==version`, the
    release whose modules the Space's script imports.

    Raises:
        ValueError: the card's code never loads `"<org>/NAME"` (a user could not copy it), its header names no
            `<org>/DATASET`, or it has no line `pip install longform-eval`.
    """
    org, name = repo_id.split("/")
    where = f"metric/{name}/README.md"
    text = card.decode("utf-8")
    if f'evaluate.load("{ORG_PLACEHOLDER}/{name}")' not in text:
        raise ValueError(f'{where}: its code never says evaluate.load("{ORG_PLACEHOLDER}/{name}")')
    text = with_org_datasets(text.replace(f'"{ORG_PLACEHOLDER}/{name}"', f'"{repo_id}"'), org, where, linked)
    return pinned_install(text, version, where).encode("utf-8")


def with_org_datasets(card: str, org: str, where: str, linked: Collection[str] | None = None) -> str:
    """`card` with the `<org>/DATASET` entries of its YAML header's `datasets:` written `ORG/DATASET`; with `linked`,
    an entry `<org>/DATASET` of a dataset not in it is left out (the Hub would link it to a repo no reader can open).

    Raises:
        ValueError: the header names no dataset, or an entry that is not a repo id.
    """
    head, _, body = card.removeprefix("---\n").partition("\n---\n")
    datasets = (yaml.safe_load(head) or {}).get("datasets")
    if not isinstance(datasets, list) or not datasets:
        raise ValueError(f"{where}: its YAML header names no datasets (datasets: - {ORG_PLACEHOLDER}/DATASET)")
    if linked is not None and any(not published(dataset, linked) for dataset in datasets):
        header = yaml.safe_load(head)
        header["datasets"] = [dataset for dataset in datasets if published(dataset, linked)]
        head = yaml.safe_dump({k: v for k, v in header.items() if v != []}, sort_keys=False, allow_unicode=True)
        head = head.rstrip("\n")
    head = head.replace(f"{ORG_PLACEHOLDER}/", f"{org}/")
    for dataset in (yaml.safe_load(head) or {}).get("datasets") or []:
        checked_repo_id(str(dataset), f"{where}: an entry of datasets:")
    return f"---\n{head}\n---\n{body}"


def published(dataset: str, linked: Collection[str]) -> bool:
    """Whether a card's `datasets:` entry is kept: another org's dataset, or one of ours in `linked`."""
    owner, _, name = str(dataset).partition("/")
    return owner != ORG_PLACEHOLDER or name in linked


def pinned_install(card: str, version: str, where: str) -> str:
    """`card` with its line `pip install longform-eval` pinned to `longform-eval==version`.

    Raises:
        ValueError: no such line (a reader would not know to install the package).
    """
    pinned, count = INSTALL_LINE.subn(f"pip install {DISTRIBUTION}=={version}", card)
    if not count:
        raise ValueError(f"{where}: no line `pip install {DISTRIBUTION}` to pin to version {version}")
    return pinned


def metric_repo(
    org: str, name: str, version: str, private: bool = False, linked: Collection[str] | None = None
) -> RepoPlan:
    """The Space `evaluate.load("ORG/<name>")` reads: `<name>.py` at its root, beside the card and the app that
    serves the metric (hence the Space's extras)."""
    package = metric_packages().get(name, f"{METRIC_PACKAGE}.{name}")
    files = space_files(package, f"{name}.py", version, SPACE_EXTRAS)
    files["README.md"] = metric_card(files["README.md"], f"{org}/{name}", version, linked)
    return RepoPlan("space", f"{org}/{name}", private, "evaluate metric", files)


def arena_repo(
    org: str, version: str, name: str = DEFAULT_SPACE_NAME, private: bool = False, settings: SpaceSettings | None = None
) -> RepoPlan:
    """The arena Space with its settings (default: `arena_settings`: the released HelloBench responses of
    ORG/hellobench, votes kept in ORG/<name>-votes), which its card lists; the card's `<org>/` become `ORG/`."""
    settings = settings or arena_settings(org, name)
    files = space_files(SPACE_PACKAGE, None, version, SPACE_EXTRAS)
    card = files["README.md"].replace(f"{ORG_PLACEHOLDER}/".encode(), f"{org}/".encode())
    files["README.md"] = card_with_settings(card, settings, "spaces/README.md")
    return RepoPlan("space", f"{org}/{name}", private, "arena Space", files, settings=settings)


def dataset_repo(org: str, dataset: str, folder: Path, private: bool = False) -> RepoPlan:
    """A built dataset folder as a repo: its card and every data file the card's configs name.

    Raises:
        ValueError: the card's code does not load the dataset from this repo (built without its repo id).
    """
    repo_id = f"{org}/{dataset}"
    check_built_licence(dataset, card_metadata(folder).get("license"))
    files = upload_files(folder)
    if f'load_dataset("{repo_id}"'.encode() not in files["README.md"]:
        raise ValueError(f"{folder / 'README.md'}: its code does not load {repo_id}; build it with repo_id={repo_id!r}")
    restricted = not licence_of(dataset).is_open
    return RepoPlan("dataset", repo_id, private or restricted, "dataset", files, restricted)


def split_by_licence(datasets: Iterable[str], with_restricted: bool) -> tuple[list[str], list[str]]:
    """The datasets to publish and those refused (restricted licences, unless `with_restricted`)."""
    chosen, refused = [], []
    for name in datasets:
        (chosen if with_restricted or licence_of(name).is_open else refused).append(name)
    return chosen, refused


def refusal(org: str, dataset: str) -> Refusal:
    terms = licence_of(dataset).terms()
    reason = f"{terms} (pass --with-restricted to publish it as a private repo)"
    return Refusal(dataset, f"{org}/{dataset}", reason)
