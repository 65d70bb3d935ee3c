"""The arena's behaviour against hostile use, without a browser: racing vote buttons and oversized ids."""

from __future__ import annotations

import threading

from longform_eval.spaces.arena import ALREADY_VOTED, VOTES, Arena
from longform_eval.spaces.storage import VoteStore


def arena_without_leaderboard(pool, path, judge=None) -> Arena:
    """The leaderboard (plots, bootstrap) is not under test here and takes a second per vote: left out."""
    arena = Arena(pool, VoteStore(path), judge, seed=1)
    arena.leaderboard = lambda: ()
    return arena


class JudgeThatWaitsForAllFour:
    """Holds every vote between the "already voted?" look-up and the insert until all four arrived: the race."""

    def __init__(self):
        self.arrived = threading.Barrier(4, timeout=10)

    def judge(self, question: str, answer_a: str, answer_b: str):
        self.arrived.wait()
        return None


def test_four_vote_buttons_fired_at_once_record_one_vote(small_pool, tmp_path):
    arena = arena_without_leaderboard(small_pool, tmp_path / "v.sqlite", JudgeThatWaitsForAllFour())
    _, _, _, state, _ = arena.new_pair("", "", {})
    reveals = []

    def press(label: str) -> None:
        _, reveal, *_ = arena.vote(label, "ann", state)
        reveals.append(reveal)

    threads = [threading.Thread(target=press, args=(label,)) for label in VOTES]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert arena.store.count() == 1 and arena.store.votes()[0].token == state["token"]
    assert sum(r.startswith("You voted") for r in reveals) == 1 and reveals.count(ALREADY_VOTED) == 3
    _, reveal, *_ = arena.vote("A is better", "ann", state)  # later, one at a time: refused before the judge runs
    assert reveal == ALREADY_VOTED and arena.store.count() == 1


def test_each_comparison_gets_its_own_token(small_pool, tmp_path):
    arena = arena_without_leaderboard(small_pool, tmp_path / "v.sqlite")
    _, _, _, first, _ = arena.new_pair("", "", {})
    _, _, _, second, _ = arena.new_pair("", "", first)
    assert first["token"] != second["token"] and first["session"] == second["session"]
    arena.vote("A is better", "ann", first)
    arena.vote("B is better", "ann", second)
    assert arena.store.count() == 2


def test_a_5mb_annotator_id_is_refused_with_a_message_and_nothing_is_stored(small_pool, tmp_path):
    arena = arena_without_leaderboard(small_pool, tmp_path / "v.sqlite")
    _, _, _, state, _ = arena.new_pair("", "", {})
    huge = "x" * 5_000_000
    _, reveal, *_ = arena.vote("A is better", huge, state)
    assert reveal == "**Not saved: annotator id is too long (5,000,000 characters; at most 64).**"
    _, reveal, *_ = arena.vote("A is better", "ann\r\nInjected: header", state)
    assert "control characters" in reveal and arena.store.count() == 0
    _, reveal, *_ = arena.vote("A is better", "  ", state)  # blank stays "anonymous"; the comparison was not spent
    assert reveal.startswith("You voted") and arena.store.votes()[0].annotator == "anonymous"

    _, _, annotation_state, *_ = arena.annotation_item("", {})
    assert "too long" in arena.save_annotation(huge, annotation_state, 5.0, *["1"] * 7)
    assert arena.store.annotations() == []

    prompt, *_, message = arena.new_pair("", huge, {})
    assert prompt == "" and "subcategory filter is too long" in message
