"""The `pip install` lines that add an extra to this installation, each a command that works where it is read.

An editable install names its checkout. An install from a wheel file pip recorded (and that is still there) names
that file. Any other install (a wheel from a folder of wheels, the index) cannot tell offline whether this version is
on the index yet (before the release it is not, and `pip install 'longform-eval[hf]'` finds nothing), so the hint says
each way: from a clone, from a wheel file, from the index once released. The `local` extra needs torch's CPU build
first (a looser torch pulls GBs of CUDA), as the README's setup line installs it. Every line is at most WIDTH
characters (a path longer than that alone excepted): a hint is read in a terminal, not scrolled sideways.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from urllib.parse import unquote, urlsplit

DISTRIBUTION = "longform-eval"
CHECKOUT = Path(__file__).resolve().parents[2]  # longform_eval/common/install.py -> the folder above the package
WIDTH = 100  # the longest line of a hint
INDENT = "  "  # the hint's lines below the sentence that needs them
FIRST_STEPS = {  # extra -> what to install before it, in the README's words
    "local": "first: pip install torch==2.13.0  (torch's CPU build; a looser torch pulls GBs of CUDA packages)",
}


def direct_url() -> dict | None:
    """Where pip installed this package from (its `direct_url.json`: a folder, editable or not, or a file); None
    where pip recorded nothing (an install from the index, or an older editable one)."""
    try:
        found = distribution(DISTRIBUTION).read_text("direct_url.json")
    except PackageNotFoundError:
        return None
    origin = json.loads(found) if found else None
    return origin if isinstance(origin, dict) else None


def checkout_folder() -> Path | None:
    """The source folder this package was installed from in place (`pip install -e`), if it was."""
    origin = direct_url()
    if origin is not None:
        if origin.get("dir_info", {}).get("editable") and str(origin.get("url", "")).startswith("file://"):
            return Path(unquote(urlsplit(origin["url"]).path))
        return None
    pyproject = CHECKOUT / "pyproject.toml"  # an older editable install keeps no direct_url.json
    if pyproject.is_file() and f'name = "{DISTRIBUTION}"' in pyproject.read_text(encoding="utf-8"):
        return CHECKOUT
    return None


def installed_version() -> str:
    try:
        return distribution(DISTRIBUTION).version
    except PackageNotFoundError:
        return "X"


def wheel_file() -> Path | None:
    """The wheel file this package was installed from, if pip recorded one (`pip install path/to/file.whl`) and it is
    still there."""
    url = str((direct_url() or {}).get("url", ""))
    if not (url.startswith("file://") and url.endswith(".whl")):
        return None
    path = Path(unquote(urlsplit(url).path))
    return path if path.is_file() else None


def install_lines(extras: str) -> list[str]:
    """The commands that add `extras` to this installation, one a line (the first steps an extra needs first)."""
    first = [FIRST_STEPS[extra] for extra in extras.split(",") if extra in FIRST_STEPS]
    folder = checkout_folder()
    if folder is not None:
        return [*first, f"pip install -e '{folder}[{extras}]'"]
    wheel = wheel_file()
    if wheel is not None:
        return [*first, f"pip install '{wheel}[{extras}]'"]
    version = installed_version()
    return [
        *first,
        f"from a clone: pip install -e '.[{extras}]'",
        f"from a wheel file: pip install '{DISTRIBUTION.replace('-', '_')}-{version}-py3-none-any.whl[{extras}]'",
        f"from the index, once released there: pip install '{DISTRIBUTION}[{extras}]=={version}'",
    ]


def install_command(extras: str) -> str:
    """`install_lines` as text, one command a line: `pip install -e '/path/to/checkout[EXTRAS]'` from a checkout,
    the recorded wheel file, else each way (a clone, a wheel file, the index once released)."""
    return "\n".join(install_lines(extras))


def wrapped(sentence: str) -> list[str]:
    """`sentence` in lines of at most WIDTH characters, broken after a comma where it can (a list's item, such as
    `gguf>=0.10 (installed: not installed)`, stays on one line), else between words (never inside `a>=1.0`)."""
    parts = sentence.split(", ")
    lines, current = [], ""
    for piece in [part + "," for part in parts[:-1]] + parts[-1:]:
        joined = f"{current} {piece}" if current else piece
        if len(joined) <= WIDTH:
            current = joined
            continue
        lines += [current] if current else []
        *full, current = textwrap.wrap(piece, WIDTH, break_on_hyphens=False, break_long_words=False) or [""]
        lines += full
    return [*lines, current]


def needs_message(sentence: str, commands: Sequence[str]) -> str:
    """`sentence` (what needs what, ending in `:`) wrapped, then the `commands` that install it, indented, one a line:
    no line over WIDTH characters."""
    return "\n".join([*wrapped(sentence), *(INDENT + command for command in commands)])


def prefixed(message: str, prefix: str) -> str | None:
    """A `needs_message` with `prefix` before it (`longform-eval run: error: `), its sentence wrapped again so that
    no line is over WIDTH characters; None for any other message (it has no indented command)."""
    lines = message.splitlines()
    commands = [line for line in lines if line.startswith(INDENT)]
    if not commands:
        return None
    sentence = " ".join(line for line in lines if not line.startswith(INDENT))
    return "\n".join([*wrapped(prefix + sentence), *commands])


def missing_extra_message(sentence: str, extras: str) -> str:
    """`needs_message` with the commands that add `extras` to this installation."""
    return needs_message(sentence, install_lines(extras))
