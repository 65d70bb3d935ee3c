"""Whether a run's report.md is up to date: it ends with the hash of everything it was written from.

report.md and its plots are a function of the run folder's config.yaml, scores.json, timings.json and
calibrated.json, the benchmark source the published figures come from, and the identity of this package's code.
`report` of a run whose report.md carries the hash of those inputs as they are now (and whose plots are all there)
rewrites nothing: reading 30 finished runs draws no plot and scores no published model again."""

from __future__ import annotations

import os
import re
from pathlib import Path

from longform_eval.common.code_identity import code_identity
from longform_eval.common.guarded import DOCUMENT, read_cache
from longform_eval.common.hashing import files_hash
from longform_eval.dataset_builder.sources import SOURCE_ENV

INPUTS = ("config.yaml", "scores.json", "timings.json", "calibrated.json")
MARK = "<!-- longform-eval report inputs: {} -->"
MARK_PATTERN = re.compile(r"<!-- longform-eval report inputs: ([0-9a-f]{64}) -->\s*\Z")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)/\\]+\.png)\)")


def inputs_hash(folder: Path) -> str:
    """SHA-256 over the code's identity (`code_identity`), the benchmark source setting and the bytes of each input
    (or its absence), each read through the guarded reader (`hashing.files_hash`)."""
    header = f"{code_identity()}\0{os.environ.get(SOURCE_ENV, '')}"
    return files_hash(header, [Path(folder) / name for name in INPUTS], DOCUMENT)


def mark(folder: Path) -> str:
    """The last line of a report.md written from the folder's inputs as they are now."""
    return MARK.format(inputs_hash(folder))


def up_to_date(folder: Path) -> bool:
    """report.md was written from the inputs as they are now, and every plot it shows is there."""
    data = read_cache(Path(folder) / "report.md", DOCUMENT)  # not through a symlink, FIFO or device; bounded
    text = data.decode("utf-8", errors="replace") if data is not None else ""
    found = MARK_PATTERN.search(text)
    if found is None or found.group(1) != inputs_hash(folder):
        return False
    return all((Path(folder) / name).is_file() for name in IMAGE.findall(text))
