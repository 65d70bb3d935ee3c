"""The guarded reader (`common.guarded`, `common.bounded_json`): every file a user hands in is a regular file within
its kind's ceiling, streamed where the format allows, JSON bounded in depth and integer size; each refusal is one
error naming the file, at once and in bounded memory."""

from __future__ import annotations

import ast
import gzip
import hashlib
import os
import resource
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from longform_eval.common import guarded
from longform_eval.common.bounded_json import MAX_DEPTH, MAX_INT_DIGITS, JsonRefused, deeper_than, loads_json
from longform_eval.common.errors import LongformEvalError, SourceError
from longform_eval.common.guarded import (
    LINE_CEILING,
    LOG,
    SETTINGS,
    Kind,
    UnreadableFile,
    iter_lines,
    read_bytes,
    read_cache,
    read_cache_json,
    read_head,
)
from longform_eval.common.hashing import files_hash

SPARSE_BYTES = 2 * 1024**3
DEEP = "[" * 100_000 + "]" * 100_000
TINY = Kind("test file", 1024, "a test's ceiling")


@contextmanager
def bounded(seconds: int = 10, memory_mib: int = 200) -> Iterator[None]:
    """Fail the block if it blocks or runs past `seconds`, or if this process's peak RSS grows past `memory_mib`."""

    def late(*_):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.alarm(seconds)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < memory_mib, f"peak memory grew by {grown_mib:.0f} MiB"


def sparse(path: Path, size: int = SPARSE_BYTES) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def one_line(error: BaseException) -> str:
    text = str(error)
    assert "\n" not in text
    return text


@pytest.mark.parametrize("reader", [read_bytes, lambda path, kind: list(iter_lines(path, kind))])
def test_a_fifo_is_refused_at_once_naming_it(tmp_path, reader):
    fifo = tmp_path / "labels.jsonl"
    os.mkfifo(fifo)
    with bounded(), pytest.raises(UnreadableFile) as caught:
        reader(fifo, LOG)
    assert one_line(caught.value) == f"{fifo}: is not a regular file (a FIFO, a device or a socket)"


@pytest.mark.parametrize("reader", [read_bytes, lambda path, kind: list(iter_lines(path, kind))])
def test_dev_zero_and_a_link_to_it_are_refused_at_once(tmp_path, reader):
    link = tmp_path / "scores.json"
    link.symlink_to("/dev/zero")
    for path in (Path("/dev/zero"), link):
        with bounded(), pytest.raises(UnreadableFile, match="is not a regular file"):
            reader(path, LOG)


def test_a_sparse_2_gb_file_is_refused_by_its_size_without_being_read(tmp_path):
    path = sparse(tmp_path / "generations.jsonl")
    with bounded(seconds=2, memory_mib=20), pytest.raises(UnreadableFile) as caught:
        list(iter_lines(path, LOG))
    assert f"larger than {LOG.ceiling} bytes" in one_line(caught.value)
    assert LOG.why in str(caught.value)


def test_a_folder_is_named_as_one(tmp_path):
    with pytest.raises(UnreadableFile, match="is a folder, expected a YAML file"):
        read_bytes(tmp_path, SETTINGS)


def test_a_file_that_grows_past_its_ceiling_is_refused_after_ceiling_plus_one_bytes(tmp_path, monkeypatch):
    path = tmp_path / "grows.json"
    path.write_bytes(b"x" * 10)
    monkeypatch.setattr(guarded, "refusal", lambda found, kind: None)  # as if it grew after fstat
    path.write_bytes(b"x" * 2000)
    with pytest.raises(UnreadableFile, match="larger than 1024 bytes"):
        read_bytes(path, TINY)


def test_a_gzip_bomb_is_refused_by_what_it_decompresses_to(tmp_path):
    bomb = tmp_path / "rows.json.gz"
    with gzip.open(bomb, "wb") as handle:
        for _ in range(64):
            handle.write(b"\0" * (1024 * 1024))
    assert bomb.stat().st_size < 200_000
    kind = Kind("rows file", 8 * 1024 * 1024, "test")
    with bounded(memory_mib=60), pytest.raises(UnreadableFile, match="larger than 8388608 bytes \\(decompressed"):
        read_bytes(bomb, kind)
    with bounded(memory_mib=60), pytest.raises(UnreadableFile, match="decompressed"):
        list(iter_lines(bomb, kind))


def test_a_gzip_file_is_read_as_stored_when_asked_to(tmp_path):
    path = tmp_path / "rows.json.gz"
    path.write_bytes(gzip.compress(b"{}"))
    assert read_bytes(path, LOG) == b"{}"
    assert read_bytes(path, LOG, decompress=False) == path.read_bytes()


def test_a_damaged_gzip_file_is_one_line(tmp_path):
    path = tmp_path / "task_results.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"id": "a"}\n')[:-6])
    with pytest.raises(UnreadableFile, match="cannot be read as gzip"):
        list(iter_lines(path, LOG))


def test_lines_are_streamed_with_a_torn_last_line_kept_and_a_line_past_the_ceiling_refused(tmp_path, monkeypatch):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n\n{"a": 2')
    assert list(iter_lines(path, LOG)) == [(1, b'{"a": 1}\n'), (2, b"\n"), (3, b'{"a": 2')]
    monkeypatch.setattr(guarded, "LINE_CEILING", 4)
    with pytest.raises(UnreadableFile) as caught:
        list(iter_lines(path, LOG))
    assert caught.value.row == 1 and f"{path}:1: a line longer than 4 bytes" in str(caught.value)
    assert LINE_CEILING >= 4 * 1024 * 1024  # a response of a million tokens fits one line


def test_a_symlink_is_followed_by_readers_and_refused_by_caches(tmp_path):
    target = tmp_path / "target.json"
    target.write_text('{"value": 1}')
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert read_bytes(link, SETTINGS) == b'{"value": 1}'
    assert read_cache(link, SETTINGS) is None
    assert read_cache_json(target, SETTINGS) == {"value": 1}
    with pytest.raises(UnreadableFile, match="is a symlink"):
        read_bytes(link, SETTINGS, follow_symlinks=False)


@pytest.mark.parametrize("content", [b"{", DEEP.encode(), b'{"n": ' + b"9" * 400 + b"}", b"\xff"])
def test_a_cache_that_is_damaged_or_hostile_is_none(tmp_path, content):
    path = tmp_path / "cache.json"
    path.write_bytes(content)
    assert read_cache_json(path, LOG) is None
    assert read_cache_json(tmp_path / "missing.json", LOG) is None


def test_the_sqlite_header_is_read_only_from_a_regular_file(tmp_path):
    fifo = tmp_path / "votes.sqlite"
    os.mkfifo(fifo)
    with bounded(), pytest.raises(UnreadableFile, match="not a regular file"):
        read_head(fifo, LOG, 16)
    assert read_head(sparse(tmp_path / "big.sqlite", 1 << 20), LOG, 16) == b"\0" * 16


# ----- JSON: depth and integer ceilings ----------------------------------------------------------------------
def test_json_nested_100000_deep_is_refused_at_once():
    with bounded(seconds=5), pytest.raises(JsonRefused, match=f"nested more than {MAX_DEPTH} levels deep"):
        loads_json(DEEP)
    with pytest.raises(JsonRefused):
        loads_json('{"a": ' * 100_000 + "1" + "}" * 100_000)


def test_json_nested_past_the_ceiling_but_within_pythons_recursion_is_refused_too():
    """900 levels parse in Python, then break the recursive code that reads them (pydantic, non_finite, dumps)."""
    with pytest.raises(JsonRefused):
        loads_json("[" * 900 + "]" * 900)
    with pytest.raises(JsonRefused):
        loads_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert loads_json("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert loads_json('["' + "[{" * 500 + '"]') == ["[{" * 500]  # brackets inside a string are no nesting


def test_an_integer_past_the_ceiling_is_refused_and_one_within_it_read():
    with pytest.raises(JsonRefused, match="an integer of 400 digits"):
        loads_json('{"checklist_scores": [' + "1" * 400 + "]}")
    assert loads_json(str(2**64)) == 2**64  # 20 digits
    assert loads_json("-" + "9" * MAX_INT_DIGITS) == -int("9" * MAX_INT_DIGITS)
    with pytest.raises(JsonRefused):
        loads_json("-" + "9" * (MAX_INT_DIGITS + 1))


def test_json_refusals_are_the_toolkits_value_errors():
    assert issubclass(JsonRefused, LongformEvalError) and issubclass(JsonRefused, ValueError)
    assert issubclass(UnreadableFile, SourceError)


class Walked(list):
    """A list that counts how often it is walked."""

    walks = 0

    def __iter__(self):
        Walked.walks += 1
        return super().__iter__()


def test_a_wide_document_is_parsed_and_its_depth_walked_once_per_array():
    """A document of many small objects (more brackets than MAX_DEPTH) has its depth measured, each array walked
    once: the walk is linear in the document (its speed on real run folders: bench/read_path.py)."""
    document = "[" + ",".join(['{"a": [1, 2], "b": "x"}'] * 50_000) + "]"
    assert loads_json(document) == [{"a": [1, 2], "b": "x"}] * 50_000
    Walked.walks = 0
    wide = Walked({"a": Walked([1, 2]), "b": "x"} for _ in range(50_000))
    assert not deeper_than(wide, MAX_DEPTH) and Walked.walks == 1 + 50_000


# ----- file hashes: streamed, guarded ------------------------------------------------------------------------
def test_a_file_hash_never_reads_a_fifo_device_or_oversized_file_and_marks_each(tmp_path):
    (tmp_path / "a.json").write_text("{}")
    os.mkfifo(tmp_path / "b.json")
    (tmp_path / "c.json").symlink_to("/dev/zero")
    sparse(tmp_path / "d.json")
    paths = [tmp_path / name for name in ("a.json", "b.json", "c.json", "d.json", "missing.json")]
    with bounded(seconds=5, memory_mib=50):
        first = files_hash("header", paths, LOG)
    assert first == files_hash("header", paths, LOG)
    (tmp_path / "a.json").write_text("[]")
    assert files_hash("header", paths, LOG) != first


def test_a_file_hash_that_does_not_follow_links_hashes_the_link_target_name(tmp_path):
    target = tmp_path / "target"
    target.write_text("x")
    (tmp_path / "log.jsonl").symlink_to(target)
    linked = files_hash("h", [tmp_path / "log.jsonl"], LOG, follow_symlinks=False)
    expected = hashlib.sha256(b"h\0log.jsonl\0\0not read\0" + str(target).encode() + b"\0\0end\0").hexdigest()
    assert linked == expected


# ----- layout: every reader of a user's file goes through the guard -------------------------------------------
REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("longform_eval", "dataset_builder", "metric", "inference", "spaces", "cards")
# Calls that open or parse a file: by method name (on any object), by module.function, and the builtin `open`.
METHOD_READS = {"read_text", "read_bytes", "load_workbook", "read_csv", "read_json", "read_parquet", "read_excel"}
METHOD_READS |= {"read_table", "safe_load", "full_load", "unsafe_load"}
MODULE_READS = {("json", "load"), ("json", "loads"), ("yaml", "load"), ("pickle", "load"), ("np", "load")}
MODULE_READS |= {("numpy", "load"), ("tomllib", "load"), ("sqlite3", "connect"), ("zipfile", "ZipFile")}
MODULE_READS |= {("tarfile", "open"), ("csv", "reader"), ("csv", "DictReader")}
COMPRESSED_OPENERS = {"gzip", "bz2", "lzma", "io"}  # module.open(path, mode): read unless the mode writes
NOT_FILES = {("Run", "open"), ("os", "open")}  # a run folder opened by its own guarded readers; a descriptor
PACKAGE_DATA = "package data or this package's own install, never a user's file"
REPLY = "a judge's reply or a request body held in memory, not a file"
ALLOWED = {  # file: (calls that open or parse, why none reads a user's file past the guard; a new one fails)
    "longform_eval/common/atomic.py": (1, "the temporary file this module just wrote, opened to flush it to disk"),
    "longform_eval/common/bounded_json.py": (1, "the bounded parser itself"),
    "longform_eval/common/code_identity.py": (1, PACKAGE_DATA + " (the package's own source files, hashed)"),
    "longform_eval/common/install.py": (3, PACKAGE_DATA),
    "longform_eval/registry/declarations.py": (1, PACKAGE_DATA),
    "dataset_builder/hub.py": (1, "the YAML header of a card whose text the guard read (64 MiB)"),
    "dataset_builder/sources.py": (1, "an upstream archive held in memory, its download bounded"),
    "dataset_builder/tencentllmeval.py": (1, "the workbook's bytes, read through the guard"),
    "metric/package_yaml.py": (2, PACKAGE_DATA),
    "metric/helloeval/prompt.py": (2, PACKAGE_DATA + " (a prompt file a user names goes through the guard)"),
    "metric/helloeval/weights.py": (2, PACKAGE_DATA),
    "metric/space_app.py": (3, PACKAGE_DATA + " (its card), and a JSON round trip of a computed result"),
    "inference/yaml_files.py": (1, "the bounded YAML loader itself, on text the guard read"),
    "inference/report/sections/context.py": (2, PACKAGE_DATA + " (the embedded judge's agreement file)"),
    "inference/backends/local.py": (1, "the chunks of the embedded model, installed packages' data"),
    "inference/hub/release_plan.py": (5, PACKAGE_DATA + " (a Space's files and cards, parsed)"),
    "inference/hub/snapshot.py": (1, "the Hugging Face cache's own ref file, a commit hash"),
    "metric/helloeval/parser.py": (3, REPLY),
    "metric/longbench_write/judge.py": (1, REPLY),
    "metric/pairwise/judge.py": (1, REPLY),
    "inference/backends/serve.py": (1, REPLY),
    "inference/benchmarks/run_scores.py": (
        1,
        "a JSON round trip of figures computed in memory, as scores.json gives them",
    ),
    "inference/runner/scoring.py": (1, "scores.json's text this process is about to write, parsed back to check it"),
    "spaces/schema.py": (1, "an in-memory SQLite database"),
    "spaces/storage.py": (1, "the Space's own votes database, at the path its settings name"),
    "spaces/votes_file.py": (1, "a votes file checked first (`check_votes_file`: regular, ceiling, SQLite header)"),
}


def literal_mode(call: ast.Call, position: int, default: str | None) -> str | None:
    """The call's mode: its `mode=` keyword or positional argument `position` when a string literal; `default`
    when neither is given; None when it is not a literal (then it may read)."""
    for keyword in call.keywords:
        if keyword.arg == "mode":
            return keyword.value.value if isinstance(keyword.value, ast.Constant) else None
    if len(call.args) > position:
        found = call.args[position]
        return found.value if isinstance(found, ast.Constant) and isinstance(found.value, str) else None
    return default


def reads(mode: str | None) -> bool:
    return mode is None or not any(letter in mode for letter in "wax")


def opens_or_parses(call: ast.Call) -> bool:
    """Whether a call opens a file for reading or parses one: `open(path)`, `path.open()`, `gzip.open(path)`,
    `json.load(f)`, `yaml.safe_load(f)`, `path.read_text()`, `openpyxl.load_workbook(path)`, ..."""
    function = call.func
    if isinstance(function, ast.Name):
        return function.id == "open" and reads(literal_mode(call, 1, "r"))
    if not isinstance(function, ast.Attribute):
        return False
    owner = function.value.id if isinstance(function.value, ast.Name) else None
    if (owner, function.attr) in NOT_FILES:
        return False
    if function.attr in METHOD_READS or (owner, function.attr) in MODULE_READS:
        return True
    if function.attr != "open":
        return False
    if owner in COMPRESSED_OPENERS:
        return reads(literal_mode(call, 1, "rb"))
    return reads(literal_mode(call, 0, "r"))  # a path's own `open(mode)`


def raw_reads(packages: tuple[str, ...] = PACKAGES, root: Path = REPO) -> dict[str, int]:
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            count = sum(1 for node in ast.walk(tree) if isinstance(node, ast.Call) and opens_or_parses(node))
            if count:
                found[path.relative_to(root).as_posix()] = count
    return found


@pytest.mark.parametrize(
    "line",
    [
        "open(path)",
        "open(path, 'rb')",
        "path.open()",
        "path.open('rb')",
        "path.open(encoding='utf-8')",
        "gzip.open(path)",
        "gzip.open(path, 'rt')",
        "json.load(handle)",
        "yaml.safe_load(handle)",
        "openpyxl.load_workbook(path)",
        "path.read_text()",
        "path.read_bytes()",
        "pd.read_csv(path)",
        "sqlite3.connect(path)",
    ],
)
def test_the_scan_sees_every_form_of_reading_a_file(tmp_path, line):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "module.py").write_text(f"def f(path, handle):\n    return {line}\n")
    assert raw_reads(("pkg",), tmp_path) == {"pkg/module.py": 1}


@pytest.mark.parametrize(
    "line", ["open(path, 'w')", "path.open('a')", "gzip.open(path, 'wt')", "Run.open(folder)", "os.open(path, 0)"]
)
def test_the_scan_leaves_writes_and_the_toolkits_own_openers(tmp_path, line):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "module.py").write_text(f"def f(path, folder):\n    return {line}\n")
    assert raw_reads(("pkg",), tmp_path) == {}


def test_no_module_reads_a_file_past_the_guarded_reader():
    """A new command gets the guard by using it: a raw read (json.load, read_text, read_bytes, gzip.open, open for
    reading) anywhere else is a failure here, until it is routed through `common.guarded` or listed with its reason."""
    found = raw_reads()
    unlisted = {path: count for path, count in found.items() if count > ALLOWED.get(path, (0, ""))[0]}
    assert unlisted == {}, "route these reads through longform_eval.common.guarded (or list them, with why)"
