"""What the arena shows as a question: one benchmark row, described through its benchmark plug-in.

The Space never branches on a benchmark's name: the question is the row's `text_field`, the group filter its
`group_field`, the subgroup its `subgroup_fields`. Rows that carry HelloEval checklists can also be annotated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from longform_eval.inference.benchmarks.base import Benchmark

from .safe_markdown import inert_text


@dataclass(frozen=True)
class Item:
    """One question. `key` names it in the vote store: rows of one benchmark config with the same sample id are
    the same question, whichever run folder they came from."""

    key: str
    benchmark: str
    sample_id: str
    question: str
    group: str
    subgroup: str
    checklists: tuple[str, ...] = ()

    def heading(self) -> str:
        """The markdown line above the question: where it comes from, and its sample id (each shown as it is, by
        `inert_text`: they come from run folders and datasets)."""
        where = f"{self.group} / {self.subgroup}" if self.subgroup else self.group
        return f"**{inert_text(f'{self.benchmark} · {where}')}** ({inert_text(self.sample_id)})"


def item_key(benchmark: Benchmark, sample_id: str) -> str:
    return f"{benchmark.name}:{benchmark.config}/{sample_id}"


def item_of(benchmark: Benchmark, row: Mapping[str, Any]) -> Item:
    """The row as the arena shows it, read through the benchmark's own field names."""
    subgroups = [str(row[name]) for name in benchmark.subgroup_fields if row.get(name) not in (None, "")]
    return Item(
        key=item_key(benchmark, str(row["id"])),
        benchmark=benchmark.name,
        sample_id=str(row["id"]),
        question=str(row[benchmark.text_field]),
        group=str(row.get(benchmark.group_field) or ""),
        subgroup=" / ".join(subgroups),
        checklists=tuple(str(c) for c in row.get("checklists") or ()),
    )
