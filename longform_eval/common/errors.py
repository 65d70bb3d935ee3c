"""The toolkit's errors: one base class, `LongformEvalError`, under which every error it raises for a user's input,
files or environment falls (each also keeps the built-in class it refines, e.g. ValueError), and the errors of the
benchmark source files and output folders."""

from __future__ import annotations

from pathlib import Path


class LongformEvalError(Exception):
    """Base of every error longform-eval raises for what a user gave it (settings, files, folders, servers):
    `except longform_eval.LongformEvalError` catches them all; the message names the setting, file or folder."""


class StaleResultWarning(UserWarning):
    """A stored result (a run's scores.json) is not what its inputs give now; the message names the file, says why and
    what was done instead (written again, or recomputed in memory). The CLI prints it as one line on stderr."""


class SourceError(LongformEvalError, ValueError):
    """A source file is malformed; the message names the file, the row and the field."""

    def __init__(self, path: Path | str, row: int | str | None, field: str | None, message: str):
        self.path = Path(path)
        self.row = row
        self.field = field
        where = str(path)  # as given: a Path would fold the `//` of an `hf://datasets/...` source
        if row is not None:
            where += f":{row}"
        if field is not None:
            where += f": field '{field}'"
        super().__init__(f"{where}: {message}")


class SourceUnavailableError(LongformEvalError, RuntimeError):
    """No local copy of a benchmark was found and the upstream download failed."""


class OutputFolderError(LongformEvalError, ValueError):
    """The output folder cannot be replaced safely; nothing was changed on disk."""


class OutputFileError(LongformEvalError, ValueError):
    """An output file exists and this toolkit did not write it; nothing was changed on disk."""


class ConfigError(LongformEvalError, ValueError):
    """A setting is refused (Python API, CLI flag, config file): `field` names the setting, `subject` the part of it
    refused (an option name, a value) if any, `detail` says why.

    The CLI prints it as one line naming the flag and exits 2; nothing was written before it was raised.
    """

    def __init__(self, field: str, detail: str, subject: str | None = None):
        self.field, self.detail, self.subject = field, detail, subject
        super().__init__(f"{field}: {subject}: {detail}" if subject else f"{field}: {detail}")
