"""What each built-in benchmark's figures look like in scores.json (`Benchmark.scores_layout`).

`longform-eval report` checks a scores.json against its benchmark's layout before it writes anything, so that a
damaged file is one line naming the field (`field 'tasks.chat.score': Input should be a valid number`), not a
traceback halfway through report.md. Only what the reports read is declared; any other field is left as it is.
Types are strict: "60.5" is not a number, true is not a count. NaN and Infinity are refused before these checks,
when the JSON is read.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator, Field, PrivateAttr, Tag, model_validator

from longform_eval.common.bounded_json import json_copy
from longform_eval.metric.helloeval.weights import published_task_of


class Layout(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")


class Figures(Layout):
    """The top of a benchmark's figures (its `scores_layout`), keeping the JSON object it was read from (`figures_of`;
    only here: a private attribute costs every instance of a model, and a run's rows are hundreds of them)."""

    _document: dict[str, Any] | None = PrivateAttr(default=None)

    def document(self) -> dict[str, Any]:
        """The JSON object these figures were read from, as scores.json keeps it (a copy the caller may change);
        their fields as set where they were not read from one."""
        if self._document is None:
            return self.model_dump(mode="json", exclude_unset=True)
        return json_copy(self._document)


def figures_document(figures: BaseModel) -> dict[str, Any]:
    """`figures.document()`, or for a plug-in's own model its fields as set (`model_dump`)."""
    if isinstance(figures, Figures):
        return figures.document()
    return figures.model_dump(mode="json", exclude_unset=True)


def field_value(node: Any, key: str) -> Any:
    """The field `key` of a layout (declared or not) or of a JSON object; None where `node` has none."""
    if isinstance(node, BaseModel):
        return getattr(node, key) if key in type(node).model_fields else (node.model_extra or {}).get(key)
    return node.get(key) if isinstance(node, dict) else None


Count = Annotated[int, Field(ge=0)]
Figure = float | None  # None: no figure (nothing scored, or undefined on the data)


class Interval(Layout):
    """A figure's 95% interval, as `longform_eval.metric.uncertainty.Interval.to_dict` writes it."""

    low: float
    high: float
    se: float
    n: Count
    clipped: bool = False  # a bound was cut to the figure's scale


Intervals = dict[str, Interval | None]  # figure name -> its interval (None: the figure has none)


# ----- HelloBench -------------------------------------------------------------------------------------------------
def known_subcategory(name: str) -> str:
    if name not in published_task_of():
        raise ValueError("not a HelloBench subcategory")
    return name


class HelloGroup(Layout):
    n_scored: Count
    n_unscored: Count
    mean_row_score: Figure
    score: Figure
    mean_word_count: Figure


class HelloRow(Layout):
    id: str
    subcategory: Annotated[str, AfterValidator(known_subcategory)]  # its task stratifies the intervals
    words: Count | None = None
    row_score: Figure
    required: Count | None = None


class HelloBenchLayout(Figures):
    overall: Figure
    tasks: dict[str, HelloGroup]
    subcategories: dict[str, HelloGroup]
    n_scored: Count
    n_unscored: Count
    unscored_reasons: dict[str, Count]
    mean_word_count: Figure
    rows: list[HelloRow] = []


# ----- LongBench-Write ------------------------------------------------------------------------------------------
class LongBenchWritePart(Layout):
    n_items: Count
    n_scored: Count
    s_l: Figure
    s_q: Figure
    intervals: Intervals = {}


class LongBenchWriteRow(Layout):
    id: str
    required: Count
    length: Count
    s_l: Figure
    s_q: Figure


class LongBenchWriteLayout(Figures):
    s_l: Figure
    s_q: Figure
    s: Figure
    n_items: Count
    n_judged: Count
    n_scored: Count
    n_unscored: Count
    unscored_reasons: dict[str, Count]
    dimensions: dict[str, Figure]
    buckets: dict[str, LongBenchWritePart] = {}
    by_language: dict[str, LongBenchWritePart] = {}
    rows: list[LongBenchWriteRow] = []
    part_interval_method: str = ""


# ----- LongGenBench -----------------------------------------------------------------------------------------------
class CheckCounts(Layout):
    n_checks: Count
    n_judged: Count
    n_yes: Count


class LongGenBenchGroup(CheckCounts):
    n_unscored: Count
    stic1: Figure
    stic2: Figure
    cr: Figure = None


class PositionBin(LongGenBenchGroup):
    start: float
    end: float


class LongGenBenchRow(Layout):
    id: str
    words: Count
    required: Count | None = None
    cr: Figure = None  # with its check counts; a scores.json from before intervals has neither
    n_checks: Count | None = None
    n_judged: Count | None = None
    n_yes: Count | None = None

    @model_validator(mode="after")
    def counts_beside_cr(self) -> LongGenBenchRow:
        if "cr" in self.model_fields_set:
            CheckCounts.model_validate(
                self.model_dump(include=set(CheckCounts.model_fields), exclude_unset=True), strict=True
            )
        return self

    @property
    def counted(self) -> bool:
        """Whether the row has its completion rate and check counts (a unit of the intervals)."""
        return "cr" in self.model_fields_set


class LongGenBenchLayout(Figures):
    cr: Figure
    stic1: Figure
    stic2: Figure
    wavg: Figure
    length: Figure
    n_items: Count
    n_checks: Count
    n_judged: Count
    n_yes: Count
    n_unscored: Count
    by_type: dict[str, LongGenBenchGroup] = {}
    by_scenario: dict[str, LongGenBenchGroup] = {}
    by_position: list[PositionBin] = []
    rows: list[LongGenBenchRow] = []

    @model_validator(mode="wrap")
    @classmethod
    def nothing_generated_yet(cls, data: Any, handler: Any) -> LongGenBenchLayout:
        """A run with no generation has `{"n_items": 0}` and no figure."""
        if isinstance(data, dict) and type(data.get("n_items")) is int and data["n_items"] == 0:
            counts = dict.fromkeys((*CheckCounts.model_fields, "n_unscored"), 0)
            return cls.model_construct(**dict.fromkeys(("cr", "stic1", "stic2", "wavg", "length")), **counts, n_items=0)
        return handler(data)


# ----- pairwise (HelloBench pairwise, TencentLLMEval) -------------------------------------------------------------
class Outcomes(Layout):
    """Counts and rates of a group's comparisons (only `n` and `n_unscored` when none was scored)."""

    n: Count
    n_unscored: Count
    win_rate: Figure = None
    tencent_win_rate: Figure = None
    gsb: Figure = None
    equally_good_rate: Figure = None
    equally_bad_rate: Figure = None
    flip_rate: Figure = None
    intervals: Intervals = {}


EloScale = Annotated[float, Field(allow_inf_nan=False)]  # a rating on the Elo scale (not a group's figure)


class Rating(Layout):
    """A Bradley-Terry rating and its interval; None where there is none (`note` says why: too few battles)."""

    rating: EloScale | None
    lower: EloScale | None
    upper: EloScale | None
    note: str | None = None


class Styles(Layout):
    model_config = ConfigDict(strict=True, extra="forbid")  # read back as StyleFeatures(**styles)

    tokens: Count
    headers: Count
    lists: Count
    bold: Count


class Battle(Layout):
    id: str
    outcome: Literal["A", "B", "equally_good", "equally_bad"] | None
    chars: Annotated[list[Count], Field(min_length=2, max_length=2)]
    styles: Annotated[list[Styles], Field(min_length=2, max_length=2)]


class NoLengthControl(Layout):
    unavailable: str


class LengthControl(Layout):
    win_rate: float
    length_controlled_win_rate: float
    standard_error: float
    n: Count
    coefficients: dict[str, float]


def length_control_kind(value: Any) -> str:
    return "unavailable" if isinstance(value, dict) and "unavailable" in value else "fitted"


class PairwiseLayout(Figures):
    baseline: str | None
    mode: str
    n_items: Count
    n_no_baseline: Count
    n_scored: Count
    n_unscored: Count
    unscored_reasons: dict[str, Count]
    overall: Outcomes
    win_rate: Figure = None
    gsb: Figure = None
    flip_rate: Figure = None
    groups: dict[str, dict[str, Outcomes]]
    group_interval_method: str = ""
    elo: dict[str, float] = {}
    bradley_terry: dict[str, Rating] = {}
    style_controlled_bt: dict[str, Rating] = {}
    length_controlled: (
        Annotated[
            Annotated[NoLengthControl, Tag("unavailable")] | Annotated[LengthControl, Tag("fitted")],
            Discriminator(length_control_kind),
        ]
        | None
    ) = None
    length_controlled_win_rate: Figure = None
    battles: list[Battle] = []
