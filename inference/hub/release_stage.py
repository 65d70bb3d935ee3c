"""Write a release's repos to a local folder instead of the Hub (`publish --stage DIR`).

Layout as on the Hub's URLs: `DIR/datasets/ORG/NAME/...` and `DIR/spaces/ORG/NAME/...`, byte for byte what an
upload would send; a metric's folder loads with `evaluate.load("DIR/spaces/ORG/<name>")`. DIR must be new, empty,
or an earlier stage (its marker lists every file in it); it is written in a staging sibling and swapped in whole.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from longform_eval.common.atomic import write_bytes_atomic
from longform_eval.common.errors import OutputFolderError
from longform_eval.common.owned import (
    listed_files,
    read_listing,
    shown,
    unlisted_entries,
    write_listing,
)
from longform_eval.common.staging import remove_dead_staging, staging_folder
from longform_eval.dataset_builder.folder import protected_folders, replace_folder

from .release_plan import Release

STAGE_MARKER = ".longform-eval-release.json"


def staged_files(release: Release) -> dict[str, bytes]:
    """Every file of the release under its staged path (`<type>s/ORG/NAME/<path in repo>`)."""
    return {f"{repo.folder}/{path}": data for repo in release.repos for path, data in repo.files.items()}


def check_stage_folder(out: str | Path) -> Path:
    """`out` resolved, or OutputFolderError if it holds anything an earlier `--stage` did not write."""
    target = Path(out).expanduser().resolve()
    protected = protected_folders()
    if target in protected:
        raise OutputFolderError(f"--stage {out}: refusing to replace {target}, which is {protected[target]}")
    if not (target.exists() or target.is_symlink()):
        return target
    if target.is_symlink() or not target.is_dir():
        raise OutputFolderError(f"--stage {out}: {target} exists and is not a folder; choose a new folder")
    try:
        files = listed_files(target, STAGE_MARKER)
    except OSError as error:
        raise OutputFolderError(f"--stage {out}: cannot read {target} ({error.strerror or error})") from error
    if files is None:
        raise OutputFolderError(f"--stage {out}: {stage_problem(target)}; choose a new or empty folder")
    return target


def stage_problem(target: Path) -> str:
    """Why the non-empty `target` is not an earlier stage that may be replaced."""
    listing = read_listing(target, STAGE_MARKER)
    if listing is None:
        return f"{target} is not empty and is not a release staged by `publish --stage` (no readable {STAGE_MARKER})"
    unlisted = unlisted_entries(target, [*listing["files"], STAGE_MARKER])
    return f"{target} is an earlier stage but also holds files it did not write: {shown(unlisted)}"


def stage_release(release: Release, out: str | Path) -> Path:
    """Write every repo of `release` under `out` (replacing an earlier stage) and return the folder."""
    target = check_stage_folder(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_dead_staging(target, STAGE_MARKER)
    staging = staging_folder(target)
    files = staged_files(release)
    try:
        fields = {"written_by": "longform-eval publish --stage", "org": release.org, "version": release.version}
        write_listing(staging, STAGE_MARKER, fields, files)  # first: a killed run's staging can be cleaned up
        for name, data in files.items():
            write_bytes_atomic(staging / name, data)
        staging.chmod(0o755)
        replace_folder(staging, target, STAGE_MARKER, "--stage", ("stage", "staged"))
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)  # made by this call a moment ago (mkdtemp, private)
        raise
    return target
