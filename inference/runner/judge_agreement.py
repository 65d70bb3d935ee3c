"""A judge against human labels, to calibrate it before trusting it: PandaLM's 999 human-labelled A/B items.

Each item (instruction, input, two responses) carries three human labels (0 tie, 1 the first response better, 2 the
second). The judge sees every item as the pairwise benchmarks show theirs (`benchmarks.pairwise.calls`: both orders, or
a 1-10 score per response), its verdict is compared with the human majority on three labels (`LABELS`: A, B, tie;
both of the judge's ties are a tie; the package's one `Agreement`, whose label set is written beside every figure),
and the released GPT-3.5 and PandaLM-7B verdicts on the same items stand beside it. Raw
judge completions are kept in `<out>/judgements.jsonl`, keyed by item, judge and settings: a rerun makes only the
missing calls, and parsing is redone from them.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from longform_eval.common.errors import SourceError
from longform_eval.common.records import read_json, require
from longform_eval.dataset_builder.sources import Upstream, resolve_source
from longform_eval.metric import Unscored
from longform_eval.metric.pairwise import Outcome, flip_rate, judge_agreement, swap
from longform_eval.metric.pairwise.agreement_intervals import METHOD as AGREEMENT_METHOD
from longform_eval.metric.pairwise.agreement_intervals import rate_interval
from longform_eval.metric.uncertainty.groups import as_dicts

from ..backends import Backend, create_backend
from ..backends.base import Request, Result
from ..benchmarks import JudgeCall
from ..benchmarks.pairwise.calls import FIRST, SECOND, Mode, PairItem, item_verdict, pair_calls, parse_reply
from ..config import GenerationConfig, ModelSpec
from ..progress import stage_progress
from .failures import log_failure
from .records import RecordLog
from .schema import config_hash

PANDALM = Upstream("WeOpenML/PandaLM", "3871806e72b4832f815ecafd24d3503c73403f48")
TEST_SET = "testset-v1.json"
ANNOTATORS = ("annotator1", "annotator2", "annotator3")
HUMAN_LABELS = {0: "tie", 1: "A", 2: "B"}
RELEASED = {  # the judges whose verdicts PandaLM released: file, field
    "GPT-3.5 (released)": ("gpt-3.5-turbo-testset-v1.json", "gpt_result"),
    "PandaLM-7B (released)": ("pandalm-7b-testset-v1.json", "pandalm_result"),
}
RELEASED_LABELS = {"0": "tie", "Tie": "tie", "1": "A", "2": "B"}
FAILURES_FILE = "failures.jsonl"
LABELS = 3  # PandaLM's human labels have three classes: A, B, tie


@dataclass(frozen=True)
class HumanItem:
    pair: PairItem
    labels: tuple[str, ...]

    @property
    def majority(self) -> str | None:
        label, votes = Counter(self.labels).most_common(1)[0]
        return label if votes * 2 > len(self.labels) else None


def pandalm_folder(source: str | Path | None) -> Path:
    """The folder holding the test set: --source, the local copy, or the pinned upstream (its `data/`)."""
    folder = resolve_source("pandalm", source, PANDALM)
    for candidate in (folder, folder / "data"):
        if (candidate / TEST_SET).is_file():
            return candidate
    raise SourceError(folder / TEST_SET, None, None, "file not found (nor in data/)")


def read_items(folder: Path) -> list[HumanItem]:
    path = folder / TEST_SET
    records = read_json(path)
    if not isinstance(records, list):
        raise SourceError(path, None, None, "expected a JSON list of items")
    return [human_item(path, index, record) for index, record in enumerate(records)]


def human_item(path: Path, index: int, record: Any) -> HumanItem:
    row = f"item {index}"
    if not isinstance(record, dict):
        raise SourceError(path, row, None, "expected a JSON object")
    texts = {f: require(path, row, record, f, str) for f in ("instruction", "input")}
    # six responses are stored as JSON booleans (a model that answered "True"): their text is kept
    texts |= {f: str(require(path, row, record, f, (str, bool))) for f in ("response1", "response2")}
    idx = str(require(path, row, record, "idx", (int, str)))
    labels = []
    for field in ANNOTATORS:
        label = require(path, row, record, field, (int, str))
        if str(label) not in {str(k) for k in HUMAN_LABELS}:
            raise SourceError(path, row, field, f"expected 0, 1 or 2, got {label!r}")
        labels.append(HUMAN_LABELS[int(label)])
    question = texts["instruction"] + (f"\n\n{texts['input']}" if texts["input"].strip() else "")
    return HumanItem(PairItem(idx, question, texts["response1"], texts["response2"]), tuple(labels))


def released_verdicts(folder: Path) -> dict[str, dict[str, Outcome | str | Unscored]]:
    """Per released judge, its verdict by item id ("A", "B", "tie", or Unscored for a reply it could not give)."""
    found = {}
    for name, (file, field) in RELEASED.items():
        path = folder / file
        if not path.is_file():
            continue
        records = read_json(path)
        if not isinstance(records, list):
            raise SourceError(path, None, None, "expected a JSON list of verdicts")
        verdicts = {}
        for index, record in enumerate(records):
            idx = str(require(path, f"item {index}", record, "idx", (int, str)))
            value = str(require(path, f"item {index}", record, field, (str, int)))
            verdicts[idx] = RELEASED_LABELS.get(value, Unscored(f"released verdict {value[:20]!r}"))
        found[name] = verdicts
    return found


# ----- judging (resumable) --------------------------------------------------------------------------------------
class AgreementJudge:
    """The judge's calls on the items, recorded once each (raw completions, attempts) and re-parsed when read.

    A reply that does not parse is asked again up to `attempts` times; a failed call is logged in failures.jsonl
    (`failures.log_failure`), counted by its error and left pending.
    """

    def __init__(self, out: Path, judge: ModelSpec, settings: GenerationConfig, attempts: int, constrained: bool):
        self.judge, self.settings, self.attempts, self.constrained = judge, settings, attempts, constrained
        self.hash = config_hash(settings.model_dump(mode="json"), constrained)
        self.log = RecordLog(out / "judgements.jsonl", ("key", "judge", "config_hash"))
        self.failures = RecordLog(out / FAILURES_FILE, ("stage", "key"))
        self.failed: Counter[str] = Counter()
        self.todo: dict[str, JudgeCall] = {}
        self.retry: dict[str, JudgeCall] = {}
        self.history: dict[str, list[str]] = {}
        self.attempt = 0

    def completions(self) -> dict[str, str]:
        """The last completion of every finished call of this judge and these settings, by key."""
        identity = (self.judge.name, self.hash)
        return {r["key"]: r["completion"] for r in self.log.records() if (r["judge"], r["config_hash"]) == identity}

    def run(self, calls: list[JudgeCall], factory: Callable[[ModelSpec], Backend] = create_backend) -> int:
        """Make the missing calls; returns how many failed (left pending for the next run)."""
        done = self.completions()
        self.todo = {call.key: call for call in calls if call.key not in done}
        if not self.todo:
            return 0
        backend = factory(self.judge)
        try:
            with stage_progress(f"judge ({self.judge.name})", len(self.todo)) as tick:
                for attempt in range(1, self.attempts + 1):
                    self.attempt, self.retry = attempt, {}
                    backend.generate(self.requests(), self.settings, on_result=functools.partial(self.save, tick=tick))
                    self.todo = self.retry
                    if not self.todo:
                        break
        finally:
            self.log.close()
            self.failures.close()
            backend.close()
        return sum(self.failed.values())

    def requests(self) -> list[Request]:
        calls = self.todo.values()
        return [replace(c.request, json_schema=c.schema) if self.constrained else c.request for c in calls]

    def save(self, result: Result, tick: Callable[[], None]) -> None:
        call = self.todo[result.key]
        if result.error:
            log_failure(self.failures, self.failed, "judge", result, call.sample_id, self.judge.name)
            tick()
            return
        completions = self.history.setdefault(call.key, [])
        completions.append(result.text)
        if isinstance(parse_reply(call.meta["part"], result.text), Unscored) and self.attempt < self.attempts:
            self.retry[call.key] = call
            return
        record = {"key": call.key, "judge": self.judge.name, "config_hash": self.hash, "completion": result.text}
        self.log.append(record | {"completions": completions, "attempts": len(completions)})
        tick()


# ----- figures --------------------------------------------------------------------------------------------------
def item_calls(items: list[HumanItem], mode: Mode) -> list[JudgeCall]:
    return [call for item in items for call in pair_calls(item.pair, mode)]


def parsed(calls: list[JudgeCall], completions: dict[str, str]) -> dict[str, Any]:
    return {c.key: parse_reply(c.meta["part"], completions[c.key]) for c in calls if c.key in completions}


def agreement_figures(items: list[HumanItem], verdicts: dict[str, Any], mode: Mode, released: dict) -> dict:
    """Agreement with the human majority (combined and, in pairwise mode, per order), flip rate, released judges;
    each rate with its 95% interval over items (`intervals` beside it, None for a rate on a single item)."""
    humans = {item.pair.id: item.majority for item in items}
    judged = {item.pair.id: item_verdict(item.pair.id, item.pair.tag, verdicts, mode) for item in items}
    figures: dict[str, Any] = {
        "mode": mode,
        "n_items": len(items),
        "n_human_majority": sum(label is not None for label in humans.values()),
        "interval_method": AGREEMENT_METHOD,
        "agreement": compared({k: v.outcome for k, v in judged.items()}, humans),
    }
    if mode == "pairwise":
        first = {k: order_outcome(v.parts[FIRST]) for k, v in judged.items()}
        second = {k: order_outcome(v.parts[SECOND], swapped=True) for k, v in judged.items()}
        figures["orders"] = {
            "response 1 shown first": compared(first, humans),
            "response 2 shown first": compared(second, humans),
        }
        both = [
            (Outcome(v.parts[FIRST]), Outcome(v.parts[SECOND]))
            for v in judged.values()
            if v.parts[FIRST] is not None and v.parts[SECOND] is not None
        ]
        figures["flip_rate"] = flip_rate(both)
        figures["first_position_preference"] = first_position_preference(list(judged.values()))
        figures["intervals"] = as_dicts(
            {
                "flip_rate": rate_interval(flips_per_item(both), np.ones(len(both))),
                "first_position_preference": rate_interval(*first_choices(list(judged.values()))),
            }
        )
    figures["released"] = {
        name: compared({k: v for k, v in found.items() if k in humans}, humans) for name, found in released.items()
    }
    return figures


def compared(verdicts: dict[str, Any], humans: dict[str, str | None]) -> dict[str, Any]:
    """`judge_agreement`'s figures on LABELS labels, with the intervals of agreement and Cohen's kappa beside them."""
    return judge_agreement(verdicts, humans, labels=LABELS).to_dict()


def flips_per_item(both: list[tuple[Outcome, Outcome]]) -> np.ndarray:
    """1 where an item's decision changes when the responses swap, as `flip_rate` counts it."""
    return np.array([float(flip_rate([pair])) for pair in both])


def first_choices(verdicts) -> tuple[np.ndarray, np.ndarray]:
    """Per item: its decisive verdicts that chose the response shown first, and its decisive verdicts."""
    labels = [[label for label in (v.parts[FIRST], v.parts[SECOND]) if label in ("A", "B")] for v in verdicts]
    return np.array([sum(x == "A" for x in d) for d in labels], float), np.array([len(d) for d in labels], float)


def order_outcome(label: str | None, swapped: bool = False) -> Outcome | Unscored:
    """One order's verdict from the first response's side."""
    if label is None:
        return Unscored("unscored in this order")
    return swap(Outcome(label)) if swapped else Outcome(label)


def first_position_preference(verdicts) -> float | None:
    """Among decisive verdicts of both orders, the share that chose the answer shown first (0.5: no position bias)."""
    hits, decisive = first_choices(verdicts)
    return float(hits.sum() / decisive.sum()) if decisive.sum() else None
