"""What the arena compares: questions of any benchmark and the responses of several models to them.

Responses come from run folders (`run_folders.read_runs`: any benchmark, read through its plug-in) and/or released
HelloBench responses (`released`: the `released_responses` config of a HelloBench dataset such as `ORG/hellobench`,
or a folder of model folders `<model>/<task>_results.jsonl[.gz]`, HelloBench's own layout). Two sources pair up on
the same item key (benchmark, config and sample id); a pairwise run folder also brings its baseline's answers
(reference answers or a baseline run's), so alone it pairs its model with its baseline, labelled with the baseline's
name. A line that does not parse (the torn last line of a killed run, a damaged record) is skipped with a warning
naming the file and line: one bad line never keeps the Space from starting.
"""

from __future__ import annotations

import random
import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from longform_eval.common.plurals import counted
from longform_eval.inference.benchmarks import create_benchmark
from longform_eval.inference.benchmarks.rows import benchmark_rows

from .items import Item, item_key, item_of
from .released import released_dataset, released_models
from .run_folders import read_runs

RELEASED_BENCHMARK = ("hellobench", "all")  # the layout of released responses is HelloBench's own


@dataclass(frozen=True)
class Pair:
    item_id: str  # the item key
    model_a: str
    model_b: str
    order_shown: str  # "sorted" if model_a < model_b, else "swapped"


class ResponsePool:
    def __init__(self, items: Iterable[Item], responses: Mapping[str, Mapping[str, str]]):
        self.by_key = {item.key: item for item in items}
        self.responses = {key: dict(r) for key, r in responses.items() if key in self.by_key}
        self.pairable = sorted(key for key, by_model in self.responses.items() if len(by_model) >= 2)

    @classmethod
    def load(
        cls,
        runs: Sequence[Path] = (),
        released: str | Path | None = None,
        source: str | None = None,
        dataset: str | None = None,
    ) -> ResponsePool:
        """Released HelloBench responses (see `released`; prompts from `dataset`, else from the released dataset,
        else from the cached build of `source`), then the responses of every run folder among and below `runs`."""
        pool = PoolBuilder()
        if released:
            add_released(pool, released, source, dataset)
        for run in read_runs(runs):
            pool.add(run.items, run.responses, run.model, str(run.folder.resolve()))
            if run.baseline is not None:  # a baseline run folder also given in `runs` is the same source: one model
                pool.add(run.items, run.baseline.responses, run.baseline.name, run.baseline.source)
        return pool.build()

    def item(self, key: str) -> Item:
        return self.by_key[key]

    def models(self) -> list[str]:
        return sorted({m for by_model in self.responses.values() for m in by_model})

    def groups(self) -> list[str]:
        """The group values (HelloBench tasks, LongBench-Write types, ...) that have a pair to show."""
        return sorted({self.by_key[key].group for key in self.pairable} - {""})

    def items(self, group: str | None = None, subgroup: str | None = None) -> list[str]:
        """Keys of the items with responses from two models or more that match the filters."""
        return [key for key in self.pairable if matches(self.by_key[key], group, subgroup)]

    def random_pair(self, rng: random.Random, group: str | None = None, subgroup: str | None = None) -> Pair:
        candidates = self.items(group, subgroup)
        if not self.pairable:
            raise LookupError(
                f"no question has responses from two models ({counted(len(self.models()), 'model')} read)"
            )
        if not candidates:
            raise LookupError("no question with responses from two models matches this filter")
        key = rng.choice(candidates)
        first, second = rng.sample(sorted(self.responses[key]), 2)
        return Pair(key, first, second, "sorted" if first < second else "swapped")

    def annotatable(self, group: str | None = None) -> list[str]:
        """Keys of the items with HelloEval checklists and at least one response."""
        return sorted(
            key
            for key, item in self.by_key.items()
            if item.checklists and self.responses.get(key) and matches(item, group, None)
        )

    def response(self, key: str, model: str) -> str:
        return self.responses[key][model]

    def holds(self, key: str, model_a: str, model_b: str) -> bool:
        """Whether the pool can show this pair: two different models that both answered this item."""
        by_model = self.responses.get(key, {})
        return model_a != model_b and model_a in by_model and model_b in by_model


def matches(item: Item, group: str | None, subgroup: str | None) -> bool:
    return (not group or item.group == group) and (not subgroup or subgroup in item.subgroup.split(" / "))


class PoolBuilder:
    """Collects items and responses from several sources; a model name already taken by another source gets the
    source's folder name appended, so two folders of one model never merge silently."""

    def __init__(self) -> None:
        self.by_key: dict[str, Item] = {}
        self.responses: dict[str, dict[str, str]] = defaultdict(dict)
        self.sources: dict[str, str] = {}

    def add(self, items: Mapping[str, Item], responses: Mapping[str, str], model: str, source: str) -> None:
        clashes = {k for k in responses if k in self.by_key and self.by_key[k].question != items[k].question}
        if clashes:
            warnings.warn(
                f"{source}: {counted(len(clashes), 'question')} {'differs' if len(clashes) == 1 else 'differ'} from "
                f"those already loaded under the same sample id (first: {min(clashes)}); their responses are skipped",
                stacklevel=2,
            )
        label = self.label(model, source)
        for key, text in responses.items():
            if key not in clashes:
                self.by_key.setdefault(key, items[key])
                self.responses[key].setdefault(label, text)

    def label(self, model: str, source: str) -> str:
        label = model if self.sources.get(model, source) == source else f"{model} ({Path(source).name})"
        self.sources.setdefault(label, source)
        return label

    def build(self) -> ResponsePool:
        return ResponsePool(self.by_key.values(), self.responses)


def add_released(pool: PoolBuilder, released: str | Path, source: str | None, dataset: str | None) -> None:
    """Every model of the released HelloBench responses, as one source each."""
    models = list(released_models(released))  # first: a dataset that cannot be read is named in one line
    benchmark = create_benchmark(*RELEASED_BENCHMARK)
    rows = benchmark_rows(benchmark, dataset or released_dataset(released), None, source)
    items = {item.key: item for item in (item_of(benchmark, row) for row in rows)}
    for model, origin, answers in models:
        responses: dict[str, str] = {}
        for sample_id, text in answers:
            key = item_key(benchmark, sample_id)
            if key in items:
                responses.setdefault(key, text)
        pool.add(items, responses, model, origin)
