"""The pairwise leaderboard of several run folders: every model met in the given runs, rated from all their
comparisons together.

A benchmark offers its comparisons through `Benchmark.pairwise_battles` (the pairwise benchmarks do); this module
knows nothing else about any benchmark. The runs of one benchmark config are rated together, each config on its
own. Per model: Elo (K = 4, mean of 20 seeded shuffles), Bradley-Terry and style-controlled Bradley-Terry with seeded
bootstrap 95% intervals. Per run: its win rate against its baseline beside the length-controlled win rate
(alpaca_eval 2.0 GLM; with the instruction-difficulty term when two or more models meet the same baseline).
`longform-eval report FOLDER...` writes `pairwise_leaderboard.md`, and per config a plot of the Bradley-Terry
intervals and a heat map of pairwise win rates, where `report_lengths` writes its view.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from longform_eval.common.atomic import write_text_atomic
from longform_eval.common.plurals import counted
from longform_eval.metric.pairwise import (
    Battle,
    LengthControlledWinRate,
    bradley_terry,
    elo_ratings,
    instruction_difficulty,
    length_controlled_win_rates,
    style_controlled_bradley_terry,
    win_rate_matrix,
)

from ..benchmarks import PairwiseBattle
from ..benchmarks.layouts import PairwiseLayout
from ..benchmarks.pairwise.scores import BOOTSTRAP, ELO
from ..benchmarks.run_scores import RunScores
from .lengths import output_folder
from .markdown import benchmark_of, load_scores
from .sections.plots import Plot, heat_map, interval_plot, split_plots
from .sections.tables import fmt, markdown_table

NAME = "pairwise_leaderboard"


@dataclass
class PairwiseRun:
    folder: Path
    benchmark: str
    scores: RunScores
    battles: list[PairwiseBattle]

    @property
    def figures(self) -> PairwiseLayout:
        return self.scores.figures


def pairwise_runs(folders: list[Path]) -> list[PairwiseRun]:
    """The runs among `folders` whose benchmark reports pairwise comparisons."""
    found = []
    for folder in folders:
        scores = load_scores(folder)
        battles = benchmark_of(scores).pairwise_battles(scores)
        if not battles:
            continue
        if scores.model == scores.figures.baseline:
            raise ValueError(
                f"{folder}: the model and its baseline are both {scores.model!r}; the leaderboard cannot tell "
                "them apart (give the baseline run another model name, e.g. import-generations --name)"
            )
        found.append(PairwiseRun(Path(folder), f"{scores.benchmark}:{scores.config}", scores, battles))
    return found


def as_battle(battle: PairwiseBattle) -> Battle:
    return Battle(battle.model, battle.baseline, battle.outcome, item_id=battle.item_id)


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def with_interval(rating: float | None, lower: float | None, upper: float | None, why: str | None = None) -> str:
    """`1012.8 [1001.2, 1024.0]`; without an interval `1012.8 [no interval: why]`; without a rating `- (why)`."""
    if rating is None:
        return f"- ({why})" if why else "-"
    if lower is None or upper is None:
        return f"{rating:.1f} [no interval{f': {why}' if why else ''}]"
    return f"{rating:.1f} [{lower:.1f}, {upper:.1f}]"


# ----- ratings of every model ------------------------------------------------------------------------------------
def model_rows(pairs: list[PairwiseBattle]) -> tuple[list[tuple], dict[str, tuple[float, float, float]]]:
    """One row per model, best Bradley-Terry rating first; and the BT intervals for the plot."""
    battles = [as_battle(b) for b in pairs]
    elo = elo_ratings(battles, **ELO)
    bt = bradley_terry(battles, **BOOTSTRAP)
    styled = style_controlled_bradley_terry(battles, [b.styles for b in pairs], **BOOTSTRAP)
    met = Counter(name for b in battles for name in (b.model_a, b.model_b))
    intervals = {m: (bt.ratings[m], bt.lower[m], bt.upper[m]) for m in bt.models if bt.ranked(m)}
    rows = [
        (
            model,
            met[model],
            fmt(elo[model], 1),
            with_interval(bt.ratings[model], bt.lower[model], bt.upper[model], bt.reasons.get(model)),
            with_interval(styled.ratings[model], styled.lower[model], styled.upper[model]),
        )
        for model in sorted(bt.models, key=lambda m: (not bt.ranked(m), -(bt.ratings[m] or 0.0)))
    ]
    return rows, intervals


# ----- win rate against the baseline, plain and length-controlled ------------------------------------------------
def length_controlled(pairs: list[PairwiseBattle]) -> dict[tuple[str, str], LengthControlledWinRate | str]:
    """Per (model, baseline): the fit, or why there is none."""
    by_baseline: dict[str, list[PairwiseBattle]] = defaultdict(list)
    for battle in pairs:
        by_baseline[battle.baseline].append(battle)
    fits: dict[tuple[str, str], LengthControlledWinRate | str] = {}
    for baseline, met in by_baseline.items():
        difficulty = instruction_effects(met, baseline)
        for model in sorted({b.model for b in met}):
            mine = [b for b in met if b.model == model]
            covariate = [difficulty[b.item_id] for b in mine] if difficulty else None
            try:
                fit = length_controlled_win_rates(
                    [as_battle(b) for b in mine], [b.lengths for b in mine], baseline, covariate
                )
                fits[(model, baseline)] = fit[model]
            except ValueError as error:
                fits[(model, baseline)] = str(error)
    return fits


def instruction_effects(met: list[PairwiseBattle], baseline: str) -> dict[str, float] | None:
    """AlpacaEval's instruction difficulty, when two or more models meet `baseline` (None otherwise)."""
    if len({b.model for b in met}) < 2:
        return None
    try:
        return instruction_difficulty(
            [as_battle(b) for b in met], [b.lengths for b in met], baseline, [b.item_id for b in met]
        )
    except ValueError:
        return None


def lc_cell(fit: LengthControlledWinRate | str | None) -> str:
    if not isinstance(fit, LengthControlledWinRate):
        return f"- ({fit or 'no fit'})"
    return percent(fit.length_controlled) + (" (with difficulty)" if "difficulty" in fit.coefficients else "")


def run_rows(runs: list[PairwiseRun], fits: dict[tuple[str, str], LengthControlledWinRate | str]) -> list[tuple]:
    return [
        (
            str(run.folder),
            run.scores.model,
            run.figures.baseline,
            str(run.scores.judge),
            run.figures.n_scored,
            percent(run.figures.win_rate),
            lc_cell(fits.get((run.scores.model, run.figures.baseline))),
            fmt(run.figures.gsb),
            percent(run.figures.flip_rate),
        )
        for run in runs
    ]


# ----- one config --------------------------------------------------------------------------------------------
def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")


def plots(benchmark: str, pairs: list[PairwiseBattle], intervals: dict, out: Path) -> list[Plot]:
    names, matrix = win_rate_matrix([as_battle(b) for b in pairs])
    percents = [[None if value != value else 100 * value for value in row] for row in matrix.tolist()]
    return [
        interval_plot(
            out / f"pairwise_bt_{slug(benchmark)}.png",
            intervals,
            xlabel="Bradley-Terry rating (Elo scale) with bootstrap 95% interval",
            title=f"{benchmark}: Bradley-Terry ratings",
        ),
        heat_map(
            out / f"pairwise_win_rates_{slug(benchmark)}.png",
            names,
            percents,
            title=f"{benchmark}: pairwise win rates (ties count half)",
        ),
    ]


def config_lines(benchmark: str, runs: list[PairwiseRun], out: Path) -> list[str]:
    pairs = [battle for run in runs for battle in run.battles]
    models, intervals = model_rows(pairs)
    drawn, absent = split_plots(plots(benchmark, pairs, intervals, out))
    judges = sorted({str(run.scores.judge) for run in runs})
    mixed = [f"The runs were judged by {counted(len(judges), 'judge')} ({', '.join(judges)}); the ratings mix them."]
    return [
        f"## {benchmark}",
        "",
        *(mixed if len(judges) > 1 else []),
        *markdown_table(
            ("model", "comparisons", "Elo", "Bradley-Terry [95% CI]", "style-controlled BT [95% CI]"), models
        ),
        "",
        *markdown_table(
            ("run", "model", "baseline", "judge", "scored", "win rate", "LC win rate", "GSB", "flip rate"),
            run_rows(runs, length_controlled(pairs)),
        ),
        "",
        *[f"![{path.stem}]({path.name})" for path in drawn],
        *absent,
        "",
    ]


def leaderboard_lines(runs: list[PairwiseRun], out: Path) -> list[str]:
    by_config: dict[str, list[PairwiseRun]] = defaultdict(list)
    for run in runs:
        by_config[run.benchmark].append(run)
    lines = [
        "# Pairwise leaderboard",
        "",
        "Every model met in the given runs, rated from all their comparisons of one benchmark config. Elo: K = 4, "
        "start 1000, mean of 20 seeded shuffles. Bradley-Terry: maximum likelihood on the Elo scale, 95% intervals "
        f"from {BOOTSTRAP['bootstrap']} seeded bootstrap rounds; style-controlled: arena-hard's length and markdown "
        "covariates held out. Both ties (equally good, equally bad) count half a win. Win rate is each run's against "
        "its own baseline; LC: alpaca_eval 2.0's length-controlled win rate (with the instruction-difficulty term "
        "when two or more models meet the same baseline).",
        "",
    ]
    for benchmark, members in by_config.items():
        lines += config_lines(benchmark, members, out)
    return lines


def write_pairwise_view(folders: list[Path], out: Path | None = None) -> tuple[Path, list[str]] | None:
    """Write the leaderboard for the runs that have pairwise comparisons; None when none has."""
    runs = pairwise_runs(folders)
    if not runs:
        return None
    out = out or output_folder(folders)
    lines = leaderboard_lines(runs, out)
    return write_text_atomic(out / f"{NAME}.md", "\n".join(lines).rstrip("\n") + "\n"), lines


def print_pairwise_view(folders: list[Path]) -> None:
    """Print the leaderboard and where it was written, for `longform-eval report`; nothing without pairwise runs."""
    written = write_pairwise_view(folders)
    if written is not None:
        path, lines = written
        print("\n".join(line for line in lines if not line.startswith("![")).rstrip())
        print(path)
