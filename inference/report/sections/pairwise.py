"""The presentation of a pairwise run (hellobench-pairwise, tencentllmeval): the model against its baseline, rated
four ways, overall and per group."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from ...benchmarks.layouts import LengthControl, Outcomes, PairwiseLayout, Rating
from ...benchmarks.pairwise.scores import BASELINE, MODEL
from ...benchmarks.run_scores import RunScores
from .base import ReportSection, Sections
from .plots import bar_plot, split_plots
from .tables import fmt, fmt_figure, holds, interval_of, markdown_table

EVEN = 0.5  # the win rate of a model no better and no worse than its baseline


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def interval(rating: Rating | None) -> str:
    """A rating with its interval; `[no interval: why]` where it has none (too few comparisons to rank it)."""
    if rating is None:
        return "-"
    if rating.lower is None or rating.upper is None:
        why = rating.note
        return f"{fmt(rating.rating, 1)} [no interval{f': {why}' if why else ''}]"
    return f"{fmt(rating.rating, 1)} [{fmt(rating.lower, 1)}, {fmt(rating.upper, 1)}]"


def win_rate_text(source: BaseModel, name: str, value: float | None) -> str:
    """A win rate (a fraction in scores.json) as a percent with its 95% interval (`source`: the run's scores, or a
    group's outcomes, with their intervals)."""
    return fmt_figure(source, name, value, digits=1, scale=100, unit="%")


def tie_with_baseline(scores: RunScores) -> str:
    """`(a tie: ...)` when the win rate's interval holds 50%: the run does not tell the model from its baseline."""
    if not holds(interval_of(scores, "win_rate"), EVEN):
        return ""
    return " (a tie: the 95% interval holds 50%, so this run does not tell the model from its baseline)"


def headline_lines(scores: RunScores) -> list[str]:
    figures: PairwiseLayout = scores.figures
    overall = figures.overall
    lc = figures.length_controlled
    lc_text = (
        f"{win_rate_text(scores, 'length_controlled_win_rate', lc.length_controlled_win_rate)} "
        f"(SE {percent(lc.standard_error)})"
        if isinstance(lc, LengthControl)
        else f"not fitted ({lc.unavailable if lc is not None else 'no scored comparison'})"
    )
    flips = f"; flip rate {percent(figures.flip_rate)} (orders that disagree count as a tie)"
    return [
        f"**Win rate against {figures.baseline}: {win_rate_text(scores, 'win_rate', figures.win_rate)}**"
        f"{tie_with_baseline(scores)} (ties count half; TencentLLMEval's formula, which gives nothing for equally "
        f"bad: {percent(overall.tencent_win_rate)}); length-controlled win rate (alpaca_eval 2.0 GLM): "
        f"{lc_text}.",
        "",
        f"Judge mode `{figures.mode}`; GSB {fmt_figure(scores, 'gsb', overall.gsb)}; equally good "
        f"{percent(overall.equally_good_rate)}, equally bad {percent(overall.equally_bad_rate)}"
        + (flips if "flip_rate" in overall.model_fields_set else "")
        + f". Scored comparisons {figures.n_scored}, unscored {figures.n_unscored}, rows without a baseline "
        f"answer {figures.n_no_baseline}.",
    ]


def rating_lines(scores: RunScores) -> list[str]:
    figures: PairwiseLayout = scores.figures
    if "elo" not in figures.model_fields_set:
        return []
    names = {MODEL: scores.model, BASELINE: figures.baseline}
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
                    fmt(figures.elo.get(role), 1),
                    interval(figures.bradley_terry.get(role)),
                    interval(figures.style_controlled_bt.get(role)),
                )
                for role in (MODEL, BASELINE)
            ],
        ),
    ]


def group_table(field: str, groups: dict[str, Outcomes]) -> list[str]:
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
                g.n,
                g.n_unscored,
                win_rate_text(g, "win_rate", g.win_rate),
                percent(g.tencent_win_rate),
                fmt_figure(g, "gsb", g.gsb),
                percent(g.equally_good_rate),
                percent(g.equally_bad_rate),
                percent(g.flip_rate),
            )
            for name, g in groups.items()
        ],
    )


def pairwise_section(scores: RunScores, folder: Path) -> ReportSection:
    figures: PairwiseLayout = scores.figures
    if figures.baseline is None:
        return ReportSection(["No baseline was given: nothing was compared (pass --baseline)."])
    lines = [*headline_lines(scores), *rating_lines(scores)]
    for field, groups in figures.groups.items():
        lines += ["", *group_table(field, groups)]
    if figures.groups and "group_interval_method" in figures.model_fields_set:
        lines += ["", f"Group intervals: {figures.group_interval_method}."]
    if figures.unscored_reasons:
        lines += ["", "Unscored reasons:", *[f"- {r}: {n}" for r, n in figures.unscored_reasons.items()]]
    first_field = next(iter(figures.groups), None)
    rates = {
        name: 100 * g.win_rate for name, g in figures.groups.get(first_field, {}).items() if g.win_rate is not None
    }
    plot = bar_plot(
        folder / "win_rate_per_group.png",
        rates,
        ylabel="win rate (%)",
        title=f"Win rate against {figures.baseline} per {first_field}",
        unit=f"{first_field}s with a scored comparison",
    )
    plots, absent = split_plots([plot])
    return ReportSection(lines + ([""] + absent if absent else []), plots)


class PairwiseSections(Sections):
    def report_section(self, scores: RunScores, folder: Path) -> ReportSection:
        return pairwise_section(scores, folder)

    def headline(self, scores: RunScores) -> tuple[str, str]:
        figures: PairwiseLayout = scores.figures
        lc = figures.length_controlled_win_rate
        tie = "; a tie with the baseline at 95%" if holds(interval_of(scores, "win_rate"), EVEN) else ""
        return (
            fmt_figure(scores, "win_rate", figures.win_rate, digits=1, scale=100),
            f"win rate % vs {figures.baseline}{tie}; LC {fmt(None if lc is None else 100 * lc, 1)} "
            f"GSB {fmt(figures.gsb)} flips {fmt(figures.flip_rate)}",
        )
