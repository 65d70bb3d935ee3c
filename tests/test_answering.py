"""The wait for a started server: a server that exits before it answers is one AssertionError with its output."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest
from answering import wait_until_answers


@pytest.mark.parametrize("to_log", [False, True], ids=["piped", "logged"])
def test_a_server_that_exits_before_it_answers_fails_with_its_output(tmp_path, to_log):
    log = tmp_path / "server.log"
    code = "import sys; print('the port is taken'); sys.exit(1)"
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen(
            [sys.executable, "-c", code], stdout=output if to_log else subprocess.PIPE, stderr=subprocess.STDOUT
        )
    with socket.socket() as closed:  # bound, never listening: every connection is refused
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/"
        with pytest.raises(AssertionError, match=r"did not answer:\nthe port is taken"):
            wait_until_answers(process, url, time.monotonic() + 60, log if to_log else None)
    assert process.returncode == 1
