"""The leaderboard, computed once per change of the vote count and then served from memory.

A vote is an insert and nothing else; the leaderboard (Elo, Bradley-Terry bootstrap, heat map, run scores) is
computed when someone looks at it and the store holds another number of votes than when it was last computed.
Viewers who ask while it is being computed wait for that one computation instead of starting their own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from .leaderboard import Board, compute_board
from .storage import Vote, VoteStore

Compute = Callable[[Sequence[Vote], Sequence[Path]], Board]


class BoardCache:
    def __init__(self, runs: Sequence[Path] = (), compute: Compute = compute_board):
        self.runs = tuple(runs)
        self.compute = compute
        self.computations = 0  # how many times the board was computed (the tests count them)
        self._lock = threading.Lock()
        self._key: tuple[str, int] | None = None
        self._board: Board | None = None

    def current(self, store: VoteStore) -> Board:
        """The board for the votes in `store` now: cached unless the count of votes changed (or the store did)."""
        with self._lock:
            if self._board is None or self._key != (str(store.path), store.count()):
                votes = store.votes()
                self._board = self.compute(votes, self.runs)
                self._key = (str(store.path), len(votes))
                self.computations += 1
            return self._board
