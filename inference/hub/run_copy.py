"""`longform-eval report hf://datasets/ORG/NAME[/PATH]`: the report of a run shared on the Hub, in a local copy.

A repo (or a folder of it) that holds several runs in folders, and none at its top, stands for those runs: each is
copied, and they are reported together, with their paired comparisons, as `report RUN1 RUN2` reports local runs.

The report writes report.md and plots into its run folder, and the Hub snapshot in the Hugging Face cache is
read-only (writing there would corrupt the cache). So a shared run is first copied, once per repo commit, into a
local run folder (default `runs/hf/ORG/NAME[@REVISION][/PATH]`, or `--out`), and reported there. A later `report` of
the same repo commit reuses that copy (and whatever was done in it since); a copy of an older commit is left as it
is and refused, so that nothing a user did in it is overwritten.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_bytes_atomic
from longform_eval.common.guarded import LOG, read_bytes
from longform_eval.common.owned import read_listing, write_listing
from longform_eval.common.plurals import counted

from ..runner.folder import CONFIG_FILE, RunFolderError, transient_name
from .paths import hub_path, is_hub_path, join, missing_folder, parse_hub_path
from .run_files import SCORES, is_run_file

MARKER = ".longform-eval-hub-copy.json"
DEFAULT_COPIES = Path("runs/hf")


def local_runs(sources: Sequence[str | Path], out: Path | None = None) -> list[Path]:
    """Each source as local run folders: a local path as it is, an `hf://` path as its local copy (made if needed),
    or the copies of the runs in it when it holds several.

    Raises:
        FileNotFoundError: a local folder that does not exist.
        ValueError: `out` given with other than one `hf://` run.
    """
    hub = [source for source in sources if is_hub_path(source)]
    if out is not None and len(hub) != 1:
        raise ValueError(f"--out names the local copy of one hf://datasets/... run, and {len(hub)} were given")
    for source in sources:
        if not is_hub_path(source) and not Path(source).exists():
            raise FileNotFoundError(missing_folder(source))
    runs = [run for source in sources for run in (hub_runs(str(source)) if is_hub_path(source) else [source])]
    if out is not None and len(runs) > len(sources):
        raise ValueError(
            f"--out names the local copy of one run, and {hub[0]} holds {len(runs) - len(sources) + 1}: name one of "
            "them, or leave --out out (each is copied to runs/hf/ORG/NAME/PATH)"
        )
    return [copy_run(str(s), out or default_copy(str(s))) if is_hub_path(s) else Path(s) for s in runs]


def hub_runs(source: str) -> list[str]:
    """The runs an `hf://` path names: itself if it is a run folder (or names none), else the run folders in it."""
    from .sources import local_path  # the Hub client, imported for an hf:// path only

    folder = local_path(source)
    if (folder / CONFIG_FILE).is_file() or not folder.is_dir():
        return [source]
    found = sorted(
        config.parent.relative_to(folder).as_posix()
        for config in folder.rglob(CONFIG_FILE)
        if (config.parent / SCORES).is_file()
    )
    if not found:
        return [source]
    repo_id, revision, path = parse_hub_path(source)
    print(f"{source}: {counted(len(found), 'run')} ({', '.join(found)})", file=sys.stderr)
    return [hub_path(repo_id, join(path, run), revision) for run in found]


def default_copy(source: str) -> Path:
    repo_id, revision, path = parse_hub_path(source)
    return DEFAULT_COPIES / (repo_id + (f"@{revision}" if revision else "")) / path


def copy_run(source: str, out: Path) -> Path:
    """`out` holding the run files of the Hub run `source`, at the repo's current commit."""
    from .sources import local_path

    snapshot = local_path(source)
    commit = snapshot_commit(snapshot, parse_hub_path(source)[2])
    if not (snapshot / CONFIG_FILE).is_file():
        raise FileNotFoundError(
            f"{source}: not a run folder (no {CONFIG_FILE}) and holds none; `longform-eval push-run` shares one"
        )
    earlier = earlier_copy(out, source)
    if earlier is not None and earlier.get("complete") and earlier.get("commit") == commit:
        print(f"{source}: reporting its local copy {out} (commit {commit[:12]})", file=sys.stderr)
        return out
    if earlier is not None and earlier.get("complete") and earlier.get("commit") != commit:
        raise RunFolderError(
            f"{out}: a copy of {source} at commit {str(earlier.get('commit'))[:12]}, and the repo is now at "
            f"{commit[:12]}; the copy is left as it is (it may hold work done since): give another --out"
        )
    names = sorted(e.name for e in snapshot.iterdir() if e.is_file() and is_run_file(e.name))
    out.mkdir(parents=True, exist_ok=True)
    write_listing(out, MARKER, {"source": source, "commit": commit, "complete": False}, names)
    for name in names:
        write_bytes_atomic(out / name, read_bytes(snapshot / name, LOG, decompress=False))  # through the guard
    write_listing(out, MARKER, {"source": source, "commit": commit, "complete": True}, names)
    print(f"{source}: copied to {out} (commit {commit[:12]}) to write its report there", file=sys.stderr)
    return out


def snapshot_commit(folder: Path, path: str) -> str:
    """The commit of a snapshot folder of the cache (`.../snapshots/<commit>/PATH`)."""
    for _ in path.split("/") if path else ():
        folder = folder.parent
    return folder.name


def earlier_copy(out: Path, source: str) -> dict[str, Any] | None:
    """The marker of an earlier copy of `source` in `out`; None for a new or empty folder; a RunFolderError for
    anything else (a file, someone's folder, a copy of another run)."""
    if out.exists() and not out.is_dir():
        raise RunFolderError(f"{out}: is a file, not a folder for the copy of {source}: give another --out")
    if not out.is_dir() or not any(entry for entry in out.iterdir() if not transient_name(entry.name)):
        return None
    marker = read_listing(out, MARKER)
    if marker is None or marker.get("source") != source:
        copy_of = f" (a copy of {marker.get('source')})" if marker else ""
        raise RunFolderError(
            f"{out}: not empty and not a copy of {source}{copy_of}; longform-eval copies a Hub run only into a new "
            "or empty folder or its own earlier copy: give another --out"
        )
    return marker


__all__ = ["copy_run", "default_copy", "hub_runs", "local_runs"]
