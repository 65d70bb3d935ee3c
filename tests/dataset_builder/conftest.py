from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from longform_eval.dataset_builder import build


def folder_digest(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def copy_source(source: Path, target: Path) -> Path:
    """A writable copy of a benchmark source; its released generations (read-only, large) linked, its judgements
    left out."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("generations", "judgements"))
    if (source / "generations").is_dir():
        (target / "generations").symlink_to(source / "generations")
    return target


def linked_source(source: Path, target: Path, *editable: str) -> Path:
    """A benchmark source of links to the released files, with writable copies of the `editable` ones.

    The released judgements are left out.
    """
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if path.is_dir() or relative.parts[0] == "judgements":
            continue
        link = target / relative
        link.parent.mkdir(parents=True, exist_ok=True)
        if relative.as_posix() in editable:
            shutil.copyfile(path, link)
        else:
            link.symlink_to(path)
    assert all((target / name).is_file() and not (target / name).is_symlink() for name in editable), editable
    return target


@pytest.fixture(scope="session")
def hellobench_folder(shared_data, tmp_path_factory) -> Path:
    return build("hellobench", source=shared_data / "hellobench", out=tmp_path_factory.mktemp("hb") / "hellobench")


@pytest.fixture(scope="session")
def longgenbench_folder(shared_data, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lgb") / "longgenbench"
    return build("longgenbench", source=shared_data / "longgenbench", out=out, generate=True, seed=7)


@pytest.fixture(scope="session")
def tencent_folder(shared_data, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tle") / "tencentllmeval"
    return build("tencentllmeval", source=shared_data / "tencentllmeval", out=out)
