"""Waiting for a server a test started (a Space's `app.py`, `longform-eval space` or `view`) until its page answers."""

from __future__ import annotations

import subprocess
import time
import urllib.request
from pathlib import Path


def wait_until_answers(process: subprocess.Popen, url: str, deadline: float, log: Path | None = None) -> None:
    """Until `url` answers 200. If `process` exits first or `deadline` (`time.monotonic()`) passes, it is killed and
    an AssertionError carries the end of its output: the file `log` it writes to, else its stdout pipe."""
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                assert response.status == 200
                return
        except OSError:
            if process.poll() is None and time.monotonic() <= deadline:
                time.sleep(0.3)
                continue
        process.kill()
        piped = process.communicate(timeout=30)[0]  # None where the output goes to `log`
        output = log.read_text(encoding="utf-8") if log is not None else piped.decode()
        raise AssertionError(f"{url} did not answer:\n{output[-3000:]}")
