from __future__ import annotations

import http.server
import io
import json
import subprocess
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from longform_eval.dataset_builder import SourceUnavailableError, sources
from longform_eval.dataset_builder.sources import Upstream, download_upstream, resolve_source

PINNED = Upstream("someone/bench", "0123456789abcdef0123456789abcdef01234567")


def test_explicit_source_wins(tmp_path, monkeypatch):
    monkeypatch.setenv(sources.SOURCE_ENV, str(tmp_path / "env"))
    assert resolve_source("hellobench", tmp_path, PINNED) == tmp_path


def test_missing_explicit_source_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="--source"):
        resolve_source("hellobench", tmp_path / "nope", PINNED)


def test_environment_variable_names_the_local_copy(tmp_path, monkeypatch):
    (tmp_path / "hellobench").mkdir()
    monkeypatch.setenv(sources.SOURCE_ENV, str(tmp_path))
    assert resolve_source("hellobench", None, PINNED) == tmp_path / "hellobench"


def test_without_flag_or_variable_nothing_beside_the_checkout_is_searched(shared_data, tmp_path, monkeypatch):
    """The installed package knows nothing of this repository's sibling folders (../shared/data): it downloads."""
    monkeypatch.delenv(sources.SOURCE_ENV, raising=False)
    monkeypatch.chdir(shared_data.parent)  # where a checkout's ../shared would resolve from, were it looked for
    assert sources.local_candidates("longgenbench") == []
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "cache"))
    with pytest.raises(SourceUnavailableError, match=r"--source DIR") as raised:
        resolve_source("nobench", None, ClosedPort(PINNED.repo, PINNED.commit))
    assert "shared" not in str(raised.value)


class ClosedPort(Upstream):
    @property
    def archive_url(self) -> str:
        return "http://127.0.0.1:9/archive.zip"  # nothing listens on the discard port here


def test_failed_download_says_which_flag_to_use(tmp_path, monkeypatch):
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(sources.SOURCE_ENV, str(tmp_path / "empty"))
    with pytest.raises(SourceUnavailableError, match=r"--source DIR"):
        download_upstream("nobench", ClosedPort(PINNED.repo, PINNED.commit))
    assert not (tmp_path / "cache" / "nobench-0123456789ab").exists()


def test_a_cached_download_is_reused(tmp_path, monkeypatch):
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path))
    cached = tmp_path / "nobench-0123456789ab"
    cached.mkdir()
    assert download_upstream("nobench", ClosedPort(PINNED.repo, PINNED.commit)) == cached


def zip_archive(files: dict[str, bytes]) -> bytes:
    payload = io.BytesIO()
    with zipfile.ZipFile(payload, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return payload.getvalue()


@dataclass(frozen=True)
class Served(Upstream):
    address: str = ""

    @property
    def archive_url(self) -> str:
        return self.address


@pytest.fixture
def serve(monkeypatch):
    """serve(payload) -> an Upstream whose archive is `payload`, served over HTTP on 127.0.0.1."""
    monkeypatch.setenv("no_proxy", "*")
    servers = []

    def start(payload: bytes) -> Served:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                self.send_response(200)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return Served(PINNED.repo, PINNED.commit, f"http://127.0.0.1:{server.server_port}/archive.zip")

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def killed_download(folder: Path, files: dict[str, bytes], listed: list[str]) -> Path:
    folder.mkdir()
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (folder / sources.DOWNLOAD_MARKER).write_text(json.dumps({"archive": "x", "files": listed}))
    return folder


def test_a_download_removes_the_staging_of_killed_downloads_only(tmp_path, monkeypatch, serve):
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path))
    upstream = serve(zip_archive({"bench-0123/README.md": b"# bench\n", "bench-0123/data/a.jsonl": b"{}\n"}))
    dead = subprocess.Popen(["true"])
    dead.wait()
    live = subprocess.Popen(["sleep", "60"])
    try:
        listed = ["bench-0123", "bench-0123/README.md", "bench-0123/data/a.jsonl"]
        partial = {"bench-0123/README.md": b"# bench\n"}
        removed = killed_download(tmp_path / f".nobench-0123456789ab.tmp-{dead.pid}-abcd1234", partial, listed)
        running = killed_download(tmp_path / f".nobench-0123456789ab.tmp-{live.pid}-abcd1234", partial, listed)
        foreign = killed_download(tmp_path / f".nobench-0123456789ab.tmp-{dead.pid}-efgh5678", {"mine": b"x"}, listed)
        target = download_upstream("nobench", upstream)
    finally:
        live.kill()
        live.wait()
    assert target == tmp_path / "nobench-0123456789ab"
    assert (target / "data" / "a.jsonl").read_bytes() == b"{}\n"
    assert not removed.exists()
    assert (running / "bench-0123" / "README.md").is_file() and (foreign / "mine").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, running.name, foreign.name])


def test_an_archive_with_a_path_outside_its_folder_is_refused(tmp_path, monkeypatch, serve):
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "cache"))
    upstream = serve(zip_archive({"bench-0123/README.md": b"#\n", "../escaped.txt": b"x"}))
    with pytest.raises(SourceUnavailableError, match=r"archive\.zip: not the expected archive"):
        download_upstream("nobench", upstream)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == ["cache"]


def test_a_file_where_the_cached_copy_goes_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path))
    (tmp_path / "nobench-0123456789ab").write_text("mine\n")
    with pytest.raises(SourceUnavailableError, match=r"nobench-0123456789ab: expected the cached copy of nobench"):
        download_upstream("nobench", ClosedPort(PINNED.repo, PINNED.commit))
    assert (tmp_path / "nobench-0123456789ab").read_text() == "mine\n"
