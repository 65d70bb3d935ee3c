"""The benchmark contract: rows -> generation requests -> judge requests -> scores, and what scores.json holds.

A benchmark is one module in `inference/benchmarks/` (or in another package, declared under the entry-point group
`longform_eval.benchmarks`). It reads its rows from the published dataset, takes its paper settings from the
metric's settings file, and scores with `longform_eval.metric`; the runner, CLI and report know nothing else about
it. Its presentation (report sections, headline text, plots, published context) is a separate class in
`inference/report/sections/`, which the declaration names: this package imports nothing of `report` or `runner`.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from ..backends.base import Request
from ..config import GenerationConfig
from .layouts import field_value
from .run_scores import figures_of

if TYPE_CHECKING:  # annotations only: scipy and sklearn load with the benchmarks that compute with them
    from longform_eval.metric.pairwise import StyleFeatures
    from longform_eval.metric.uncertainty import Figure
    from longform_eval.metric.uncertainty.units import UnitTable

    from .layouts import Layout
    from .run_scores import RunScores

THINK = re.compile(r"<think>.*?</think>\s*", re.DOTALL)


def strip_think(text: str) -> tuple[str, bool]:
    """Remove `<think>...</think>` blocks; an unclosed `<think>` hides everything after it."""
    stripped = THINK.sub("", text)
    if "<think>" in stripped:
        stripped = stripped[: stripped.index("<think>")]
    return stripped, stripped != text


@dataclass(frozen=True)
class JudgeCall:
    """One judge request, what it is about, and the JSON schema its answer must follow when judging is constrained."""

    key: str
    sample_id: str
    request: Request
    meta: dict[str, Any] = field(default_factory=dict)
    schema: dict[str, Any] | None = None


class BenchmarkArgs(BaseModel):
    """Options of one benchmark (`--benchmark-arg k=v`); a subclass declares the typed fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class PaperSettings:
    """How the paper generated and judged: the defaults, and what every deviation is measured against."""

    generation: GenerationConfig
    judge: GenerationConfig
    judge_model: str
    judge_attempts: int
    parser: str = "upstream"


SAMPLING_FIELDS = ("temperature", "top_p", "top_k", "seed", "chat_template")


def sampling_config(block: Any, max_new_tokens: int, **fields: Any) -> GenerationConfig:
    """A block of a metric's settings file (whichever of SAMPLING_FIELDS it has) as a GenerationConfig."""
    values = {name: getattr(block, name) for name in SAMPLING_FIELDS if hasattr(block, name)}
    return GenerationConfig(max_new_tokens=max_new_tokens, **{**values, **fields})


def paper_settings_from(generation: Any, judge: Any, max_new_tokens: int, **generation_fields: Any) -> PaperSettings:
    """PaperSettings from a settings file's `generation` and `judge` blocks (the judge block names its model,
    max_tokens, attempts and parser)."""
    return PaperSettings(
        generation=sampling_config(generation, max_new_tokens, **generation_fields),
        judge=sampling_config(judge, judge.max_tokens),
        judge_model=judge.model,
        judge_attempts=judge.attempts,
        parser=judge.parser,
    )


@dataclass(frozen=True)
class LengthTarget:
    """One output against the length its prompt asked for, counted in the benchmark's own `unit`.

    `kind` is "about" for a target length, "at least" for a minimum.
    """

    id: str
    required: int
    actual: int
    unit: str
    kind: str = "about"


@dataclass(frozen=True)
class PairwiseBattle:
    """One judged comparison of a run's model with its baseline, seen from the model's side (`outcome` "A": the
    model's answer was better); answer lengths in characters and answer styles, model's first."""

    item_id: str
    model: str
    baseline: str
    outcome: str
    lengths: tuple[int, int]
    styles: tuple[StyleFeatures, StyleFeatures]


@dataclass(frozen=True)
class ChecklistRow:
    """One judged row of a checklist benchmark, as human checklist annotations calibrate it: the judge's row score
    (0..100, weighted as the metric weighs it), the task it counts in and the subcategory whose weights apply."""

    id: str
    task: str
    subcategory: str
    score: float


@dataclass(frozen=True)
class RunAnswers:
    """Another run folder as a benchmark reads it (a pairwise baseline): what it ran, its model, and that model's
    current answers by sample id (`<think>` stripped if that run strips it)."""

    benchmark: str
    config: str
    model: str
    answers: dict[str, str]


RunReader = Callable[[Path], RunAnswers]


class Benchmark(ABC):
    """Subclass, set the class attributes, implement the abstract methods, and declare it (`longform_eval.registry`).

    Required: `name`, `configs`, `default_config`, `paper_settings`, `generation_request`, `judge_calls`, `parse`,
    `score`. Optional (defaults below): row preparation and ordering, deviations, and what is read back from
    scores.json: `length_targets`, `pairwise_battles`, and for intervals `unit_table`, `figures`, `figure_path`,
    `fitted_intervals`. Nothing here formats text: that is the presentation's (`inference/report/sections/`). A row
    handed to a method is read-only: the runs of one benchmark config in a process share their rows.
    """

    name: ClassVar[str]
    configs: ClassVar[tuple[str, ...]]
    default_config: ClassVar[str]
    parsers: ClassVar[tuple[str, ...]] = ("upstream",)
    Args: ClassVar[type[BenchmarkArgs]] = BenchmarkArgs
    group_field: ClassVar[str] = "task"  # --per-group counts rows per value of this field
    subgroup_fields: ClassVar[tuple[str, ...]] = ()  # --subcategory matches these fields too
    text_field: ClassVar[str] = "prompt"  # the question shown for a row; `quick_order` sorts by its length
    headline_scale: ClassVar[str | None] = None  # the range of the headline figure, e.g. "-300..100"
    headline_figure: ClassVar[str | None] = None  # its name in scores.json's `intervals` (None: the first there)
    percent_figures: ClassVar[frozenset[str]] = frozenset()  # figures scores.json keeps as fractions, printed x100
    # What the benchmark's figures look like in scores.json (`layouts.py`); None: only every scores.json's fields.
    scores_layout: ClassVar[type[BaseModel] | None] = None
    # The model under test as its backend names it (`BACKEND:MODEL`'s MODEL, e.g. "/models/Llama-3.1-8B-Instruct"),
    # set by `create_benchmark`; None when not known (imported generations). Upstream's settings may depend on it.
    model: str | None = None
    # How another run folder is read (set by the runner, which owns run folders); None: a benchmark that needs one
    # (a pairwise baseline run) says so.
    read_run: RunReader | None = None
    # How a value derived from a text is cached (set by the runner: by content hash in the run folder); None: computed.
    derive: Callable[[str, str, Callable[[str], Any]], Any] | None = None
    # The values `score` derives from each response through `derived` ({kind: compute}, e.g. HelloBench's word
    # counts): the runner computes those not cached yet before it scores, under a progress line of this label, so that
    # a slow rule never leaves the score step silent.
    response_values: ClassVar[dict[str, Callable[[str], Any]]] = {}
    response_values_label: ClassVar[str] = "derived values"

    def __init__(self, config: str | None = None, args: dict[str, Any] | BenchmarkArgs | None = None):
        self.config = config or self.default_config
        if self.config not in self.configs:
            raise ValueError(f"{self.name} has no config {self.config!r}; choose one of {', '.join(self.configs)}")
        self.args = args if isinstance(args, BenchmarkArgs) else self.Args(**(args or {}))

    def derived(self, kind: str, text: str, compute: Callable[[str], Any]) -> Any:
        """`compute(text)`, from the run's cache of derived values where it has one (`kind` names the rule: a new
        rule is a new kind)."""
        return compute(text) if self.derive is None else self.derive(kind, text, compute)

    def build_options(self) -> dict[str, Any]:
        """Options for the builder when the default dataset folder is built on first use."""
        return {}

    def prepare_rows(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Rows as loaded from the dataset -> rows as this benchmark uses them (default: unchanged)."""
        return rows

    @abstractmethod
    def paper_settings(self) -> PaperSettings: ...

    def deviations(self, judge_attempts: int) -> list[str]:
        """Differences from upstream that scores.json's field-by-field comparison with `paper_settings` cannot see
        (how requests are built for `self.model`, what makes the judge ask again), one line each (default: none)."""
        return []

    @abstractmethod
    def generation_request(self, row: dict[str, Any]) -> Request: ...

    def generation_requests(self, rows: list[dict[str, Any]]) -> list[Request]:
        return [self.generation_request(row) for row in rows]

    @abstractmethod
    def judge_calls(self, row: dict[str, Any], response: str) -> list[JudgeCall]:
        """The judge requests for one response (already think-stripped if the run asks for it)."""

    def judge_keys(self, row: dict[str, Any], response: str) -> list[str]:
        """The keys of `judge_calls(row, response)` without building their prompts: what a reader asks to learn
        whether a run is fully judged. Override where a key does not depend on the prompt text (the default builds
        the calls)."""
        return [call.key for call in self.judge_calls(row, response)]

    def judge_requests(self, rows: list[dict[str, Any]], responses: dict[str, str]) -> list[JudgeCall]:
        return [call for row in rows if row["id"] in responses for call in self.judge_calls(row, responses[row["id"]])]

    @abstractmethod
    def parse(self, call: JudgeCall, row: dict[str, Any], completion: str, parser: str) -> Any:
        """A verdict, or `Unscored(reason)`; a parser rescue is reported as `(verdict, rescue_name)`."""

    @abstractmethod
    def score(self, rows: list[dict[str, Any]], responses: dict[str, str], verdicts: dict[str, Any]) -> Layout:
        """Figures from the scored responses (`verdicts`: judge-call key -> verdict or Unscored), `typed_figures`."""

    def typed_figures(self, figures: dict[str, Any]) -> Layout:
        """`figures` (a JSON object) as this benchmark's `scores_layout`, checked: a ScoresInvalid naming the field."""
        return figures_of(self.scores_layout, figures)

    def quick_order(self, row: dict[str, Any]) -> tuple:
        """How `--shortest` ranks rows: those quickest to evaluate meaningfully first (default: shortest prompt)."""
        return (len(row[self.text_field]),)

    # ----- read back from scores.json: a run's (`RunScores`), or its figures (`RunScores.figures`, its `scores_layout`;
    # also each judge sample's when scoring, `run_scores.figures_of`) -----------------------------------------------
    def length_targets(self, scores: RunScores) -> list[LengthTarget]:
        """Outputs against the length their prompts asked for, read from scores.json (default: none).

        `longform-eval report` shows them for every run that has them, side by side (`report_lengths`).
        """
        return []

    # ----- uncertainty (longform_eval.metric.uncertainty): what the benchmark sampled and how its figures add up ----
    def unit_table(self, figures: Layout) -> UnitTable | None:
        """The units behind the figures (prompts, items), read from the figures' per-unit records; None (the default)
        when the benchmark's figures get no interval."""
        return None

    def figures(self, units: UnitTable) -> dict[str, Figure]:
        """Each top-level figure of scores.json, by its name there, from the unit columns (see `figure_path`)."""
        return {}

    def headline_of(self, names: Sequence[str]) -> str | None:
        """The headline figure among scores.json's figures `names` (its `intervals`' keys): `headline_figure` where
        the benchmark declares one, else the first. The one rule of every reader: report, API, comparisons, tables."""
        return self.headline_figure or (names[0] if names else None)

    def figure_path(self, name: str) -> tuple[str, ...]:
        """Where figure `name` sits in scores.json (default: at the top level)."""
        return (name,)

    def figure_value(self, figures: Layout, name: str) -> Any:
        """What the figures hold at figure `name`'s place (`figure_path`); None where they hold nothing."""
        found: Any = figures
        for key in self.figure_path(name):
            found = field_value(found, key)
        return found

    judge_noise_column: ClassVar[str | None] = None  # the unit column that is a row's score, for judge noise

    def fitted_intervals(self, figures: Layout) -> dict[str, tuple[dict[str, Any], str]]:
        """Intervals of figures that come from a fitted model rather than from sums (too slow to refit on every
        resample): {name: ({"low", "high", "se", "n"}, how it was computed)} (default: none)."""
        return {}

    # Which human labels calibrate the headline figure (`longform-eval calibrate`): "pairwise" (people's votes on the
    # comparisons of `pairwise_battles`), "checklists" (people's checklist annotations of `checklist_rows`), or None.
    human_labels: ClassVar[str | None] = None

    def checklist_rows(self, scores: RunScores) -> list[ChecklistRow]:
        """The run's judged rows with their row scores, read from scores.json (default: none)."""
        return []

    def pairwise_battles(self, scores: RunScores) -> list[PairwiseBattle]:
        """The run's judged comparisons with a baseline, read from scores.json (default: none).

        `longform-eval report` rates every model met in the given runs that have them (`report_pairwise`).
        """
        return []
