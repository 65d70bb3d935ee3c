"""comparisons.json: written only into the folder `report --out DIR` names (never a folder guessed from the runs'
paths; without `--out` the comparison is printed and no file written). An existing file is replaced only if
`longform-eval report` wrote it for the same runs (the file records them, `runs`): another comparison is never
replaced silently.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.errors import OutputFileError
from longform_eval.common.guarded import DOCUMENT, read_cache_json
from longform_eval.common.owned import check_new_or_ours

from .comparison_groups import comparisons_document
from .comparisons import FILE, OURS, WRITTEN_BY, compared_runs


def comparisons_path(out: Path, folders: Sequence[Path] = ()) -> Path:
    """`out/comparisons.json`; an OutputFileError if a file there was not written by `longform-eval report`, or was
    written for other runs than `folders` (when given)."""
    path = check_new_or_ours(Path(out) / FILE, "the comparisons file", is_ours, OURS)
    if folders and path.is_file():
        earlier, given = compared_folders(path), run_ids(folders)
        if earlier != given:
            raise OutputFileError(
                f"--out {out}: refusing to replace {path}: it holds the comparison of other runs "
                f"({', '.join(earlier) or 'not recorded'}). Choose another --out, or move the file away yourself"
            )
    return path


def run_ids(folders: Sequence[Path]) -> list[str]:
    """The runs a comparisons.json compares, as it records them: absolute paths, sorted."""
    return sorted({str(Path(folder).resolve()) for folder in folders})


def compared_folders(path: Path) -> list[str]:
    """The runs an earlier comparisons.json (one `is_ours` took) compares."""
    document = read_cache_json(path, DOCUMENT)
    return sorted(document.get("runs") or []) if isinstance(document, dict) else []


def is_ours(path: Path) -> bool:
    document = read_cache_json(path, DOCUMENT)  # never through a symlink; bounded in size, depth and integers
    return isinstance(document, dict) and document.get("written_by") == WRITTEN_BY


def write_comparisons(folders: Sequence[Path], out: Path) -> tuple[Path, dict[str, Any]] | None:
    """Write `out/comparisons.json` for the given runs; None (nothing written) when no two can be compared
    (`comparability`)."""
    path = comparisons_path(out, folders)
    document = comparisons_document(compared_runs(folders))
    if document is None:
        return None
    write_text_atomic(path, json.dumps(document | {"runs": run_ids(folders)}, indent=2, ensure_ascii=False) + "\n")
    return path, document


__all__ = ["comparisons_path", "is_ours", "run_ids", "write_comparisons"]
