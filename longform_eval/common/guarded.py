"""The one reader of every file a user hands in: labels, run folders and their JSON and JSON Lines files, scores.json,
settings, votes, imports, Hub downloads (read from the Hugging Face cache through the same functions).

A file is read only if it is a regular file (a FIFO would block the reader, `/dev/zero` never ends, a folder is no
file) of at most the ceiling of its `Kind`: checked on the open descriptor, and again while reading, since a file
may grow (at most ceiling + 1 bytes are ever read). A `.gz` file's ceiling bounds what it decompresses to (a gzip
bomb is a few KB). JSON Lines files are streamed line by line (`iter_lines`), each line at most LINE_CEILING
bytes. Every refusal is one `UnreadableFile` naming the file, raised before anything is made from it. JSON is
parsed by `bounded_json.loads_json`, which bounds nesting depth and integer size.

Caches (files this toolkit writes and keeps to skip work) are read by `read_cache`: never through a symlink, and
anything amiss is None (computed again), never an error.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import os
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from .bounded_json import loads_json
from .errors import SourceError

MiB = 1024 * 1024
GiB = 1024 * MiB
LINE_CEILING = 64 * MiB  # one JSON line: a response of a million tokens is about 4 MB
NOT_REGULAR = "is not a regular file (a FIFO, a device or a socket)"
GZIP_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile)


@dataclass(frozen=True)
class Kind:
    """What a file is to the toolkit, the most bytes it may hold (decompressed, for a `.gz` file), and why."""

    name: str
    ceiling: int
    why: str
    expected: str = "a file"
    gzip_ratio: int | None = None  # a `.gz` file may decompress to at most this many times its size (+ 1 MiB)

    def decompressed_ceiling(self, compressed_size: int) -> int:
        """The most a `.gz` file of `compressed_size` bytes may decompress to: the ceiling, and in proportion to the
        file where `gzip_ratio` is set (a gzip bomb is refused after reading what a real file could hold)."""
        if self.gzip_ratio is None:
            return self.ceiling
        return min(self.ceiling, self.gzip_ratio * compressed_size + MiB)


SETTINGS = Kind("settings file", MiB, "an options file or a config.yaml is a few hundred bytes", "a YAML file")
DOCUMENT = Kind("JSON document", 64 * MiB, "a run's scores.json or timings.json is under 1 MiB")
LOG = Kind("run log", GiB, "the logs of a HelloBench run with 5 judge samples are under 100 MB", "a JSON Lines file")
LABELS = Kind("label file", 256 * MiB, "a million votes are under 256 MiB")
IMPORT = Kind("response file", GiB, "HelloBench's released responses are under 10 MB a model")
SOURCE = Kind("benchmark source file", 256 * MiB, "the largest benchmark source file is 5 MB")
HEAD = Kind("file read for its first bytes", 2**63 - 1, "only a magic number at its start is read")
ROWS = Kind("rows file", GiB, "a run's rows, decompressed: more than any benchmark's", gzip_ratio=50)
DERIVED = Kind("derived-values cache", 256 * MiB, "a larger cache is recomputed, not read")
RESULTS = Kind("result cache entry", 64 * MiB, "a larger entry is recomputed, not read")
MARKER = Kind("marker file", MiB, "a plot-hash or folder-listing file holds tens of names")
PLOT = Kind("plot", 32 * MiB, "a report's plot at 110 dpi is under 1 MiB", "a PNG file")
PAGE = Kind("report page", 64 * MiB, "a report.md or dataset card of 30 runs is under 1 MiB", "a Markdown file")
DATA_FILE = Kind("dataset data file", 4 * GiB, "the largest built benchmark config is under 100 MB", "a Parquet file")
CEILINGS = (
    SETTINGS,
    DOCUMENT,
    LOG,
    LABELS,
    IMPORT,
    SOURCE,
    ROWS,
    DERIVED,
    RESULTS,
    MARKER,
    PLOT,
    PAGE,
    DATA_FILE,
    HEAD,
)


class UnreadableFile(SourceError):
    """A file that is not read: not a regular file, larger than its ceiling, or a damaged `.gz`; the message names
    the file (and the line, for a line too long)."""

    def __init__(self, path: Path | str, problem: str, row: int | None = None):
        self.problem = problem
        super().__init__(path, row, None, problem)


def too_large(kind: Kind, compressed: bool = False) -> str:
    what = "decompressed, " if compressed else ""
    return f"larger than {kind.ceiling} bytes ({what}the ceiling for a {kind.name}: {kind.why})"


def refusal(found: os.stat_result, kind: Kind) -> str | None:
    """Why a file with this status is not read as `kind`, or None."""
    if stat.S_ISDIR(found.st_mode):
        return f"is a folder, expected {kind.expected}"
    if not stat.S_ISREG(found.st_mode):
        return NOT_REGULAR
    return too_large(kind) if found.st_size > kind.ceiling else None


@contextlib.contextmanager
def open_regular(path: Path | str, kind: Kind, follow_symlinks: bool = True) -> Iterator[BinaryIO]:
    """`path` open for reading, once it is a regular file within `kind`'s ceiling; an UnreadableFile if not, an
    OSError (FileNotFoundError, ...) if it cannot be opened. `follow_symlinks=False`: a symlink is refused."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC  # O_NONBLOCK: a FIFO opens without waiting for a writer
    try:
        fd = os.open(path, flags | (0 if follow_symlinks else os.O_NOFOLLOW))
    except OSError as error:
        if error.errno == errno.ELOOP and not follow_symlinks and os.path.islink(path):
            raise UnreadableFile(path, "is a symlink, expected the file itself") from None
        if error.errno == errno.ENXIO:  # a socket
            raise UnreadableFile(path, NOT_REGULAR) from None
        raise
    problem = refusal(os.fstat(fd), kind)
    if problem:
        os.close(fd)
        raise UnreadableFile(path, problem)
    with os.fdopen(fd, "rb") as handle:
        yield handle


def is_gzip(path: Path | str) -> bool:
    return str(path).endswith(".gz")


@contextlib.contextmanager
def decompressed(handle: BinaryIO, path: Path | str, unzip: bool) -> Iterator[BinaryIO]:
    """`handle` itself, or (`unzip`) what it decompresses to; a damaged `.gz` is an UnreadableFile naming `path`."""
    if not unzip:
        yield handle
        return
    try:
        with gzip.GzipFile(fileobj=handle, mode="rb") as unzipped:
            yield unzipped  # type: ignore[misc]
    except GZIP_ERRORS as error:
        raise UnreadableFile(path, f"cannot be read as gzip ({error})") from None


def read_bytes(path: Path | str, kind: Kind, follow_symlinks: bool = True, decompress: bool = True) -> bytes:
    """The whole file (a `.gz` file decompressed, unless not `decompress`), at most `kind.ceiling` bytes; an
    UnreadableFile otherwise."""
    unzip = decompress and is_gzip(path)
    with open_regular(path, kind, follow_symlinks) as handle, decompressed(handle, path, unzip) as source:
        ceiling = kind.decompressed_ceiling(os.fstat(handle.fileno()).st_size) if unzip else kind.ceiling
        data = source.read(ceiling + 1)
    if len(data) > ceiling:
        problem = too_large(kind, compressed=unzip) if ceiling == kind.ceiling else bomb(kind, ceiling)
        raise UnreadableFile(path, problem)
    return data


def gunzipped(data: bytes, path: Path | str, kind: Kind) -> bytes:
    """`data` (the bytes of the `.gz` file `path`, as read) decompressed within `kind`'s ceilings, as `read_bytes`
    decompresses a file; an UnreadableFile naming `path` otherwise."""
    ceiling = kind.decompressed_ceiling(len(data))
    with decompressed(io.BytesIO(data), path, True) as source:
        found = source.read(ceiling + 1)
    if len(found) > ceiling:
        raise UnreadableFile(path, too_large(kind, compressed=True) if ceiling == kind.ceiling else bomb(kind, ceiling))
    return found


def bomb(kind: Kind, ceiling: int) -> str:
    return (
        f"decompresses to more than {ceiling} bytes, over {kind.gzip_ratio} times its size (no {kind.name} "
        "compresses so well: a gzip bomb, or a damaged file)"
    )


def read_upload(path: Path | str, kind: Kind) -> bytes:
    """A file's bytes as they go to the Hub: a regular file itself (a symlink is refused, never followed), at most
    `kind.ceiling` bytes as stored (a `.gz` file is not decompressed); an UnreadableFile otherwise. What is read is
    what is uploaded: the file is not opened again by path."""
    return read_bytes(path, kind, follow_symlinks=False, decompress=False)


def read_head(path: Path | str, kind: Kind, size: int) -> bytes:
    """The first `size` bytes of the file (a magic number), read only if it is a regular file within `kind`."""
    with open_regular(path, kind) as handle:
        return handle.read(size)


def iter_lines(path: Path | str, kind: Kind) -> Iterator[tuple[int, bytes]]:
    """(line number, line with its newline if it has one) of a text file (a `.gz` one decompressed), streamed: one
    line over LINE_CEILING bytes, or the whole over `kind.ceiling`, is an UnreadableFile naming the file."""
    total = 0
    with open_regular(path, kind) as handle, decompressed(handle, path, is_gzip(path)) as source:
        number = 0
        while line := source.readline(min(LINE_CEILING, kind.ceiling - total) + 1):
            number += 1
            total += len(line)
            if len(line) > LINE_CEILING:
                raise UnreadableFile(path, f"a line longer than {LINE_CEILING} bytes (one record a line)", number)
            if total > kind.ceiling:
                raise UnreadableFile(path, too_large(kind, compressed=is_gzip(path)))
            yield number, line


def file_state(path: Path | str, follow_symlinks: bool = False) -> tuple[int, ...]:
    """The file as it stands (device, inode, size, change times), so that one rewritten or replaced since has another;
    () where it cannot be read. A link is taken as itself unless `follow_symlinks`."""
    try:
        found = os.stat(path, follow_symlinks=follow_symlinks)
    except OSError:
        return ()
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def read_cache(path: Path | str, kind: Kind, *, follow_symlinks: bool = False) -> bytes | None:
    """A cache file's bytes (a `.gz` one decompressed); None where it is missing, a symlink (unless `follow_symlinks`:
    a Hub snapshot's link into its blob store), not a regular file, larger than `kind.ceiling` or damaged: a cache is
    then computed again, never an error."""
    try:
        return read_bytes(path, kind, follow_symlinks=follow_symlinks)
    except (OSError, UnreadableFile):
        return None


def read_cache_json(path: Path | str, kind: Kind, *, follow_symlinks: bool = False) -> Any:
    """A cache file's JSON document, None as for `read_cache` or where it is not JSON within `loads_json`'s bounds."""
    data = read_cache(path, kind, follow_symlinks=follow_symlinks)
    try:
        return None if data is None else loads_json(data)
    except ValueError:
        return None


__all__ = [
    "CEILINGS",
    "LINE_CEILING",
    "Kind",
    "UnreadableFile",
    "file_state",
    "gunzipped",
    "iter_lines",
    "open_regular",
    "read_bytes",
    "read_cache",
    "read_cache_json",
    "read_head",
    "read_upload",
]
