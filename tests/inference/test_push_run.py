"""Runs shared on the Hub: `push-run RUN --repo ORG/NAME [--path-in-repo P]` uploads a finished run folder with a
dataset card, and `report hf://datasets/ORG/NAME[/P]` reads it back, against the local Hub stand-in
(tests/hub_standin.py) through huggingface_hub's own client. The run: 3 HelloBench chat prompts, GPT-4o's released
responses judged by replaying its released verdicts."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import huggingface_hub
import pytest
import yaml
from hub_standin import FAKE_TOKEN
from huggingface_hub import HfApi

from longform_eval.inference.cli import main, parser
from longform_eval.inference.hub.sources import checked_repo_id, local_path
from longform_eval.spaces.run_folders import read_runs

from .conftest import chat_run, replayed_chat_run

TIMEOUT = 180
REPO = "org/hello-run"
HEADLINE = re.compile(r"^Headline: .*$", re.M)


def cli(hub, tmp_path: Path, *args: str, offline: bool = False) -> subprocess.CompletedProcess:
    """`longform-eval ARGS` in a subprocess whose huggingface_hub talks to the stand-in (with a cache of its own)."""
    env = hub.env(tmp_path / "hf") | ({"HF_HUB_OFFLINE": "1"} if offline else {})
    return subprocess.run(
        [sys.executable, "-m", "longform_eval.inference", *args],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


@pytest.fixture(scope="module")
def finished_run(gpt4o_replays, tmp_path_factory) -> Path:
    return replayed_chat_run(gpt4o_replays, tmp_path_factory.mktemp("push") / "run", 3)


@pytest.fixture
def run_copy(finished_run, tmp_path) -> Path:
    """A copy of the finished run this test may add files to."""
    return Path(shutil.copytree(finished_run, tmp_path / "run"))


@pytest.fixture
def online(hub, monkeypatch, tmp_path):
    """This process's huggingface_hub pointed at the stand-in, online, with a token and an empty cache of its own."""
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_TOKEN", FAKE_TOKEN)
    hub.patch_client(monkeypatch)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "cache"))
    return HfApi(endpoint=hub.url, token=FAKE_TOKEN)


def card_header(text: str) -> dict:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def downloads(hub) -> list[str]:
    return [path for method, path in hub.requests if "/resolve/" in path and method == "GET"]


def cache_state(repo_cache: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry of a repo's snapshots/ and blobs/ in the HF cache, links not followed: (inode, mtime_ns, size).
    A file written there (through a snapshot's link or by replacing it) changes its entry."""
    entries = [path for part in ("snapshots", "blobs") for path in (repo_cache / part).rglob("*")]
    return {
        str(path.relative_to(repo_cache)): (s.st_ino, s.st_mtime_ns, s.st_size)
        for path in entries
        for s in [path.lstat()]
    }


# ----- push-run, then report hf:// ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_push_run_then_report_hf_reproduces_the_local_headline(hub, finished_run, tmp_path):
    """The issue's "must show", as a user runs it: two commands, each its own process, talking to the Hub."""
    pushed = cli(hub, tmp_path, "push-run", str(finished_run), "--repo", REPO)
    assert pushed.returncode == 0, pushed.stderr
    assert f"pushed {finished_run} to {hub.url}/datasets/{REPO}" in pushed.stdout
    (tmp_path / "elsewhere").mkdir()
    fetch = f"from longform_eval.inference.hub.sources import checked_repo_id, local_path; local_path('hf://datasets/{REPO}')"
    fetched = subprocess.run([sys.executable, "-c", fetch], env=hub.env(tmp_path / "elsewhere/hf"), timeout=TIMEOUT)
    assert fetched.returncode == 0
    repo_cache = tmp_path / "elsewhere/hf/hub/datasets--org--hello-run"
    cached = cache_state(repo_cache)
    assert any(name.startswith("blobs/") for name in cached)
    reported = cli(hub, tmp_path / "elsewhere", "report", f"hf://datasets/{REPO}")
    assert reported.returncode == 0, reported.stderr
    copy = tmp_path / "elsewhere/runs/hf" / REPO
    assert reported.stdout.splitlines()[0] == str(Path("runs/hf") / REPO / "report.md")
    local_headline = HEADLINE.search((finished_run / "report.md").read_text()).group()
    assert HEADLINE.search((copy / "report.md").read_text()).group() == local_headline
    assert re.search(r"\*\*(.+?)\*\*", local_headline).group(1) in reported.stdout  # the leaderboard's score column
    assert cache_state(repo_cache) == cached  # the report read the cache and wrote nothing there


def test_push_run_uploads_the_run_files_byte_for_byte_with_a_card(online, hub, run_copy, capsys):
    (run_copy / ".lock").write_text("123\n")  # a command's lock, a temporary file and a stranger: never uploaded
    (run_copy / ".scores.json.abc.tmp").write_text("{")
    (run_copy / "notes.txt").write_text("mine\n")
    assert main(["push-run", str(run_copy), "--repo", REPO]) == 0
    files = hub.files(REPO)
    left = (".lock", ".scores.json.abc.tmp", "notes.txt", "derived.json", ".plots.json")  # the last two: caches
    shared = {p.name: p.read_bytes() for p in run_copy.iterdir() if p.name not in left}
    ours = ("README.md", ".gitattributes", "results.jsonl")
    assert {name: data for name, data in files.items() if name not in ours} == shared
    assert {"config.yaml", "generations.jsonl", "judgements.jsonl", "scores.json", "report.md", "rows.json.gz"} <= set(
        files
    )
    assert any(name.endswith(".png") for name in files)

    card = files["README.md"].decode()
    header = card_header(card)
    assert "longform-eval" in header["tags"] and "hellobench" in header["tags"] and header["license"] == "other"
    assert [c["config_name"] for c in header["configs"]] == ["results", "generations", "judgements", "scores"]
    assert header["configs"][0]["default"] is True
    figure = re.search(r"\*\*(.+?)\*\*", HEADLINE.search((run_copy / "report.md").read_text()).group()).group(1)
    assert f"**Headline: {figure}**" in card and re.fullmatch(r"-?[\d.]+ \[-?[\d.]+, -?[\d.]+\]", figure)
    for said in ("hellobench:chat", "replay:", "max_new_tokens 16384", "temperature 0.8", "0.1.0", "(paper: gpt-4o)"):
        assert said in card, said
    assert capsys.readouterr().out.splitlines()[-1] == f"read it back: longform-eval report hf://datasets/{REPO}"

    served = len(hub.requests)
    assert main(["push-run", str(run_copy), "--repo", REPO]) == 0
    assert capsys.readouterr().out.startswith(f"unchanged: {REPO} already holds {run_copy} byte for byte")
    assert len(hub.commits(REPO)) == 2  # the repo's initial commit, then the push: the second push committed nothing
    assert not [path for _, path in hub.requests[served:] if "/preupload/" in path or "/commit/" in path]

    (run_copy / "score_per_task.png").unlink()  # a plot the run no longer has is removed with the next push
    assert main(["push-run", str(run_copy), "--repo", REPO]) == 0
    assert "score_per_task.png" not in hub.files(REPO) and len(hub.commits(REPO)) == 3
    assert sorted(hub.commits(REPO)[-1]["paths"]) == ["README.md", "score_per_task.png"]  # its card lists the files


def test_path_in_repo_keeps_several_runs_in_one_repo(online, hub, run_copy, tmp_path, capsys):
    for path in ("runs/x", "runs/y"):
        assert main(["push-run", str(run_copy), "--repo", REPO, "--path-in-repo", path, "--private"]) == 0
    assert hub.is_private(REPO)
    files = hub.files(REPO)
    assert files["runs/x/scores.json"] == files["runs/y/scores.json"] == (run_copy / "scores.json").read_bytes()
    assert "runs/x/README.md" in files and "config.yaml" not in files
    root = files["README.md"].decode()
    assert "[`runs/x`](runs/x/README.md)" in root and "[`runs/y`](runs/y/README.md)" in root
    assert {c["config_name"] for c in card_header(root)["configs"]} == {
        "results",
        "runs-x-generations",
        "runs-x-judgements",
        "runs-x-scores",
        "runs-y-generations",
        "runs-y-judgements",
        "runs-y-scores",
    }
    capsys.readouterr()

    assert main(["report", f"hf://datasets/{REPO}/runs/x", "--out", str(tmp_path / "shared-x")]) == 0
    local_headline = HEADLINE.search((run_copy / "report.md").read_text()).group()
    assert HEADLINE.search((tmp_path / "shared-x/report.md").read_text()).group() == local_headline
    caches = (".longform-eval-hub-copy.json", ".plots.json", "derived.json")  # the copy's and the report's own
    copied = sorted(p.name for p in (tmp_path / "shared-x").iterdir() if p.name not in caches)
    assert copied == sorted(n.removeprefix("runs/x/") for n in files if n.startswith("runs/x/") and "README" not in n)
    capsys.readouterr()

    assert main(["report", f"hf://datasets/{REPO}/runs/z"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"longform-eval report: error: hf://datasets/{REPO}/runs/z: no 'runs/z' in the dataset repo {REPO}"
    )


def test_a_card_push_run_did_not_write_is_left_alone(online, hub, run_copy, capsys):
    online.create_repo(REPO, repo_type="dataset")
    online.upload_file(path_or_fileobj=b"# My results\n", path_in_repo="README.md", repo_id=REPO, repo_type="dataset")
    assert main(["push-run", str(run_copy), "--repo", REPO]) == 0
    assert hub.files(REPO)["README.md"] == b"# My results\n" and "scores.json" in hub.files(REPO)
    assert capsys.readouterr().err.strip() == (
        "note: README.md: left as it is (a card push-run did not write); the run's files were pushed"
    )


def test_push_run_refuses_a_repo_folder_that_holds_something_else(online, hub, run_copy, capsys):
    online.create_repo(REPO, repo_type="dataset")
    online.upload_file(path_or_fileobj=b"a,b\n", path_in_repo="data/train.csv", repo_id=REPO, repo_type="dataset")
    assert main(["push-run", str(run_copy), "--repo", REPO, "--path-in-repo", "data"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"longform-eval push-run: error: {REPO}: /data holds train.csv but no run (no config.yaml); push-run writes "
        "only into a new or empty folder or a run pushed before: give another --path-in-repo"
    )
    assert list(hub.files(REPO)) == ["data/train.csv"]


def test_push_run_refuses_to_replace_another_run(online, hub, run_copy, gpt4o_replays, tmp_path, capsys):
    generations, verdicts = gpt4o_replays
    other = tmp_path / "other"
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(other))) == 0
    assert main(["push-run", str(run_copy), "--repo", REPO, "--path-in-repo", "runs/x"]) == 0
    pushed = hub.files(REPO)
    capsys.readouterr()
    assert main(["push-run", str(other), "--repo", REPO, "--path-in-repo", "runs/x"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"longform-eval push-run: error: {REPO}: /runs/x holds another run (its config.yaml differs in dataset_hash, "
        "selection); push-run replaces only the same run pushed before: give another --path-in-repo"
    )
    assert hub.files(REPO) == pushed
    assert main(["push-run", str(other), "--repo", REPO, "--path-in-repo", "runs/y"]) == 0  # beside it: fine


def test_push_run_deletes_only_files_its_earlier_push_listed(online, hub, run_copy):
    assert main(["push-run", str(run_copy), "--repo", REPO, "--path-in-repo", "runs/x"]) == 0
    for path in ("runs/x/extra.png", "runs/x/notes.txt"):  # uploaded by hand beside the run: never push-run's
        online.upload_file(path_or_fileobj=b"mine", path_in_repo=path, repo_id=REPO, repo_type="dataset")
    (run_copy / "score_per_task.png").unlink()
    assert main(["push-run", str(run_copy), "--repo", REPO, "--path-in-repo", "runs/x"]) == 0
    files = hub.files(REPO)
    assert "runs/x/score_per_task.png" not in files
    assert files["runs/x/extra.png"] == files["runs/x/notes.txt"] == b"mine"
    assert "`runs/x/extra.png`" not in files["runs/x/README.md"].decode()  # the card lists only what it pushed

    plots = sorted(p.name for p in run_copy.glob("*.png"))
    card = b"# my notes on this run\n"  # a card push-run did not write: it records nothing push-run may delete
    online.upload_file(path_or_fileobj=card, path_in_repo="runs/x/README.md", repo_id=REPO, repo_type="dataset")
    (run_copy / plots[0]).unlink()
    assert main(["push-run", str(run_copy), "--repo", REPO, "--path-in-repo", "runs/x"]) == 0
    assert f"runs/x/{plots[0]}" in hub.files(REPO) and hub.files(REPO)["runs/x/README.md"] == card


@pytest.mark.parametrize(
    "scores,problem",
    [
        (b"{", "not valid JSON"),
        (b"{}", "not a scores file (a JSON object with benchmark, model, ...)"),
    ],
)
def test_a_damaged_run_already_in_the_repo_is_one_line_naming_it(online, hub, run_copy, capsys, scores, problem):
    assert main(["push-run", str(run_copy), "--repo", REPO, "--path-in-repo", "runs/x"]) == 0
    online.upload_file(path_or_fileobj=scores, path_in_repo="runs/x/scores.json", repo_id=REPO, repo_type="dataset")
    capsys.readouterr()
    assert main(["push-run", str(run_copy), "--repo", REPO, "--path-in-repo", "runs/y"]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error
    assert error.startswith(f"longform-eval push-run: error: hf://datasets/{REPO}/runs/x/scores.json: {problem}")
    assert "runs/y/config.yaml" not in hub.files(REPO)


# ----- what push-run refuses, before any Hub call -----------------------------------------------------------------
def test_push_run_refuses_a_folder_that_is_not_a_finished_run(gpt4o_replays, tmp_path, capsys, hub):
    assert main(["push-run", str(tmp_path), "--repo", REPO]) == 2
    assert capsys.readouterr().err.strip() == (
        f"longform-eval push-run: error: {tmp_path / 'config.yaml'}: not a run folder (no config.yaml)"
    )
    generations, verdicts = gpt4o_replays
    out = tmp_path / "half"
    assert main(["generate", *chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out))[1:]]) == 0
    assert main(["push-run", str(out), "--repo", REPO]) == 2
    assert "scores.json: missing" in capsys.readouterr().err
    assert main(["score", str(out)]) == 1  # judge calls still pending
    capsys.readouterr()
    assert main(["push-run", str(out), "--repo", REPO]) == 2
    assert capsys.readouterr().err.strip() == (
        f"longform-eval push-run: error: {out}: not finished (0 generations and 2 judge calls pending); finish it "
        "with the command that made it (`run`, `generate` or `judge`), then `score` and `report`, before sharing it"
    )
    assert hub.requests == []


def test_dry_run_lists_the_files_and_cards_and_calls_nothing(run_copy, capsys, hub):
    (run_copy / ".lock").write_text("1\n")
    assert main(["push-run", str(run_copy), "--repo", REPO, "--path-in-repo", "runs/x/", "--dry-run"]) == 0
    listed = capsys.readouterr().out
    for name in ("config.yaml", "generations.jsonl", "judgements.jsonl", "scores.json", "report.md", "README.md"):
        assert f"  runs/x/{name}  (" in listed, name
    assert "\n  README.md  (the repo's card" in listed and ".lock" not in listed
    assert "\n  results.jsonl  (the results table: one row per run in the repo" in listed
    assert hub.requests == []


# ----- nothing goes up that the run did not write (issue 46) ---------------------------------------------------------
SECRET_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"


@pytest.mark.parametrize("name", ["report.md", "per_task.png", "judgements.jsonl", "notes.txt"])
def test_push_run_refuses_a_link_in_the_run_folder_and_uploads_nothing(online, hub, run_copy, tmp_path, capsys, name):
    """`ln -s ~/.ssh/id_rsa RUN/report.md`: the link is named and refused, the key never read, no Hub call made."""
    private = tmp_path / "id_rsa"
    private.write_text(SECRET_KEY)
    (run_copy / name).unlink(missing_ok=True)
    (run_copy / name).symlink_to(private)
    hub.requests.clear()
    assert main(["push-run", str(run_copy), "--repo", REPO]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"longform-eval push-run: error: {run_copy / name}: is a symbolic link; push-run uploads only files the run "
        "wrote and follows no link: replace it with the file itself or move it out of the run folder"
    )
    assert hub.requests == [] and ("dataset", REPO) not in hub.repos()


def test_push_run_refuses_a_png_report_did_not_draw_without_reading_it(online, hub, run_copy, capsys):
    """A 1.5 GB sparse `big_plot.png` is named and refused at once: neither read nor uploaded."""
    with open(run_copy / "big_plot.png", "wb") as big:
        big.truncate(1536 * 1024 * 1024)
    hub.requests.clear()
    assert main(["push-run", str(run_copy), "--repo", REPO]) == 2
    assert f"{run_copy / 'big_plot.png'}: a PNG that `longform-eval report` did not draw" in capsys.readouterr().err
    assert hub.requests == []


def test_push_run_refuses_a_drawn_plot_changed_since(online, hub, run_copy, capsys):
    plot = next(run_copy.glob("*.png"))
    plot.write_bytes(plot.read_bytes() + b"appended by hand")
    assert main(["push-run", str(run_copy), "--repo", REPO]) == 2
    assert f"{plot}: a PNG that `longform-eval report` did not draw (or one changed since" in capsys.readouterr().err
    assert main(["report", str(run_copy)]) == 0  # drawn again: ours once more
    capsys.readouterr()
    assert main(["push-run", str(run_copy), "--repo", REPO]) == 0
    assert plot.name in hub.files(REPO)


def test_push_run_refuses_a_run_file_past_its_ceiling_without_reading_it(online, hub, run_copy, capsys):
    with open(run_copy / "generations.jsonl", "r+b") as log:
        log.truncate(1536 * 1024 * 1024)  # sparse: 1.5 GB that would cost 1.5 GB of memory to read
    hub.requests.clear()
    assert main(["push-run", str(run_copy), "--repo", REPO]) == 2
    err = capsys.readouterr().err
    assert f"{run_copy / 'generations.jsonl'}: larger than 1073741824 bytes (the ceiling for a run log" in err
    assert hub.requests == []


def test_what_is_uploaded_is_the_bytes_read_once(online, hub, run_copy, monkeypatch):
    """The bytes checked for secrets are the bytes committed: a file swapped after the plan is not what goes up."""
    from longform_eval.inference.hub import push_run as pushing

    plan = pushing.plan_push(run_copy, REPO)
    (run_copy / "report.md").write_text(SECRET_KEY)
    pushing.push_run(plan)
    assert hub.files(REPO)["report.md"] == plan.data["report.md"] != SECRET_KEY.encode()


@pytest.mark.parametrize(
    "args,why",
    [
        (["--repo", "no-slash"], "--repo must be a repo id ORG/NAME, not 'no-slash' (no '/' between"),
        (["--repo", "a/b/c"], "--repo must be a repo id ORG/NAME, not 'a/b/c' (Repo id must be in the form"),
        (["--repo", "org/a--b"], "--repo must be a repo id ORG/NAME, not 'org/a--b' (Cannot have -- or .."),
        (["--repo", REPO, "--path-in-repo", "runs/../x"], "--path-in-repo 'runs/../x': expected a folder path"),
        (["--repo", REPO, "--path-in-repo", "a\nb"], "--path-in-repo 'a\\nb': expected a folder path"),  # issue 37
        (["--repo", REPO, "--path-in-repo", "runs/a\u202eb"], "--path-in-repo 'runs/a\\u202eb': expected a folder"),
    ],
)
def test_push_run_refuses_a_bad_repo_or_path(run_copy, capsys, args, why):
    assert main(["push-run", str(run_copy), *args]) == 2
    assert capsys.readouterr().err.startswith(f"longform-eval push-run: error: {why}")


# ----- hf:// paths: downloaded once, cached, offline from the cache ------------------------------------------------
def test_a_hub_path_is_downloaded_once_and_read_offline_from_the_cache(online, hub, run_copy, monkeypatch):
    online.create_repo(REPO, repo_type="dataset")
    online.upload_folder(repo_id=REPO, repo_type="dataset", folder_path=run_copy, path_in_repo="runs/x")
    folder = local_path(f"hf://datasets/{REPO}/runs/x")
    assert folder.name == "x" and (folder / "scores.json").read_bytes() == (run_copy / "scores.json").read_bytes()
    fetched = len(downloads(hub))
    assert fetched == len(list(run_copy.iterdir()))
    assert local_path(f"hf://datasets/{REPO}/runs/x") == folder and len(downloads(hub)) == fetched  # no new download
    (shared,), (local,) = read_runs([folder]), read_runs([run_copy])  # as the Space reads it, in the cache
    assert (shared.model, shared.responses) == (local.model, local.responses) and len(local.responses) == 3

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    served = len(hub.requests)
    assert local_path(f"hf://datasets/{REPO}/runs/x") == folder and len(hub.requests) == served
    with pytest.raises(FileNotFoundError) as refused:
        local_path("hf://datasets/org/never-fetched")
    assert str(refused.value) == (
        "hf://datasets/org/never-fetched: not in the local Hugging Face cache and offline mode is on (HF_HUB_OFFLINE); "
        "unset it to download the repo"
    )


def test_a_missing_repo_is_one_line(online):
    with pytest.raises(FileNotFoundError, match=r"^hf://datasets/org/nothing: no dataset repo org/nothing on http"):
        local_path("hf://datasets/org/nothing")


def test_the_endpoint_in_a_message_is_masked(online, hub, monkeypatch):
    """An endpoint that carries a password (a proxy's, say) is named without it."""
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", hub.url.replace("http://", "http://user:secret@"))
    with pytest.raises(FileNotFoundError) as missing:
        local_path("hf://datasets/org/nothing")
    assert f"on http://***@{hub.url.removeprefix('http://')} (or it is private" in str(missing.value)
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", "http://user:secret@127.0.0.1:9")
    with pytest.raises(FileNotFoundError) as unreachable:
        local_path("hf://datasets/org/never-fetched")
    assert str(unreachable.value).endswith("the Hub at http://***@127.0.0.1:9 cannot be reached")


@pytest.mark.parametrize(
    "value", ["hf://models/org/name", "hf://org/name", "hf://datasets/org", "hf://datasets/org/name/../x", "hf://"]
)
def test_a_malformed_hub_path_is_refused_naming_it(value):
    with pytest.raises(ValueError, match=f"^{re.escape(value)}: not a Hub dataset path; expected hf://datasets/ORG"):
        local_path(value)


def test_a_hub_path_with_an_invalid_repo_id_is_refused_naming_it():
    with pytest.raises(ValueError) as refused:
        local_path("hf://datasets/org/na--me/runs/x")
    assert str(refused.value) == (
        "hf://datasets/org/na--me/runs/x: not a Hub dataset path: the repo must be a repo id ORG/NAME, not "
        "'org/na--me' (Cannot have -- or .. in repo_id)"
    )


@pytest.mark.parametrize(
    "value,reason",
    [
        ("org", "no '/' between the owner and the name"),
        ("a/b/c", "Repo id must be in the form 'repo_name' or 'namespace/repo_name'"),
        ("org/-name", "Repo id must use alphanumeric chars, '-', '_' or '.'"),
    ],
)
def test_checked_repo_id_names_the_value_and_what_it_is(value, reason):
    assert checked_repo_id("org/name.v-1_2", "--repo") == "org/name.v-1_2"
    with pytest.raises(ValueError) as refused:
        checked_repo_id(value, "LONGFORM_EVAL_VOTES_REPO")
    assert str(refused.value).startswith(
        f"LONGFORM_EVAL_VOTES_REPO must be a repo id ORG/NAME, not {value!r} ({reason}"
    )


def test_a_local_path_is_returned_unchanged(tmp_path):
    assert local_path(tmp_path) == tmp_path and local_path("runs/x") == Path("runs/x")


def test_report_and_space_take_hub_paths_as_text_and_refuse_bad_ones(capsys):
    assert parser().parse_args(["space", "--runs", "hf://datasets/o/n/runs/x", "runs/b"]).runs == [
        "hf://datasets/o/n/runs/x",
        Path("runs/b"),
    ]
    assert parser().parse_args(["report", "hf://datasets/o/n"]).folders == ["hf://datasets/o/n"]
    assert main(["report", "hf://models/o/n"]) == 2
    assert capsys.readouterr().err.strip() == (
        "longform-eval report: error: argument FOLDER: hf://models/o/n: not a Hub dataset path; expected "
        "hf://datasets/ORG/NAME[@REVISION][/PATH]"
    )
