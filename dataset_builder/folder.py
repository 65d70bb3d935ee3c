"""Write a Hub-ready dataset folder (parquet per config + README card), atomically and reproducibly."""

from __future__ import annotations

import contextlib
import importlib.metadata
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from longform_eval.common.datasets_bars import without_datasets_bars
from longform_eval.common.errors import OutputFolderError
from longform_eval.common.owned import listed_files, read_listing, remove_listed, shown, unlisted_entries, write_listing
from longform_eval.common.staging import remove_dead_staging, retired_path, staging_folder

if TYPE_CHECKING:  # datasets (about a second) is imported by the functions that build a folder
    import datasets

    from .card import CardRepo, CardSpec
    from .tables import ConfigTable

MARKER = ".longform-eval-build.json"
DISTRIBUTION = "longform-eval"


def write_dataset_folder(
    out: str | Path,
    tables: Sequence[ConfigTable],
    card: CardSpec,
    dataset: str,
    overwrite: bool = False,
    keep: Sequence[Path] = (),
    repo: CardRepo | None = None,
) -> Path:
    """Build the folder in a staging sibling and move it into place only when complete.

    `out` must pass `check_output_folder`; `keep` are paths (the source files) that must survive the build.
    `repo` names the repo the card's code loads from (default: a placeholder for the local folder, see `card`).
    Staging folders of `out` left by killed builds are removed first (see `staging`).
    """
    from .card import CardRepo, render_card

    out = check_output_folder(out, dataset, overwrite, keep)
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_dead_staging(out, MARKER)
    staging = staging_folder(out)
    try:
        write_marker(staging, dataset, [*(table.data_path for table in tables), "README.md"])
        infos = {table.name: write_table(staging, table) for table in tables}
        render_card(tables, infos, card, repo or CardRepo(dataset), package_version()).save(staging / "README.md")
        write_marker(staging, dataset)
        staging.chmod(0o755)
        replace_folder(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)  # made by this call a moment ago (mkdtemp, private)
        raise
    return out


def write_table(folder: Path, table: ConfigTable) -> datasets.DatasetInfo:
    import datasets

    from .tables import SPLIT

    path = folder / table.data_path
    path.parent.mkdir(parents=True, exist_ok=True)
    dataset = table.to_dataset()
    with without_datasets_bars():
        dataset.to_parquet(str(path))
    num_bytes = dataset.data.nbytes
    splits = datasets.SplitDict()
    splits.add(datasets.SplitInfo(name=SPLIT, num_bytes=num_bytes, num_examples=dataset.num_rows))
    return datasets.DatasetInfo(
        features=table.features,
        splits=splits,
        download_size=path.stat().st_size,
        dataset_size=num_bytes,
    )


def replace_folder(
    staging: Path, out: Path, marker: str = MARKER, option: str = "--out", made_by: tuple[str, str] = ("build", "built")
) -> None:
    """Swap `staging` into `out`; an earlier `out` is moved aside, then only the files its `marker` lists are removed.

    Raises OutputFolderError (the new folder being in place) if the earlier one gained other files meanwhile; the
    message names the `option` that gave the folder and what writes it (`made_by`: the noun and the participle).
    """
    if not out.exists():
        staging.rename(out)
        return
    retired = retired_path(out, staging)
    out.rename(retired)
    try:
        staging.rename(out)
    except BaseException:
        retired.rename(out)
        raise
    try:
        files = listed_files(retired, marker)
    except OSError:
        files = None
    if files is None or not remove_listed(retired, files):
        raise OutputFolderError(
            f"{option} {out}: {made_by[1]}, but the earlier folder, moved to {retired}, holds files no {made_by[0]} "
            f"wrote (added during the {made_by[0]}) or that cannot be read; it was left as it is"
        )


def package_version() -> str:
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def write_marker(folder: Path, dataset: str, files: Sequence[str] | None = None) -> None:
    """Mark `folder` as a build of `dataset` listing its files (default: those in it); a later build may remove these.

    The marker is not named by the card's configs, so `load_dataset` and `push_to_hub` leave it out.
    """
    if files is None:
        files = [path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()]
    fields = {"dataset": dataset, "built_by": DISTRIBUTION, "version": package_version()}
    write_listing(folder, MARKER, fields, [name for name in files if name != MARKER])


def read_marker(folder: Path) -> dict | None:
    """The marker of an earlier build in `folder`, or None when there is none or it is unreadable."""
    marker = read_listing(folder, MARKER)
    return marker if marker is not None and isinstance(marker.get("dataset"), str) else None


def protected_folders() -> dict[Path, str]:
    """Folders a build never replaces (the current directory, the home folder, every parent of them) and why."""
    folders = {Path.cwd().resolve(): "the current directory"}
    with contextlib.suppress(RuntimeError):  # raised when no home folder can be determined
        folders.setdefault(Path.home().resolve(), "the home folder")
    protected = {}
    for folder, name in folders.items():
        for parent in folder.parents:
            protected.setdefault(parent, f"a parent of {name}")
    return {**protected, **folders}


def check_output_folder(out: str | Path, dataset: str, overwrite: bool = False, keep: Sequence[Path] = ()) -> Path:
    """Return `out` resolved, or raise OutputFolderError if building there could destroy anything a build did not write.

    Accepted: a missing or empty folder, or an earlier build of `dataset` holding nothing but the files its marker
    lists; with `overwrite`, also such a build of another dataset. Refused whatever `overwrite` says: anything
    else, the current directory, the home folder or a parent of either, and a folder that holds (or is) one of
    `keep`.
    """
    target = Path(out).expanduser().resolve()
    protected = protected_folders()
    if target in protected:
        raise OutputFolderError(
            f"--out {out}: refusing to replace {target}, which is {protected[target]}, even with --overwrite; "
            f"choose a new folder such as build/{dataset}"
        )
    for path in keep:
        kept = Path(path).expanduser().resolve()
        if kept == target or target in kept.parents:
            raise OutputFolderError(f"--out {out}: refusing to replace {target}, which holds the source {path}")
    if not (target.exists() or target.is_symlink()):
        return target
    try:
        problem = replace_problem(target, dataset, overwrite)
    except OSError as error:
        raise OutputFolderError(f"--out {out}: cannot read {target} ({error.strerror or error})") from error
    if problem:
        raise OutputFolderError(f"--out {out}: {problem}")
    return target


def replace_problem(target: Path, dataset: str, overwrite: bool = False) -> str | None:
    """Why a build must not replace the existing `target`, or None if it may."""
    never = "refusing to replace it, even with --overwrite (a build replaces only an empty folder or an earlier build)"
    if target.is_symlink() or not target.is_dir():
        return f"{target} exists and is not a folder; {never}"
    if not any(target.iterdir()):
        return None
    marker = read_marker(target)
    if marker is None:
        return f"{target} is not empty and is not a longform-eval build (no readable {MARKER}); {never}"
    unlisted = unlisted_entries(target, [*marker["files"], MARKER])
    if unlisted:
        return (
            f"{target} is a build of {marker['dataset']!r} but also holds files the build did not write: "
            f"{shown(unlisted)}; {never}. Move them away or choose a new folder"
        )
    if marker["dataset"] != dataset and not overwrite:
        return f"{target} is a build of {marker['dataset']!r}, not {dataset!r}; pass --overwrite to replace it"
    return None
