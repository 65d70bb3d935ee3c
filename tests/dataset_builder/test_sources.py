from __future__ import annotations

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


def test_environment_variable_comes_before_the_shared_copy(tmp_path, monkeypatch):
    (tmp_path / "hellobench").mkdir()
    monkeypatch.setenv(sources.SOURCE_ENV, str(tmp_path))
    assert resolve_source("hellobench", None, PINNED) == tmp_path / "hellobench"


def test_shared_copy_beside_the_checkout_is_found(shared_data, monkeypatch):
    monkeypatch.delenv(sources.SOURCE_ENV, raising=False)
    assert resolve_source("longgenbench", None, PINNED).resolve() == (shared_data / "longgenbench").resolve()


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
