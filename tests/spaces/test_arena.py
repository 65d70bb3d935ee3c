"""The arena's behaviour without a browser: votes are inserts (the leaderboard is cached apart), racing vote
buttons, 300 concurrent votes, oversized ids."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import gradio as gr

from longform_eval.spaces.arena import ALREADY_VOTED, VOTES, Arena
from longform_eval.spaces.storage import VoteStore


def arena_of(pool, path, judge=None) -> Arena:
    return Arena(pool, VoteStore(path), judge, seed=1)


class JudgeThatWaitsForAllFour:
    """Holds every vote between the "already voted?" look-up and the insert until all four arrived: the race."""

    def __init__(self):
        self.arrived = threading.Barrier(4, timeout=10)

    def judge(self, question: str, answer_a: str, answer_b: str):
        self.arrived.wait()
        return None


def test_four_vote_buttons_fired_at_once_record_one_vote(small_pool, tmp_path):
    arena = arena_of(small_pool, tmp_path / "v.sqlite", JudgeThatWaitsForAllFour())
    _, _, _, state, _ = arena.new_pair("", "", {})
    reveals = []

    def press(label: str) -> None:
        reveals.append(arena.vote(label, "ann", state))

    threads = [threading.Thread(target=press, args=(label,)) for label in VOTES]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert arena.store.count() == 1 and arena.store.votes()[0].token == state["token"]
    assert sum(r.startswith("You voted") for r in reveals) == 1 and reveals.count(ALREADY_VOTED) == 3
    reveal = arena.vote("A is better", "ann", state)  # later, one at a time: refused before the judge runs
    assert reveal == ALREADY_VOTED and arena.store.count() == 1


def test_each_comparison_gets_its_own_token(small_pool, tmp_path):
    arena = arena_of(small_pool, tmp_path / "v.sqlite")
    _, _, _, first, _ = arena.new_pair("", "", {})
    _, _, _, second, _ = arena.new_pair("", "", first)
    assert first["token"] != second["token"] and first["session"] == second["session"]
    arena.vote("A is better", "ann", first)
    arena.vote("B is better", "ann", second)
    assert arena.store.count() == 2


def test_a_5mb_annotator_id_is_refused_with_a_message_and_nothing_is_stored(small_pool, tmp_path):
    arena = arena_of(small_pool, tmp_path / "v.sqlite")
    _, _, _, state, _ = arena.new_pair("", "", {})
    huge = "x" * 5_000_000
    reveal = arena.vote("A is better", huge, state)
    assert reveal == "**Not saved: annotator id is too long (5,000,000 characters; at most 64).**"
    reveal = arena.vote("A is better", "ann\r\nInjected: header", state)
    assert "control characters" in reveal and arena.store.count() == 0
    reveal = arena.vote("A is better", "  ", state)  # blank stays "anonymous"; the comparison was not spent
    assert reveal.startswith("You voted") and arena.store.votes()[0].annotator == "anonymous"

    _, _, annotation_state, *_ = arena.annotation_item("", {})
    assert "too long" in arena.save_annotation(huge, annotation_state, 5.0, *["1"] * 7)
    assert arena.store.annotations() == []

    prompt, *_, message = arena.new_pair("", huge, {})
    assert prompt == "" and "subcategory filter is too long" in message


def test_a_vote_is_an_insert_and_the_leaderboard_is_computed_once_per_new_count(small_pool, tmp_path):
    arena = arena_of(small_pool, tmp_path / "v.sqlite")
    for label in [*VOTES] * 5:
        _, _, _, state, _ = arena.new_pair("", "", {})
        assert arena.vote(label, "ann", state).startswith("You voted")
    assert arena.store.count() == 20 and arena.board.computations == 0  # no vote computed the leaderboard
    summary, *_ = arena.leaderboard()
    assert summary.startswith("**20 human votes**") and arena.board.computations == 1
    assert arena.leaderboard()[0] == summary and arena.board.computations == 1  # served from the cache
    _, _, _, state, _ = arena.new_pair("", "", {})
    arena.vote("Both bad", "ann", state)
    assert arena.leaderboard()[0].startswith("**21 human votes**") and arena.board.computations == 2
    *outputs, shown = arena.board_update(None)  # a page that shows no board yet gets the whole board
    assert shown == 21 and outputs[0].startswith("**21 human votes**")
    assert arena.board_update(21) == (*[gr.skip()] * 13, 21)  # a timer tick on an unchanged board sends nothing
    assert arena.board.computations == 2


def test_viewers_waiting_on_one_computation_share_it(small_pool, tmp_path):
    arena = arena_of(small_pool, tmp_path / "v.sqlite")
    _, _, _, state, _ = arena.new_pair("", "", {})
    arena.vote("A is better", "ann", state)
    with ThreadPoolExecutor(8) as workers:
        summaries = set(workers.map(lambda _: arena.leaderboard()[0], range(8)))
    assert len(summaries) == 1 and arena.board.computations == 1


def test_300_votes_from_30_threads_store_exactly_300_rows(small_pool, tmp_path):
    arena = arena_of(small_pool, tmp_path / "v.sqlite")
    labels = list(VOTES)

    def client(number: int) -> list[str]:
        reveals, state = [], {}
        for i in range(10):
            _, _, _, state, _ = arena.new_pair("", "", state)
            reveals.append(arena.vote(labels[(number + i) % 4], f"client{number}", state))
        return reveals

    with ThreadPoolExecutor(30) as workers:
        reveals = [r for batch in workers.map(client, range(30)) for r in batch]
    assert all(r.startswith("You voted") for r in reveals)
    votes = arena.store.votes()
    assert arena.store.count() == len(votes) == 300 and len({v.token for v in votes}) == 300
    assert {v.annotator for v in votes} == {f"client{n}" for n in range(30)} and arena.board.computations == 0
