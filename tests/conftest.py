"""Shared test setup: offline Hugging Face libraries and the real benchmark data beside the checkout."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hub_standin import HubStandIn

for variable, value in {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_EVALUATE_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
}.items():
    os.environ.setdefault(variable, value)


def fresh_cache() -> None:
    """Dataset folders the runner builds on first use go to a fresh cache per test session (about 90 MB), removed
    when the process that made it exits (pytest-xdist's workers share their controller's); a cache the environment
    names is kept."""
    if "LONGFORM_EVAL_CACHE" in os.environ:
        return
    made = tempfile.mkdtemp(prefix="longform-eval-cache-")
    os.environ["LONGFORM_EVAL_CACHE"] = made
    atexit.register(shutil.rmtree, made, ignore_errors=True)


fresh_cache()

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("LONGFORM_EVAL_SOURCE", REPO.parent / "shared" / "data"))
# The package never looks beside the checkout: the tests name the data's folder to it (and to their subprocesses).
os.environ["LONGFORM_EVAL_SOURCE"] = str(SHARED_DATA)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        raise RuntimeError(f"the benchmark data is expected in {SHARED_DATA} (../shared/data beside the checkout)")
    return SHARED_DATA


@pytest.fixture
def hub():
    """A started local Hugging Face Hub stand-in (tests/hub_standin.py), empty, for one test."""
    with HubStandIn() as standin:
        yield standin


def pytest_terminal_summary(terminalreporter) -> None:
    """The peak resident memory of this test process and of its largest child (CI keeps each under 8 GB)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2  # KiB on Linux -> GiB
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024**2
    terminalreporter.write_line(f"peak RSS: this test process {own:.2f} GiB, its largest child {child:.2f} GiB")
