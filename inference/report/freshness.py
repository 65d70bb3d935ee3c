"""Whether a run's report.md is up to date: it ends with the hash of everything it was written from, and of itself.

report.md and its plots are a function of the run folder's config.yaml, scores.json, timings.json and
calibrated.json, the benchmark source the published figures come from, and the identity of this package's code.
Its last line (the mark) hashes those inputs, the text above the mark and the bytes of every plot the text shows:
`report` of a run whose report.md carries the hash of all of them as they are now rewrites nothing (reading 30
finished runs draws no plot and scores no published model again), and a report.md or plot edited since it was
written is written again, whether or not its mark was kept."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from longform_eval.common.code_identity import code_identity
from longform_eval.common.guarded import DOCUMENT, PAGE, PLOT, read_cache
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


def mark(folder: Path, body: str) -> str:
    """The last line of a report.md whose text above it is `body`, written from the folder's inputs as they are now
    with the plots it shows as they are now (a plot not there, or not a regular file, is hashed as such)."""
    header = f"{inputs_hash(folder)}\0{hashlib.sha256(body.encode('utf-8')).hexdigest()}"
    plots = [Path(folder) / name for name in IMAGE.findall(body)]
    return MARK.format(files_hash(header, plots, PLOT, follow_symlinks=False))


def up_to_date(folder: Path) -> bool:
    """report.md was written from the inputs as they are now, and neither it nor a plot it shows changed since."""
    data = read_cache(Path(folder) / "report.md", PAGE)  # not through a symlink, FIFO or device; bounded
    text = data.decode("utf-8", errors="replace") if data is not None else ""
    found = MARK_PATTERN.search(text)
    return found is not None and MARK.format(found.group(1)) == mark(folder, text[: found.start()])
