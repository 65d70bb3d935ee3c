"""`publish` gives the arena Space what it needs to open with pairs: what to pair (the released HelloBench responses of
ORG/hellobench, or named results repos), a private votes repo, its variables set through the Hub's API (against the
local Hub stand-in), the token secret named (or set from the publisher's environment, never shown)."""

from __future__ import annotations

import huggingface_hub
import pytest
import yaml
from hub_standin import FAKE_TOKEN
from huggingface_hub import HfApi

from longform_eval.dataset_builder.folder import package_version
from longform_eval.inference.cli import main
from longform_eval.inference.hub.publish import publish_release
from longform_eval.inference.hub.release_plan import Release, arena_repo
from longform_eval.inference.hub.space_settings import SET_BY, arena_settings
from longform_eval.spaces.app import run_paths
from longform_eval.spaces.hub_votes import REPO_VARIABLE

ORG = "release-org"
SPACE = f"{ORG}/longform-eval-arena"
VOTES = f"{ORG}/longform-eval-arena-votes"
DEFAULT = {"LONGFORM_EVAL_RELEASED": f"{ORG}/hellobench", "LONGFORM_EVAL_VOTES_REPO": VOTES}


@pytest.fixture
def online(hub, monkeypatch) -> HfApi:
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    return HfApi(endpoint=hub.url, token=FAKE_TOKEN)


def publish(api: HfApi, settings=None, secrets=None) -> list[str]:
    lines: list[str] = []
    release = Release(ORG, "0.0.0", [arena_repo(ORG, package_version(), settings=settings)], [])
    publish_release(release, api, report=lines.append, secret_values=secrets)
    return lines


def header(card: bytes) -> dict:
    return yaml.safe_load(card.decode().split("---\n")[1])


def test_by_default_the_arena_pairs_the_released_responses_of_org_hellobench():
    arena = arena_repo(ORG, package_version())
    assert arena.settings.variables == DEFAULT and REPO_VARIABLE == "LONGFORM_EVAL_VOTES_REPO"
    assert list(arena.settings.secrets) == ["HF_TOKEN"] and list(arena.settings.private_datasets) == [VOTES]
    card = arena.files["README.md"]
    assert header(card)["datasets"] == [f"{ORG}/hellobench"] and header(card)["app_file"] == "app.py"
    section = card.decode().split("## This Space's settings\n")[1]
    assert (
        f"- `LONGFORM_EVAL_RELEASED`: `{ORG}/hellobench`" in section
        and f"- `LONGFORM_EVAL_VOTES_REPO`: `{VOTES}`" in section
    )
    assert "- `HF_TOKEN`: a Hugging Face token that can write the dataset repo" in section
    assert "../shared" not in card.decode()
    prose = " ".join(card.decode().split("## This Space's settings\n")[0].split())  # the card's text, lines joined
    assert f"by default the released responses of `{ORG}/hellobench`" in prose and "<org>" not in card.decode()


def test_named_results_repos_become_hub_run_paths_the_space_splits_back():
    settings = arena_settings(ORG, "arena", ["o/results", "o/more@v1/runs/a/"], votes_repo="o/votes")
    runs = settings.variables["LONGFORM_EVAL_RUNS"]
    assert run_paths(runs) == ["hf://datasets/o/results", "hf://datasets/o/more@v1/runs/a"]
    assert "LONGFORM_EVAL_RELEASED" not in settings.variables and settings.variables[REPO_VARIABLE] == "o/votes"
    assert settings.datasets == ("o/results", "o/more") and list(settings.private_datasets) == ["o/votes"]
    assert arena_settings(ORG, "arena").variables[REPO_VARIABLE] == f"{ORG}/arena-votes"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--arena-runs", "o/ok", "not a repo"], "--arena-runs 'not a repo': expected ORG/NAME[@REVISION][/PATH]"),
        (["--votes-repo", "votes"], "--votes-repo must be a repo id ORG/NAME, not 'votes'"),
        (["--space-token-from-env", "LONGFORM_EVAL_NO_SUCH_VARIABLE"], "the environment variable"),
    ],
)
def test_a_bad_arena_option_is_one_line_before_anything_is_built(capsys, args, error):
    assert main(["publish", "--org", ORG, "--dry-run", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"longform-eval publish: error: {error}".split(": ", 1)[0]) and error in err
    assert err.count("\n") == 1


def test_publish_sets_the_variables_makes_the_votes_repo_private_and_names_the_secret(hub, online):
    lines = publish(online)
    assert hub.variables(SPACE) == DEFAULT and hub.is_private(VOTES) and hub.files(VOTES) == {}
    assert f"space {SPACE}: variables set: LONGFORM_EVAL_RELEASED, LONGFORM_EVAL_VOTES_REPO" in lines
    assert (
        f"space {SPACE}: set its secret HF_TOKEN at {hub.url}/spaces/{SPACE}/settings: a Hugging Face token"
        in (lines[-1])
    )
    assert online.get_space_variables(SPACE)["LONGFORM_EVAL_RELEASED"].description == SET_BY
    again = publish(online)
    assert again[0] == f"space {SPACE}: unchanged" and again[1] == f"space {SPACE}: variables unchanged"


def test_runs_replace_the_released_variable_set_by_publish_but_not_one_set_by_hand(hub, online):
    publish(online)
    online.add_space_variable(SPACE, REPO_VARIABLE, "someone/else")  # the owner's own choice: no description
    lines = publish(online, arena_settings(ORG, "longform-eval-arena", ["o/results"]))
    assert hub.variables(SPACE) == {REPO_VARIABLE: "someone/else", "LONGFORM_EVAL_RUNS": "hf://datasets/o/results"}
    assert f"space {SPACE}: variables {SET_BY} earlier, removed: LONGFORM_EVAL_RELEASED" in lines
    assert f"space {SPACE}: variable {REPO_VARIABLE}=someone/else kept: it was set by hand" in " ".join(lines)


def test_the_token_is_set_as_a_secret_and_never_reported(hub, online):
    lines = publish(online, secrets={"HF_TOKEN": "hf_writes_the_votes"})
    assert hub.secrets(SPACE) == {"HF_TOKEN": "hf_writes_the_votes"} and f"space {SPACE}: secret HF_TOKEN set" in lines
    assert not any("hf_writes_the_votes" in line for line in lines)
    assert f"space {SPACE}: secret HF_TOKEN already set" in publish(online)


def test_a_public_votes_repo_is_refused_before_anything_is_uploaded(hub, online):
    online.create_repo(VOTES, repo_type="dataset")  # public
    with pytest.raises(ValueError) as refused:
        publish(online)
    assert str(refused.value).startswith(f"dataset {VOTES} exists and is public, but the arena's votes and")
    assert ("space", SPACE) not in hub.repos() and not hub.is_private(VOTES)
