"""What a published Space needs besides its files: its variables (set by `publish` through the Hub's API), the secrets
its owner sets, the private dataset repos it writes (created private by `publish`) and the datasets it reads.

A Space reads variables and secrets from its settings on the Hub, not from a file in the repo (the Spaces config
reference has no key for them), so its card lists them: a staged or uploaded card says what the Space was given,
and its `datasets:` key links the datasets it reads. Pure: no network.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from longform_eval.dataset_builder.repo_ids import checked_repo_id

from .paths import DATASETS_PREFIX, parse_hub_path

DEFAULT_SPACE_NAME = "longform-eval-arena"  # the arena Space, ORG/NAME
# The arena Space's settings (spaces/app.py and spaces/hub_votes.py read them under these names).
RELEASED_VARIABLE = "LONGFORM_EVAL_RELEASED"
RUNS_VARIABLE = "LONGFORM_EVAL_RUNS"
VOTES_VARIABLE = "LONGFORM_EVAL_VOTES_REPO"
TOKEN_SECRET = "HF_TOKEN"
RELEASED_DATASET = "hellobench"  # its config `released_responses` holds HelloBench's released responses
VOTES_SUFFIX = "-votes"
SET_BY = "set by longform-eval publish"  # the description of every variable publish sets: which ones it may change
SETTINGS_HEADING = "## This Space's settings"


@dataclass(frozen=True)
class SpaceSettings:
    variables: dict[str, str]
    secrets: dict[str, str]  # name -> what it must allow; the Space's owner sets it (publish cannot know it)
    private_datasets: dict[str, str] = field(default_factory=dict)  # repo id -> why it must be private
    datasets: tuple[str, ...] = ()  # dataset repos it reads


def arena_settings(org: str, space_name: str, runs: Sequence[str] = (), votes_repo: str | None = None) -> SpaceSettings:
    """The arena Space's settings: what it pairs (the released HelloBench responses of ORG/hellobench, or the runs
    `runs`: `ORG/NAME[/PATH]` of results repos) and where it keeps its votes (default ORG/<space name>-votes).

    Raises:
        ValueError: naming the option, when a repo id or a run path is not of its form.
    """
    votes = checked_repo_id(votes_repo or f"{org}/{space_name}{VOTES_SUFFIX}", "--votes-repo")
    paths = [f"{DATASETS_PREFIX}{run.strip('/')}" for run in runs]
    for run, path in zip(runs, paths, strict=True):
        try:
            parse_hub_path(path)
        except ValueError:
            raise ValueError(f"--arena-runs {run!r}: expected ORG/NAME[@REVISION][/PATH] of a dataset repo") from None
    read = tuple(dict.fromkeys(parse_hub_path(path)[0] for path in paths))
    variables = {RUNS_VARIABLE: ":".join(paths)} if paths else {RELEASED_VARIABLE: f"{org}/{RELEASED_DATASET}"}
    variables[VOTES_VARIABLE] = votes
    read = read or (f"{org}/{RELEASED_DATASET}",)
    token = f"a Hugging Face token that can write the dataset repo {votes} (and read {', '.join(read)} if private)"
    why = "the arena's votes and annotations name their annotators"
    return SpaceSettings(variables, {TOKEN_SECRET: token}, {votes: why}, read)


def card_with_settings(card: bytes, settings: SpaceSettings, where: str) -> bytes:
    """The Space's card (`where` names it in errors) with the datasets it reads in its YAML header and a section
    listing its variables and secrets.

    Raises:
        ValueError: the card has no YAML header, or already has a `datasets:` key or the settings section.
    """
    text = card.decode("utf-8")
    head, separator, body = text.removeprefix("---\n").partition("\n---\n")
    if not text.startswith("---\n") or not separator:
        raise ValueError(f"{where}: no YAML header to name the Space's datasets in")
    if any(line.startswith("datasets:") for line in head.splitlines()) or SETTINGS_HEADING in body:
        raise ValueError(f"{where}: already names datasets or settings; publish writes them")
    datasets = "".join(f"\n- {repo_id}" for repo_id in settings.datasets)
    header = f"---\n{head}\ndatasets:{datasets}\n---\n" if datasets else f"---\n{head}\n---\n"
    return (header + body.rstrip("\n") + "\n\n" + settings_section(settings)).encode("utf-8")


def settings_section(settings: SpaceSettings) -> str:
    lines = [SETTINGS_HEADING, "", f"Variables of this Space ({SET_BY}, in the Space's settings):", ""]
    lines += [f"- `{key}`: `{value}`" for key, value in settings.variables.items()]
    lines += ["", "Secrets its owner sets in the Space's settings (the Space does not start without them):", ""]
    lines += [f"- `{key}`: {purpose}" for key, purpose in settings.secrets.items()]
    if settings.private_datasets:
        lines += ["", "Private dataset repos it writes (created private by publish; a public one is refused):", ""]
        lines += [f"- `{repo_id}`: {why}" for repo_id, why in settings.private_datasets.items()]
    return "\n".join(lines) + "\n"


def settings_lines(settings: SpaceSettings, secrets_from: dict[str, str] | None = None) -> list[str]:
    """The listing's lines for a Space's settings; `secrets_from`: the environment variables publish sets some
    secrets from (their values are never shown)."""
    lines = [f"  variable {key}={value}" for key, value in settings.variables.items()]
    for key, purpose in settings.secrets.items():
        source = (secrets_from or {}).get(key)
        lines.append(f"  secret {key}: " + (f"set from ${source}" if source else f"you set it: {purpose}"))
    lines += [f"  private dataset {repo_id}: created if missing" for repo_id in settings.private_datasets]
    return lines
