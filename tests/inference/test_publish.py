"""`longform-eval publish`: what a release holds, its licence rules, --dry-run, --stage, and a real publish against the
local Hub stand-in (tests/hub_standin.py) read back with `load_dataset` and `evaluate.load` through HF_ENDPOINT."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import huggingface_hub
import pytest
import yaml
from hub_standin import FAKE_TOKEN
from huggingface_hub import HfApi
from huggingface_hub.hf_api import RepoFile
from huggingface_hub.utils.sha import git_hash

from longform_eval.common.errors import OutputFolderError
from longform_eval.dataset_builder import build
from longform_eval.dataset_builder.folder import package_version
from longform_eval.dataset_builder.hub import HubUnavailableError
from longform_eval.inference.cli import main
from longform_eval.inference.hub.licences import card_licence_section, dataset_licences
from longform_eval.inference.hub.publish import publish_release
from longform_eval.inference.hub.release import assemble_release
from longform_eval.inference.hub.release_plan import (
    Release,
    RepoPlan,
    arena_repo,
    dataset_repo,
    metric_card,
    metric_names,
    metric_repo,
    pin_requirements,
    refusal,
)
from longform_eval.inference.hub.release_stage import STAGE_MARKER, stage_release
from longform_eval.inference.hub.remote import changed_paths, is_same

ORG = "release-org"
METRICS = ["helloeval", "longbench_write", "longgenbench", "pairwise"]
FREE = {"hellobench", "longbench_write"}
RESTRICTED = {"longgenbench", "tencentllmeval"}
TIMEOUT = 600
REPO_LINE = re.compile(r"^(dataset|space) (\S+) \((public|private), ([^,]+), (\d+) files?\)$")
FILE_LINE = re.compile(r"^  (\S+)\s+([\d,]+) bytes?$")


def listed_repos(stdout: str) -> dict[tuple[str, str], dict]:
    """The repos a `publish --dry-run/--stage` listing names: (type, id) -> visibility, role and {path: size}."""
    repos: dict[tuple[str, str], dict] = {}
    current = None
    for line in stdout.splitlines():
        if match := REPO_LINE.match(line):
            current = repos[(match[1], match[2])] = {"visibility": match[3], "role": match[4], "files": {}}
            assert int(match[5]) >= 3, line
        elif (match := FILE_LINE.match(line)) and current is not None:
            current["files"][match[1]] = int(match[2].replace(",", ""))
    return repos


def staged(folder: Path, repo_type: str, repo_id: str) -> dict[str, bytes]:
    root = folder / f"{repo_type}s" / repo_id
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def cli(hub, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """`longform-eval ARGS` in a subprocess whose huggingface_hub, datasets and evaluate talk to the stand-in."""
    return subprocess.run(
        [sys.executable, "-m", "longform_eval.inference", *args],
        env=hub.env(tmp_path / "hf"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


@pytest.fixture
def online(hub, monkeypatch):
    """In this process: offline mode off and huggingface_hub's client pointed at the stand-in."""
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    return HfApi(endpoint=hub.url, token=FAKE_TOKEN)


def test_requirements_pin_this_version_and_keep_the_rest():
    text = "longform-eval[openai]\ngradio==6.31.0\n"
    assert pin_requirements(text, "1.2.3", ["space"]) == "longform-eval[openai,space]==1.2.3\ngradio==6.31.0\n"
    assert pin_requirements("evaluate>=0.4.3\nlongform-eval>=0.0.1\n", "1.2.3") == (
        "evaluate>=0.4.3\nlongform-eval==1.2.3\n"
    )
    with pytest.raises(ValueError, match="no longform-eval line"):
        pin_requirements("evaluate\n", "1.2.3")


def test_one_space_per_evaluate_module_with_its_script_card_app_and_pinned_requirements():
    version = package_version()
    assert metric_names() == METRICS
    for name in METRICS:
        repo = metric_repo(ORG, name, version)
        assert (repo.repo_type, repo.repo_id, repo.space_sdk) == ("space", f"{ORG}/{name}", "gradio")
        assert sorted(repo.files) == sorted([f"{name}.py", "README.md", "app.py", "requirements.txt"])
        source = resources.files(f"longform_eval.metric.{name}")
        assert repo.files[f"{name}.py"] == source.joinpath(f"{name}.py").read_bytes()
        assert repo.files["README.md"].startswith(b"---\n") and b"\nsdk: gradio\n" in repo.files["README.md"]
        assert f"longform-eval[space]=={version}" in repo.files["requirements.txt"].decode().splitlines()
        card = repo.files["README.md"].decode()
        assert f'evaluate.load("{ORG}/{name}")' in card and "<org>" not in card
        install = card.split("## How to Use", 1)[1].split("```python")[0]
        assert f"```bash\npip install longform-eval=={version}\n```" in install, name
        assert re.search(r"\]\(https://arxiv\.org/abs/\d{4}\.\d{5}\)", card), name
        assert repo.files["app.py"] == source.joinpath("app.py").read_bytes()
    arena = arena_repo(ORG, version)
    assert arena.repo_id == f"{ORG}/longform-eval-arena" and sorted(arena.files) == [
        "README.md",
        "app.py",
        "requirements.txt",
    ]
    assert f"longform-eval[openai,space]=={version}" in arena.files["requirements.txt"].decode().splitlines()


def test_a_metric_card_names_its_repo_and_datasets_and_pins_its_install():
    card = (
        b"---\nsdk: gradio\ndatasets:\n- <org>/hellobench\n- other/data\n---\n"
        b'pip install longform-eval\nevaluate.load("<org>/helloeval") and evaluate.load("<org>/other")\n'
    )
    published = (
        f"---\nsdk: gradio\ndatasets:\n- {ORG}/hellobench\n- other/data\n---\n"
        f'pip install longform-eval==1.2.3\nevaluate.load("{ORG}/helloeval") and evaluate.load("<org>/other")\n'
    )
    assert metric_card(card, f"{ORG}/helloeval", "1.2.3") == published.encode()


def test_a_metric_card_lists_only_the_datasets_the_release_publishes_in_public():
    card = (
        b"---\nsdk: gradio\ndatasets:\n- <org>/hellobench\n- <org>/tencentllmeval\n- other/data\n---\n"
        b'pip install longform-eval\nevaluate.load("<org>/helloeval")\n'
    )
    header = yaml.safe_load(metric_card(card, f"{ORG}/helloeval", "1.2.3", ["hellobench"]).decode().split("---")[1])
    assert header == {"sdk": "gradio", "datasets": [f"{ORG}/hellobench", "other/data"]}
    alone = b"---\nsdk: gradio\ndatasets:\n- <org>/tencentllmeval\n---\n"
    alone += b'pip install longform-eval\nevaluate.load("<org>/pairwise")\n'
    assert "datasets" not in yaml.safe_load(metric_card(alone, f"{ORG}/pairwise", "1.2.3", []).decode().split("---")[1])


def test_a_default_release_s_metric_cards_link_no_dataset_it_refused(shared_data):
    release = assemble_release(ORG, source=shared_data, datasets=["longbench_write", "longgenbench", "tencentllmeval"])
    public = {repo.repo_id for repo in release.repos if repo.repo_type == "dataset" and not repo.private}
    assert public == {f"{ORG}/longbench_write"}  # the other two are refused by their licences
    for repo in (repo for repo in release.repos if repo.role == "evaluate metric"):
        header = yaml.safe_load(repo.files["README.md"].decode().split("---")[1])
        assert {d for d in header.get("datasets") or [] if d.startswith(f"{ORG}/")} <= public, repo.repo_id


@pytest.mark.parametrize(
    ("card", "error"),
    [
        (
            b'---\ndatasets:\n- <org>/x\n---\npip install longform-eval\nevaluate.load("<org>/helloeval")\n',
            r'its code never says evaluate.load\("<org>/pairwise"\)',
        ),
        (
            b'---\nsdk: gradio\n---\npip install longform-eval\nevaluate.load("<org>/pairwise")\n',
            r"its YAML header names no datasets \(datasets: - <org>/DATASET\)",
        ),
        (
            b'---\ndatasets:\n- tencentllmeval\n---\npip install longform-eval\nevaluate.load("<org>/pairwise")\n',
            r"an entry of datasets: must be a repo id ORG/NAME, not 'tencentllmeval'",
        ),
        (
            b'---\ndatasets:\n- <org>/x\n---\npip install longform-eval[space]\nevaluate.load("<org>/pairwise")\n',
            r"no line `pip install longform-eval` to pin to version 1\.2\.3",
        ),
    ],
    ids=["code", "no-datasets", "dataset-not-a-repo-id", "no-install-line"],
)
def test_a_metric_card_that_cannot_be_published_as_it_is_is_refused(card, error):
    with pytest.raises(ValueError, match=rf"^metric/pairwise/README.md: {error}"):
        metric_card(card, f"{ORG}/pairwise", "1.2.3")


def test_a_refusal_quotes_the_licence_section_of_the_dataset_card():
    assert {name for name, licence in dataset_licences().items() if licence == "other"} == RESTRICTED
    tencent = refusal(ORG, "tencentllmeval")
    assert tencent.repo_id == f"{ORG}/tencentllmeval"
    assert "Academic research only" in tencent.reason and "--with-restricted" in tencent.reason
    assert "No license was declared upstream" in refusal(ORG, "longgenbench").reason
    assert card_licence_section("hellobench").startswith("MIT License")
    assert "not known to this release" in refusal(ORG, "someone_elses_benchmark").reason


def test_an_lfs_file_is_compared_by_its_sha256_a_regular_file_by_its_blob_id():
    data = b"PAR1" + bytes(range(256)) * 64
    pointer_oid = "0" * 40  # an LFS file's blob id is its pointer's, never the data's
    sha256 = hashlib.sha256(data).hexdigest()  # the Hub's LFS oid
    lfs = RepoFile(
        path="chat/test.parquet", size=134, oid=pointer_oid, lfs={"size": len(data), "oid": sha256, "pointerSize": 134}
    )
    assert is_same(lfs, data)
    assert not is_same(lfs, data + b"\n")
    regular = RepoFile(path="README.md", size=len(data), oid=git_hash(data))
    assert is_same(regular, data) and not is_same(regular, data[:-1]) and not is_same(None, data)
    remote = {"chat/test.parquet": lfs, "README.md": regular}
    assert changed_paths(remote, {"chat/test.parquet": data, "README.md": b"new", "app.py": data}) == [
        "README.md",
        "app.py",
    ]


def test_a_public_repo_that_should_be_private_is_refused_with_its_own_reason(online, hub):
    online.create_repo(f"{ORG}/tencentllmeval", repo_type="dataset")
    online.create_repo(f"{ORG}/pairwise", repo_type="space", space_sdk="gradio")
    restricted = RepoPlan("dataset", f"{ORG}/tencentllmeval", True, "dataset", {"README.md": b"x"}, restricted=True)
    with pytest.raises(ValueError) as refused:
        publish_release(Release(ORG, "0.0.0", [restricted], []), online, report=lambda line: None)
    assert str(refused.value) == (
        f"dataset {ORG}/tencentllmeval exists and is public, but its data has no open licence and goes only to a "
        "private repo: make it private on the Hub (or delete it) and publish again"
    )
    asked = metric_repo(ORG, "pairwise", package_version(), private=True)
    with pytest.raises(ValueError) as refused:
        publish_release(Release(ORG, "0.0.0", [asked], []), online, report=lambda line: None)
    assert str(refused.value) == (
        f"space {ORG}/pairwise exists and is public, but --private asks for private repos: make it private on the "
        "Hub (or delete it) and publish again, or publish without --private"
    )
    assert hub.files(f"{ORG}/tencentllmeval", "dataset") == {} and "app.py" not in hub.files(f"{ORG}/pairwise", "space")


@pytest.mark.parametrize(
    "args,value",
    [(["--org", "bad org"], "bad org/longform-eval-arena"), (["--org", "o", "--space-name", "a--b"], "o/a--b")],
)
def test_a_bad_org_or_space_name_is_one_line_before_anything_is_built(capsys, args, value):
    assert main(["publish", *args, "--dry-run"]) == 2
    assert capsys.readouterr().err.startswith(
        f"longform-eval publish: error: --org ORG with --space-name NAME must be a repo id ORG/NAME, not {value!r} ("
    )


def test_offline_publish_is_one_line_before_anything_is_built(capsys):
    assert main(["publish", "--org", ORG]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "offline mode is on" in error and error.startswith("longform-eval publish: error:")


def test_an_unreachable_hub_is_one_clear_error(online):
    release = Release(ORG, "0.0.0", [metric_repo(ORG, "pairwise", package_version())], [])
    with pytest.raises(HubUnavailableError, match="the Hub is unreachable"):
        publish_release(release, HfApi(endpoint="http://127.0.0.1:9", token=FAKE_TOKEN), report=lambda line: None)


def test_stage_writes_its_own_folder_and_refuses_one_it_did_not_write(tmp_path):
    version = package_version()
    release = Release(ORG, version, [metric_repo(ORG, "pairwise", version), arena_repo(ORG, version)], [])
    out = stage_release(release, tmp_path / "release")
    assert staged(out, "space", f"{ORG}/pairwise") == release.repos[0].files
    assert (out / STAGE_MARKER).is_file()
    assert stage_release(release, out) == out  # an earlier stage is replaced
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(OutputFolderError, match="also holds files it did not write: notes.txt"):
        stage_release(release, out)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "keep.txt").write_text("keep", encoding="utf-8")
    with pytest.raises(OutputFolderError, match="not a release staged by `publish --stage`"):
        stage_release(release, theirs)
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine" and sorted(p.name for p in theirs.iterdir()) == [
        "keep.txt"
    ]


def test_a_released_dataset_card_loads_from_its_repo_and_its_metrics_from_the_org(shared_data, tmp_path):
    release = assemble_release(ORG, source=shared_data, datasets=["longbench_write"])
    card = next(repo for repo in release.repos if repo.repo_type == "dataset").files["README.md"].decode()
    assert f'load_dataset("{ORG}/longbench_write", split="test")' in card
    assert f'evaluate.load("{ORG}/longbench_write")' in card
    assert f"```bash\npip install longform-eval=={release.version}\n```" in card  # the metric's modules, as released
    assert "path/to/" not in card and '"metric/' not in card and "`metric/" not in card
    unnamed = build("longbench_write", source=shared_data / "longbench_write", out=tmp_path / "lbw")
    with pytest.raises(ValueError, match=f"its code does not load {ORG}/longbench_write; build it with repo_id="):
        dataset_repo(ORG, "longbench_write", unnamed)


@pytest.mark.slow
def test_dry_run_lists_every_repo_and_file_and_sends_nothing(hub, tmp_path, shared_data):
    done = cli(hub, tmp_path, "publish", "--org", ORG, "--dry-run", "--source", str(shared_data))
    assert done.returncode == 0, done.stderr
    repos = listed_repos(done.stdout)
    assert {repo_id for kind, repo_id in repos if kind == "dataset"} == {f"{ORG}/{name}" for name in FREE}
    assert {repo_id for kind, repo_id in repos if kind == "space"} == {
        *(f"{ORG}/{name}" for name in METRICS),
        f"{ORG}/longform-eval-arena",
    }
    assert all(repo["visibility"] == "public" for repo in repos.values())
    hellobench = repos[("dataset", f"{ORG}/hellobench")]["files"]
    assert len(hellobench) == 12 and hellobench["chat/test.parquet"] > 0 and "README.md" in hellobench
    assert hellobench["released_responses/test.parquet"] > 0
    helloeval = repos[("space", f"{ORG}/helloeval")]["files"]
    assert helloeval["helloeval.py"] == len(metric_repo(ORG, "helloeval", package_version()).files["helloeval.py"])
    for name in RESTRICTED:
        assert re.search(rf"^refused: dataset {ORG}/{name}: licence 'other': .*--with-restricted", done.stdout, re.M)
    assert hub.requests == [] and hub.repos() == []


@pytest.mark.slow
def test_dry_run_with_restricted_lists_four_datasets_the_restricted_ones_private(shared_data, capsys):
    assert main(["publish", "--org", ORG, "--dry-run", "--with-restricted", "--source", str(shared_data)]) == 0
    repos = listed_repos(capsys.readouterr().out)
    datasets = {repo_id.split("/")[1]: repo for (kind, repo_id), repo in repos.items() if kind == "dataset"}
    assert set(datasets) == FREE | RESTRICTED
    assert {name for name, repo in datasets.items() if repo["visibility"] == "private"} == RESTRICTED
    assert sum(kind == "space" for kind, _ in repos) == 5


@pytest.mark.slow
def test_restricted_data_goes_only_to_a_private_repo(online, hub, shared_data):
    release = assemble_release(ORG, source=shared_data, with_restricted=True, datasets=["tencentllmeval"])
    publish_release(release, online, report=lambda line: None)
    assert hub.is_private(f"{ORG}/tencentllmeval", "dataset")
    assert not hub.is_private(f"{ORG}/helloeval", "space")
    online.create_repo("other-org/tencentllmeval", repo_type="dataset", private=False)
    release = assemble_release("other-org", source=shared_data, with_restricted=True, datasets=["tencentllmeval"])
    with pytest.raises(ValueError, match="exists and is public, but its data has no open licence"):
        publish_release(release, online, report=lambda line: None)
    assert hub.files("other-org/tencentllmeval", "dataset") == {}


LOAD_BACK = f"""
import datasets, evaluate
print("rows", datasets.load_dataset("{ORG}/hellobench", "chat")["test"].num_rows)
print("default rows", datasets.load_dataset("{ORG}/hellobench")["test"].num_rows)  # no config: the card's default
helloeval = evaluate.load("{ORG}/helloeval")
result = helloeval.compute(predictions=[[1, 1, 1, 1, 1, 1]], references=["report_write"])
print("score", result["chat"], result["n_unscored"])
"""


@pytest.mark.slow
def test_publish_then_load_from_the_hub_and_a_second_publish_commits_nothing(hub, tmp_path, shared_data):
    done = cli(hub, tmp_path, "publish", "--org", ORG, "--source", str(shared_data))
    assert done.returncode == 0, done.stderr
    assert sorted(hub.repos()) == sorted(
        [("dataset", f"{ORG}/{name}") for name in [*FREE, "longform-eval-arena-votes"]]
        + [("space", f"{ORG}/{name}") for name in [*METRICS, "longform-eval-arena"]]
    )
    assert len(re.findall(r": \d+ files updated \(commit \w+\)$", done.stdout, re.M)) == 7

    assert main(["publish", "--org", ORG, "--stage", str(tmp_path / "stage"), "--source", str(shared_data)]) == 0
    for repo_type, repo_id in hub.repos():
        assert hub.files(repo_id, repo_type) == staged(tmp_path / "stage", repo_type, repo_id), repo_id
        assert hub.is_private(repo_id, repo_type) == repo_id.endswith("-votes")  # the arena's votes: private

    loaded = subprocess.run(
        [sys.executable, "-c", LOAD_BACK],
        env=hub.env(tmp_path / "hf"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert loaded.returncode == 0, loaded.stderr
    assert "rows 147" in loaded.stdout and "default rows 647" in loaded.stdout and "score 100.0 0" in loaded.stdout

    commits = {repo: hub.commits(repo[1], repo[0]) for repo in hub.repos()}
    again = cli(hub, tmp_path, "publish", "--org", ORG, "--source", str(shared_data))
    assert again.returncode == 0, again.stderr
    assert len(re.findall(r": unchanged$", again.stdout, re.M)) == 7
    assert {repo: hub.commits(repo[1], repo[0]) for repo in hub.repos()} == commits
