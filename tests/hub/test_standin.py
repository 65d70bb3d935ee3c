"""The local Hub stand-in, driven by the real huggingface_hub client in this process."""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.error import HTTPError

import pytest
from huggingface_hub import (
    CommitOperationAdd,
    CommitOperationDelete,
    CommitScheduler,
    HfApi,
    HfFileSystem,
    hf_hub_download,
    snapshot_download,
)
from huggingface_hub.errors import (
    EntryNotFoundError,
    HfHubHTTPError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)


@pytest.fixture
def api(hub, monkeypatch) -> HfApi:
    """huggingface_hub in this process, online and pointed at the stand-in (it read HF_HUB_OFFLINE at import)."""
    hub.patch_client(monkeypatch)
    return HfApi(endpoint=hub.url, token="x")


@pytest.fixture
def folder(tmp_path) -> Path:
    """A small folder with text, binary and nested files."""
    root = tmp_path / "folder"
    (root / "data" / "deep").mkdir(parents=True)
    (root / "README.md").write_text("---\nlicense: mit\n---\n# A folder\n", encoding="utf-8")
    (root / "data" / "rows.jsonl").write_text('{"a": 1}\n{"a": 2}\n', encoding="utf-8")
    (root / "data" / "deep" / "blob.bin").write_bytes(bytes(range(256)) * 64)
    (root / "empty.txt").write_bytes(b"")
    return root


def folder_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_create_repo_twice_answers_409_and_exist_ok_reuses_the_repo(hub, api):
    url = api.create_repo("org/data", repo_type="dataset", private=True)
    assert url == f"{hub.url}/datasets/org/data"
    again = api.create_repo("org/data", repo_type="dataset", exist_ok=True)
    assert (again.repo_type, again.repo_id) == ("dataset", "org/data")
    with pytest.raises(HfHubHTTPError) as raised:
        api.create_repo("org/data", repo_type="dataset")
    assert raised.value.response.status_code == 409
    api.create_repo("org/app", repo_type="space", space_sdk="gradio")
    api.create_repo("org/model")
    assert hub.repos() == [("dataset", "org/data"), ("space", "org/app"), ("model", "org/model")]
    assert hub.is_private("org/data", "dataset") and not hub.is_private("org/app", "space")
    assert api.space_info("org/app").sdk == "gradio"
    api.update_repo_settings("org/app", repo_type="space", private=True)
    assert hub.is_private("org/app", "space")


def test_a_private_repo_is_not_found_without_a_token(hub, api, folder):
    api.create_repo("org/secret", repo_type="dataset", private=True)
    api.upload_folder(folder_path=folder, repo_id="org/secret", repo_type="dataset")
    anonymous = HfApi(endpoint=hub.url, token=False)
    with pytest.raises(RepositoryNotFoundError):
        anonymous.dataset_info("org/secret")
    with pytest.raises(RepositoryNotFoundError):
        anonymous.hf_hub_download("org/secret", "README.md", repo_type="dataset", cache_dir=folder.parent / "c")
    assert api.dataset_info("org/secret").private is True


def test_upload_folder_lands_byte_for_byte_and_an_identical_upload_commits_nothing(hub, api, folder):
    api.create_repo("org/data", repo_type="dataset")
    first = api.upload_folder(folder_path=folder, repo_id="org/data", repo_type="dataset")
    assert hub.files("org/data") == folder_files(folder)
    history = hub.commits("org/data")
    assert [c["message"] for c in history] == ["initial commit", "Upload folder using huggingface_hub"]
    assert history[-1]["oid"] == first.oid and history[-1]["paths"] == sorted(folder_files(folder))

    second = api.upload_folder(folder_path=folder, repo_id="org/data", repo_type="dataset")
    assert second.oid == first.oid and hub.commits("org/data") == history

    (folder / "data" / "rows.jsonl").write_text('{"a": 3}\n', encoding="utf-8")
    third = api.upload_folder(folder_path=folder, repo_id="org/data", repo_type="dataset", commit_message="edit")
    assert hub.commits("org/data")[-1] == {"oid": third.oid, "message": "edit", "paths": ["data/rows.jsonl"]}
    assert hub.files("org/data", revision=first.oid)["data/rows.jsonl"] == b'{"a": 1}\n{"a": 2}\n'


def test_downloads_read_back_what_was_uploaded(hub, api, folder, tmp_path):
    api.create_repo("org/data", repo_type="dataset")
    commit = api.upload_folder(folder_path=folder, repo_id="org/data", repo_type="dataset")
    expected = folder_files(folder)
    assert sorted(api.list_repo_files("org/data", repo_type="dataset")) == sorted(expected)

    options = {"repo_type": "dataset", "endpoint": hub.url, "token": "x"}
    blob = hf_hub_download("org/data", "data/deep/blob.bin", cache_dir=tmp_path / "one", **options)
    assert Path(blob).read_bytes() == expected["data/deep/blob.bin"] and commit.oid in blob
    for revision in ("main", commit.oid):
        snapshot = Path(snapshot_download("org/data", revision=revision, cache_dir=tmp_path / revision, **options))
        assert folder_files(snapshot) == expected
    served = len(hub.requests)
    assert snapshot_download("org/data", cache_dir=tmp_path / "main", **options) == str(
        tmp_path / "main" / snapshot.relative_to(tmp_path / commit.oid)
    )
    assert not [path for _, path in hub.requests[served:] if "/resolve/" in path]

    with pytest.raises(EntryNotFoundError):
        hf_hub_download("org/data", "missing.txt", cache_dir=tmp_path / "one", **options)
    with pytest.raises(RevisionNotFoundError):
        hf_hub_download("org/data", "README.md", revision="nope", cache_dir=tmp_path / "one", **options)
    with pytest.raises(RepositoryNotFoundError):
        hf_hub_download("org/none", "README.md", cache_dir=tmp_path / "one", **options)


def test_commits_add_and_delete_files_and_folders_and_check_their_parent(hub, api, folder):
    api.create_repo("org/data", repo_type="dataset")
    base = api.upload_folder(folder_path=folder, repo_id="org/data", repo_type="dataset")
    operations = [
        CommitOperationDelete("data/"),
        CommitOperationDelete("empty.txt"),
        CommitOperationAdd("notes/new.txt", b"new"),
    ]
    done = api.create_commit(
        "org/data", operations, commit_message="reshape", repo_type="dataset", parent_commit=base.oid
    )
    assert sorted(hub.files("org/data")) == ["README.md", "notes/new.txt"]
    assert hub.commits("org/data")[-1]["oid"] == done.oid
    with pytest.raises(HfHubHTTPError) as stale:
        api.create_commit(
            "org/data",
            [CommitOperationAdd("x.txt", b"x")],
            commit_message="late",
            repo_type="dataset",
            parent_commit=base.oid,
        )
    assert stale.value.response.status_code == 412
    with pytest.raises(EntryNotFoundError):
        api.delete_file("gone.txt", "org/data", repo_type="dataset")
    assert hub.commits("org/data")[-1]["oid"] == done.oid


def test_branches_hold_their_own_files(hub, api, folder):
    api.create_repo("org/data", repo_type="dataset")
    for _ in range(2):
        api.create_branch("org/data", repo_type="dataset", branch="v1", exist_ok=True)
    api.upload_folder(folder_path=folder, repo_id="org/data", repo_type="dataset", revision="v1")
    assert hub.files("org/data", revision="v1") == folder_files(folder) and hub.files("org/data") == {}
    assert sorted(b.name for b in api.list_repo_refs("org/data", repo_type="dataset").branches) == ["main", "v1"]
    assert len(api.list_repo_commits("org/data", repo_type="dataset", revision="v1")) == 2


def test_concurrent_commits_all_land(hub, api):
    api.create_repo("org/data", repo_type="dataset")

    def upload(number: int) -> str:
        content = f"vote {number}\n".encode()
        return api.upload_file(
            path_or_fileobj=content, path_in_repo=f"votes/{number}.txt", repo_id="org/data", repo_type="dataset"
        ).oid

    with ThreadPoolExecutor(max_workers=8) as pool:
        oids = list(pool.map(upload, range(24)))
    assert hub.files("org/data") == {f"votes/{n}.txt": f"vote {n}\n".encode() for n in range(24)}
    assert sorted(c["oid"] for c in hub.commits("org/data")[1:]) == sorted(oids)


def test_a_client_killed_mid_commit_leaves_no_commit(hub, api):
    api.create_repo("org/data", repo_type="dataset")
    before = hub.commits("org/data")
    line = json.dumps({"key": "header", "value": {"summary": "half"}}).encode() + b"\n"
    head = "POST /api/datasets/org/data/commit/main HTTP/1.1\r\nAuthorization: Bearer x\r\n"
    head += f"Content-Length: {len(line) + 500}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", int(hub.url.rsplit(":", 1)[1])), timeout=10) as client:
        client.sendall(head.encode() + line)
    deadline = time.monotonic() + 10
    while ("POST", "/api/datasets/org/data/commit/main") not in hub.requests and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)  # the request is logged before its body is read
    api.upload_file(path_or_fileobj=b"whole", path_in_repo="a.txt", repo_id="org/data", repo_type="dataset")
    messages = [c["message"] for c in hub.commits("org/data")]
    assert messages == [c["message"] for c in before] + ["Upload a.txt with huggingface_hub"]


def test_commit_scheduler_pushes_a_folder(hub, api, tmp_path):
    votes = tmp_path / "votes"
    votes.mkdir()
    (votes / "votes-1.jsonl").write_text('{"vote": "A"}\n', encoding="utf-8")
    options = {"repo_id": "org/votes", "repo_type": "dataset", "folder_path": votes, "private": True, "hf_api": api}
    with CommitScheduler(every=10, **options) as scheduler:
        (votes / "votes-2.jsonl").write_text('{"vote": "B"}\n', encoding="utf-8")
        scheduler.trigger().result()  # queued behind the scheduler's own first push
        pushed = hub.commits("org/votes")
        os.utime(votes / "votes-1.jsonl", (1, 1))  # another mtime, the same bytes: the client finds nothing to commit
        scheduler.trigger().result()  # queued behind the scheduler's own first push
        assert hub.commits("org/votes") == pushed
    assert hub.is_private("org/votes", "dataset")
    assert hub.files("org/votes") == folder_files(votes)
    assert {c["message"] for c in hub.commits("org/votes")[1:]} == {"Scheduled Commit"}


def test_hf_file_system_lists_and_reads_ranges(hub, api, folder):
    api.create_repo("org/data", repo_type="dataset")
    api.upload_folder(folder_path=folder, repo_id="org/data", repo_type="dataset")
    fs = HfFileSystem(endpoint=hub.url, token="x")
    assert sorted(fs.ls("datasets/org/data", detail=False)) == [
        "datasets/org/data/README.md",
        "datasets/org/data/data",
        "datasets/org/data/empty.txt",
    ]
    assert fs.glob("datasets/org/data/**/*.bin") == ["datasets/org/data/data/deep/blob.bin"]
    assert fs.info("datasets/org/data/data/deep/blob.bin", expand_info=True)["last_commit"] is not None
    with fs.open("datasets/org/data/data/deep/blob.bin", "rb", block_size=100) as handle:
        handle.seek(300)
        assert handle.read(4) == bytes([44, 45, 46, 47])
    assert fs.cat("datasets/org/data/empty.txt") == b""


def test_resolve_answers_ranges_and_error_codes_as_the_hub_does(hub, api):
    api.create_repo("org/model")
    commit = api.upload_file(path_or_fileobj=b"0123456789", path_in_repo="digits.txt", repo_id="org/model")

    def get(path: str, **headers: str) -> tuple[int, bytes, dict]:
        request = urllib.request.Request(f"{hub.url}/{path}", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, answer.read(), dict(answer.headers)
        except HTTPError as error:
            return error.code, error.read(), dict(error.headers)

    status, body, headers = get("org/model/resolve/main/digits.txt", Range="bytes=2-4")
    assert (status, body, headers["Content-Range"]) == (206, b"234", "bytes 2-4/10")
    assert headers["X-Repo-Commit"] == commit.oid
    assert get("org/model/resolve/main/digits.txt", Range="bytes=-3")[:2] == (206, b"789")
    assert get("org/model/resolve/main/digits.txt", Range="bytes=10-")[0] == 416
    assert get(f"org/model/resolve/{commit.oid}/digits.txt")[:2] == (200, b"0123456789")
    for path, code in [
        ("org/model/resolve/main/nope.txt", "EntryNotFound"),
        ("org/model/resolve/dev/digits.txt", "RevisionNotFound"),
        ("datasets/org/model/resolve/main/digits.txt", "RepoNotFound"),
    ]:
        status, _, headers = get(path)
        assert (status, headers["X-Error-Code"]) == (404, code), path
