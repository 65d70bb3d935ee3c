"""The `pip install` line that adds an extra to this installation: from the index, or from the checkout it runs from."""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from urllib.parse import unquote, urlsplit

DISTRIBUTION = "longform-eval"
CHECKOUT = Path(__file__).resolve().parents[2]  # longform_eval/common/install.py -> the folder above the package


def checkout_folder() -> Path | None:
    """The source folder this package was installed from in place (`pip install -e`), if it was."""
    try:
        found = distribution(DISTRIBUTION).read_text("direct_url.json")
    except PackageNotFoundError:
        found = None
    if found:
        origin = json.loads(found)
        if origin.get("dir_info", {}).get("editable") and str(origin.get("url", "")).startswith("file://"):
            return Path(unquote(urlsplit(origin["url"]).path))
        return None
    pyproject = CHECKOUT / "pyproject.toml"  # an older editable install keeps no direct_url.json
    if pyproject.is_file() and f'name = "{DISTRIBUTION}"' in pyproject.read_text(encoding="utf-8"):
        return CHECKOUT
    return None


def install_command(extras: str) -> str:
    """`pip install 'longform-eval[EXTRAS]'`, or `pip install -e '/path/to/checkout[EXTRAS]'` when this package runs
    from a checkout (the package may not be on the index yet, and a checkout's extras are the checkout's)."""
    folder = checkout_folder()
    if folder is not None:
        return f"pip install -e '{folder}[{extras}]'"
    return f"pip install '{DISTRIBUTION}[{extras}]'"
