"""How every Space is served, so that one request cannot hold the others and a stop is prompt.

- A bounded queue: at most QUEUE_SIZE requests wait (more are told the queue is full), and an event without a limit
  of its own runs DEFAULT_CONCURRENCY at a time, so a long request never holds a short one alone.
- A per-request time limit: `run_limited` runs a computation in a forked process that is killed when it passes its
  time limit (a thread cannot be stopped), and the request is refused with a line saying so.
- One computation at a time per client (`OnePerClient`, keyed by the gradio session): a client's further request
  while one of its computations runs is refused at once, so one client's requests hold one of the event's
  computations at a time, never all of them, and another client's request starts without waiting for them.
- A prompt stop: launched to block (as a Space runs `app.py`), SIGTERM or Ctrl+C stops taking requests, kills the
  running computations, gives the requests under way STOP_GRACE_S to finish, runs the app's `on_stop` hooks (the
  arena pushes its votes) and exits, without waiting for a worker thread.

gradio is imported here: import this module only where a page is built.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any

import gradio as gr
from threadpoolctl import threadpool_limits  # scikit-learn's dependency

from longform_eval.common.errors import LongformEvalError

DEFAULT_CONCURRENCY = 2  # Spaces run on 2 vCPUs
QUEUE_SIZE = 64
STOP_GRACE_S = 3.0
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
# A computation uses one BLAS thread: they run two at a time on a Space's 2 vCPUs, and two BLAS threads each made the
# pairwise bootstrap 2-3x slower on 2 busy cores (bench/space_ceilings.py --blas-threads 2)
BLAS_THREADS = 1
RUNNING: set[multiprocessing.Process] = set()  # the computations under way, killed on stop


class TimeLimitExceeded(LongformEvalError, TimeoutError):
    """A computation ran past its time limit and was stopped."""


def run_limited(function: Callable[[], Any], seconds: float, what: str = "the computation") -> Any:
    """`function()` in a forked process, its value (pickled back); stopped after `seconds`.

    Raises:
        TimeLimitExceeded: `function` ran past `seconds` (its process is killed).
        ValueError: `function` raised one (the message kept: a bad input, named by the function).
        RuntimeError: `function` raised anything else, or its process died without an answer.
    """
    context = multiprocessing.get_context("fork")  # the child inherits what is loaded: no import, no pickled function
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=answer, args=(writer, function), daemon=True)
    process.start()
    RUNNING.add(process)
    writer.close()
    try:
        if not reader.poll(seconds):
            raise TimeLimitExceeded(f"{what} took over {seconds:g} s and was stopped; send fewer rows or rounds")
        try:
            kind, value = reader.recv()
        except EOFError:
            process.join(5)
            raise RuntimeError(f"{what} stopped without an answer (exit code {process.exitcode})") from None
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        RUNNING.discard(process)
        reader.close()
    if kind == "value":
        return value
    raise (ValueError if kind == "ValueError" else RuntimeError)(value)


class ClientBusy(LongformEvalError, RuntimeError):
    """A client sent a request while one of its computations was still running."""


class OnePerClient:
    """One computation at a time per client: `held(client)` around a computation refuses (ClientBusy, at once) a
    client that already holds one. A client is a gradio session (`client_of`): a page, or a `gradio_client.Client`.
    A caller that opens a session per request (gradio's `/call/` route does) is held only by the event's concurrency
    limit and the queue's size."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started: dict[str, float] = {}  # client -> when its computation started (time.monotonic)

    @contextmanager
    def held(self, client: str) -> Iterator[None]:
        with self.lock:
            began = self.started.get(client)
            if began is not None:
                raise ClientBusy(
                    f"your computation started {time.monotonic() - began:.0f} s ago is still running; one at a time "
                    "for each client: send this one when it is done"
                )
            self.started[client] = time.monotonic()
        try:
            yield
        finally:
            with self.lock:
                del self.started[client]


def client_of(request: gr.Request | None) -> str:
    """The client a request comes from: its gradio session (a page, a `gradio_client.Client`); a request without
    one (a direct call) is a client of its own."""
    session = getattr(request, "session_hash", None)
    return f"session:{session}" if session else f"request:{id(request)}-{time.monotonic_ns()}"


def answer(writer: Connection, function: Callable[[], Any]) -> None:
    """The forked process: send ("value", result), ("ValueError", message) or ("error", "Type: message"), computed
    with BLAS_THREADS BLAS threads."""
    try:
        with threadpool_limits(limits=BLAS_THREADS):
            reply = ("value", function())
    except ValueError as error:
        reply = ("ValueError", str(error))
    except Exception as error:  # noqa: BLE001 (sent to the parent, which raises it as a RuntimeError)
        reply = ("error", f"{type(error).__name__}: {error}")
    writer.send(reply)
    writer.close()


class BoundedBlocks(gr.Blocks):
    """`gr.Blocks` served with the bounded queue, and stopped promptly when launched to block."""

    def __init__(self, *args: Any, on_stop: Sequence[Callable[[], None]] = (), **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.on_stop = list(on_stop)  # run on stop, before the process exits (save what must be saved)
        self.stopping = False

    def launch(self, *args: Any, **options: Any) -> Any:
        self.queue(max_size=QUEUE_SIZE, default_concurrency_limit=DEFAULT_CONCURRENCY)
        blocking = not options.get("prevent_thread_lock") and threading.current_thread() is threading.main_thread()
        launched = super().launch(*args, **(options | {"prevent_thread_lock": True}))
        if blocking:  # after gradio's launch, which may set handlers of its own (its Node server's)
            for number in STOP_SIGNALS:
                signal.signal(number, self.stop)
            self.block_thread()
        return launched

    def stop(self, signum: int, frame: Any) -> None:
        """Stop taking requests, kill the computations, let the requests under way finish (STOP_GRACE_S), run the
        `on_stop` hooks and exit at once (a worker thread still running is not waited for)."""
        if self.stopping:  # a second signal while the hooks run
            return
        self.stopping = True
        print(f"{signal.Signals(signum).name}: stopping", flush=True)
        self._queue.close()
        for process in list(RUNNING):
            process.kill()
        deadline = time.monotonic() + STOP_GRACE_S
        while any(self._queue.active_jobs) and time.monotonic() < deadline:
            time.sleep(0.05)
        for hook in self.on_stop:
            try:
                hook()
            except Exception as error:  # noqa: BLE001 (one hook failing must not keep the others from running)
                warnings.warn(f"on stop: {type(error).__name__}: {error}", stacklevel=1)
        node = getattr(self, "node_process", None)
        if node is not None:
            node.terminate()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
