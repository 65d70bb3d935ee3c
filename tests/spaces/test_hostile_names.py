"""Names and other text from run folders and the vote store (model names, annotator ids, sample ids, task names,
judge reasons) reach the page as text: no HTML element, no link, no broken table row. The markdown the Space sends
is rendered here with markdown-it (CommonMark with GFM tables, gradio's own dialect) to see what a browser gets."""

from __future__ import annotations

import html
import io
import re

import pytest
from markdown_it import MarkdownIt

from longform_eval.inference.backends.base import Result
from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.cli import main as cli_main
from longform_eval.metric.pairwise import Battle, Outcome
from longform_eval.spaces.app import build_app
from longform_eval.spaces.arena import VOTES, Arena
from longform_eval.spaces.board_text import ARENA_HEADERS
from longform_eval.spaces.items import item_of
from longform_eval.spaces.judging import ArenaJudge
from longform_eval.spaces.leaderboard import (
    ANNOTATOR_HEADERS,
    ANNOTATOR_TYPES,
    ARENA_TYPES,
    RATING_HEADERS,
    RATING_TYPES,
    RUN_HEADERS,
    RUN_TYPES,
    TEXT,
    win_rate_figure,
)
from longform_eval.spaces.pool import ResponsePool
from longform_eval.spaces.safe_markdown import inert_text
from longform_eval.spaces.storage import VoteStore

from .conftest import import_run

NAMES = ("<b>x</b>", "<script>alert(1)</script>", "[a](javascript:alert(1))", "x|y")
MODELS = [f"imported:{name}" for name in NAMES]
ANNOTATOR = "<b>ann</b>|[me](javascript:alert(2))"
MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])
TAG = re.compile(r"<(\w+)")
TEMPLATE_TAGS = {"p", "strong", "em", "code"}  # what the reveal's and the leaderboard summary's own markdown makes
TABLE_TAGS = {"table", "thead", "tbody", "tr", "th", "td"}


def rendered(markdown: str) -> str:
    return MARKDOWN.render(markdown)


def assert_inert(markdown: str, tags: set[str] = TEMPLATE_TAGS) -> str:
    """`markdown` holds no raw tag or markdown link and renders to no element but `tags` (the template's own: no
    `<b>`, `<script>`, `<a>`, `<img>`) and no link; the rendered HTML."""
    assert "<b>" not in markdown and "<script" not in markdown and "](javascript:" not in markdown
    page = rendered(markdown)
    assert set(TAG.findall(page)) <= tags and "href" not in page, page
    return page


def plain(markdown: str) -> str:
    """The text a reader sees: the rendered HTML without its tags, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", rendered(markdown))).strip()


def markdown_table(headers: list[str], rows: list[list]) -> str:
    """The rows as a GFM markdown table, as a "markdown" Dataframe would lay them out."""
    lines = [headers, ["---"] * len(headers), *[[str(cell) for cell in row] for row in rows]]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


@pytest.fixture(scope="module")
def hostile_runs(zh_rows, tmp_path_factory):
    """Four run folders of LongBench-Write, imported with `--name` holding markup, all scored."""
    root = tmp_path_factory.mktemp("hostile-runs")
    runs = [
        import_run(root / f"run{i}", "longbench_write:all", {row["id"]: f"answer {i}" for row in zh_rows}, name)
        for i, name in enumerate(NAMES)
    ]
    for run in runs:
        assert cli_main(["score", str(run)]) == 0
    return runs


@pytest.mark.parametrize(
    "name",
    [
        *NAMES,
        "a`b` and ``c``",
        "*em* _u_ ~~s~~ **b**",
        "a\\*b\\",
        "&amp; &lt;b&gt;",
        "![i](x.png) <javascript:alert(1)> <https://example.org>",
        "$$x^2$$ #1 > q",
        "-",
        "# heading",
        "1. first",
        "+ plus - minus",
        "> quote",
        "---",
    ],
)
def test_inert_text_renders_as_exactly_its_characters(name):
    assert_inert(inert_text(name), {"p"})
    assert rendered(inert_text(name)).count("<p>") == 1 and plain(inert_text(name)) == name


def test_line_breaks_in_a_name_become_spaces_and_the_spaces_around_it_go():
    assert plain(inert_text("a\n# heading\r\n<b>x</b>\u2028y")) == "a # heading <b>x</b> y"
    assert inert_text("    code? ") == "code?" and inert_text(3.5) == "3\\.5"


def test_hostile_model_names_are_text_in_the_reveal_and_the_leaderboard(hostile_runs, tmp_path):
    arena = Arena(ResponsePool.load(hostile_runs), VoteStore(tmp_path / "v.sqlite"), runs=hostile_runs, seed=0)
    assert arena.pool.models() == sorted(MODELS)
    revealed: set[str] = set()
    for turn in range(60):
        _, _, _, state, _ = arena.new_pair("", "", {})
        reveal = arena.vote(list(VOTES)[turn % 4], ANNOTATOR, state)
        assert_inert(reveal)
        shown = plain(reveal)
        assert f"A was {state['model_a']}, B was {state['model_b']}." in shown
        revealed |= {state["model_a"], state["model_b"]}
        if revealed == set(MODELS):
            break
    assert revealed == set(MODELS)

    summary, note, standing, unranked, heatmap, *notes_and_tables = arena.leaderboard()
    human, judge, annotators, runs = notes_and_tables[1::2]
    for text in (summary, note, unranked, *notes_and_tables[::2]):
        assert_inert(text)
    heatmap.savefig(io.BytesIO(), format="png")
    assert judge == [] and len(human) == len(MODELS) and len(runs) == len(hostile_runs)
    assert len(standing) + len(re.findall(r"\(\d+ votes?\)", unranked)) == len(MODELS)  # ranked or listed below
    tables = [
        (standing, ARENA_HEADERS, ARENA_TYPES),
        (human, RATING_HEADERS, RATING_TYPES),
        (annotators, ANNOTATOR_HEADERS, ANNOTATOR_TYPES),
    ]
    for rows, headers, types in [*tables, (runs, RUN_HEADERS, RUN_TYPES)]:
        page = assert_inert(markdown_table(headers, rows), TABLE_TAGS)
        assert page.count("<tr>") == len(rows) + 1
        assert all(row.count("<td") == len(headers) for row in page.split("<tr>")[2:])  # no row split by a `|`
        for row in rows:
            assert len(row) == len(headers) and len(types) == len(headers)
            for cell, kind in zip(row, types, strict=True):
                if kind == TEXT:
                    assert_inert(cell, {"p"})
    assert sorted(plain(row[0]) for row in human) == sorted(MODELS)
    assert [plain(row[0]) for row in annotators] == [ANNOTATOR]
    assert sorted(plain(row[0]) for row in runs) == sorted(f"{name} · longbench_write:all" for name in NAMES)


def test_the_leaderboard_tables_show_their_text_columns_as_escaped_markdown(small_pool, tmp_path):
    app = build_app(Arena(small_pool, VoteStore(tmp_path / "v.sqlite")))
    tables = [block for block in app.blocks.values() if block.get_block_name() == "dataframe"]
    assert [t.datatype for t in tables] == [ARENA_TYPES, RATING_TYPES, RATING_TYPES, ANNOTATOR_TYPES, RUN_TYPES]
    assert [t.latex_delimiters for t in tables] == [[]] * 5
    assert ARENA_TYPES[2] == RATING_TYPES[0] == ANNOTATOR_TYPES[0] == TEXT and RUN_TYPES[:3] == [TEXT] * 3


def test_a_name_with_mathtext_does_not_break_the_win_rate_plot():
    battles = [Battle("a$\\foo$b", "x|y", Outcome.A, "ann", "i1"), Battle("$\\alpha$", "x|y", Outcome.B, "ann", "i2")]
    win_rate_figure(battles).savefig(io.BytesIO(), format="png")


class FailingJudge:
    """A judge backend whose every call fails with an error text that holds markup."""

    name = "failing"

    def generate(self, requests, config, on_result=None):
        return [
            Result(r.key, "", None, None, None, 0.0, error="<script>alert(1)</script> [a](javascript:x)")
            for r in requests
        ]


def test_a_judge_error_and_hostile_item_fields_are_text(hellobench_rows, small_pool, tmp_path):
    arena = Arena(small_pool, VoteStore(tmp_path / "v.sqlite"), ArenaJudge(FailingJudge()), seed=1)
    _, _, _, state, _ = arena.new_pair("", "", {})
    reveal = arena.vote("A is better", "ann", state)
    assert_inert(reveal)
    assert "judge call failed: <script>alert(1)</script> [a](javascript:x)" in plain(reveal)

    row = dict(hellobench_rows[0], id="<b>id</b>`x`", task="<script>t</script>", subcategory="[s](javascript:y)|z")
    item = item_of(create_benchmark("hellobench", "all"), row)
    assert_inert(item.heading(), {"p", "strong"})
    assert plain(item.heading()) == "hellobench · <script>t</script> / [s](javascript:y)|z (<b>id</b>`x`)"
