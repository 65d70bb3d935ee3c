"""The presentation of a pairwise run (hellobench-pairwise, tencentllmeval): the model against its baseline, rated
four ways, overall and per group."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...benchmarks.pairwise.scores import BASELINE, MODEL
from .base import ReportSection, Sections
from .plots import bar_plot, split_plots
from .tables import fmt, fmt_figure, holds, interval_of, markdown_table

EVEN = 0.5  # the win rate of a model no better and no worse than its baseline


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def interval(figures: dict[str, Any] | None) -> str:
    """A rating with its interval; `[no interval: why]` where it has none (too few comparisons to rank it)."""
    if not figures:
        return "-"
    if figures.get("lower") is None or figures.get("upper") is None:
        why = figures.get("note")
        return f"{fmt(figures.get('rating'), 1)} [no interval{f': {why}' if why else ''}]"
    return f"{fmt(figures['rating'], 1)} [{fmt(figures['lower'], 1)}, {fmt(figures['upper'], 1)}]"


def win_rate_text(scores: dict[str, Any], name: str, value: float | None) -> str:
    """A win rate (a fraction in scores.json) as a percent with its 95% interval."""
    return fmt_figure(scores, name, value, digits=1, scale=100, unit="%")


def tie_with_baseline(scores: dict[str, Any]) -> str:
    """`(a tie: ...)` when the win rate's interval holds 50%: the run does not tell the model from its baseline."""
    if not holds(interval_of(scores, "win_rate"), EVEN):
        return ""
    return " (a tie: the 95% interval holds 50%, so this run does not tell the model from its baseline)"


def headline_lines(scores: dict[str, Any]) -> list[str]:
    overall = scores["overall"]
    lc = scores.get("length_controlled", {})
    lc_text = (
        f"{win_rate_text(scores, 'length_controlled_win_rate', lc['length_controlled_win_rate'])} "
        f"(SE {percent(lc['standard_error'])})"
        if "length_controlled_win_rate" in lc
        else f"not fitted ({lc.get('unavailable', 'no scored comparison')})"
    )
    flips = f"; flip rate {percent(scores.get('flip_rate'))} (orders that disagree count as a tie)"
    return [
        f"**Win rate against {scores['baseline']}: {win_rate_text(scores, 'win_rate', scores.get('win_rate'))}**"
        f"{tie_with_baseline(scores)} (ties count half; TencentLLMEval's formula, which gives nothing for equally "
        f"bad: {percent(overall.get('tencent_win_rate'))}); length-controlled win rate (alpaca_eval 2.0 GLM): "
        f"{lc_text}.",
        "",
        f"Judge mode `{scores['mode']}`; GSB {fmt_figure(scores, 'gsb', overall.get('gsb'))}; equally good "
        f"{percent(overall.get('equally_good_rate'))}, equally bad {percent(overall.get('equally_bad_rate'))}"
        + (flips if "flip_rate" in overall else "")
        + f". Scored comparisons {scores['n_scored']}, unscored {scores['n_unscored']}, rows without a baseline "
        f"answer {scores['n_no_baseline']}.",
    ]


def rating_lines(scores: dict[str, Any]) -> list[str]:
    if "elo" not in scores:
        return []
    names = {MODEL: scores["model"], BASELINE: scores["baseline"]}
    return [
        "",
        "Ratings from this run's comparisons (Elo: K = 4, 20 seeded shuffles; Bradley-Terry on the Elo scale with "
        "bootstrap 95% intervals; style-controlled: arena-hard's length and markdown covariates held out):",
        "",
        *markdown_table(
            ("", "Elo", "Bradley-Terry [95% CI]", "style-controlled BT [95% CI]"),
            [
                (
                    names[role],
                    fmt(scores["elo"].get(role), 1),
                    interval(scores["bradley_terry"].get(role)),
                    interval(scores["style_controlled_bt"].get(role)),
                )
                for role in (MODEL, BASELINE)
            ],
        ),
    ]


def group_table(field: str, groups: dict[str, dict[str, Any]]) -> list[str]:
    return markdown_table(
        (
            field,
            "scored",
            "unscored",
            "win rate [95% CI]",
            "Tencent win rate",
            "GSB [95% CI]",
            "equally good",
            "equally bad",
            "flips",
        ),
        [
            (
                name,
                g["n"],
                g["n_unscored"],
                win_rate_text(g, "win_rate", g.get("win_rate")),
                percent(g.get("tencent_win_rate")),
                fmt_figure(g, "gsb", g.get("gsb")),
                percent(g.get("equally_good_rate")),
                percent(g.get("equally_bad_rate")),
                percent(g.get("flip_rate")),
            )
            for name, g in groups.items()
        ],
    )


def pairwise_section(scores: dict[str, Any], folder: Path) -> ReportSection:
    if scores.get("baseline") is None:
        return ReportSection(["No baseline was given: nothing was compared (pass --baseline)."])
    lines = [*headline_lines(scores), *rating_lines(scores)]
    for field, groups in scores["groups"].items():
        lines += ["", *group_table(field, groups)]
    if scores["groups"] and "group_interval_method" in scores:
        lines += ["", f"Group intervals: {scores['group_interval_method']}."]
    if scores["unscored_reasons"]:
        lines += ["", "Unscored reasons:", *[f"- {r}: {n}" for r, n in scores["unscored_reasons"].items()]]
    first_field = next(iter(scores["groups"]), None)
    rates = {
        name: 100 * g["win_rate"]
        for name, g in scores["groups"].get(first_field, {}).items()
        if g.get("win_rate") is not None
    }
    plot = bar_plot(
        folder / "win_rate_per_group.png",
        rates,
        ylabel="win rate (%)",
        title=f"Win rate against {scores['baseline']} per {first_field}",
        unit=f"{first_field}s with a scored comparison",
    )
    plots, absent = split_plots([plot])
    return ReportSection(lines + ([""] + absent if absent else []), plots)


class PairwiseSections(Sections):
    def report_section(self, scores: dict[str, Any], folder: Path) -> ReportSection:
        return pairwise_section(scores, folder)

    def headline(self, scores: dict[str, Any]) -> tuple[str, str]:
        lc = scores.get("length_controlled_win_rate")
        tie = "; a tie with the baseline at 95%" if holds(interval_of(scores, "win_rate"), EVEN) else ""
        return (
            fmt_figure(scores, "win_rate", scores.get("win_rate"), digits=1, scale=100),
            f"win rate % vs {scores.get('baseline')}{tie}; LC {fmt(None if lc is None else 100 * lc, 1)} "
            f"GSB {fmt(scores.get('gsb'))} flips {fmt(scores.get('flip_rate'))}",
        )
