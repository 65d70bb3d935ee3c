"""Which rows of a config a run uses."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from .base import Benchmark


@dataclass
class Selection:
    """Optional groups (values of the benchmark's group or subgroup fields), quickest first, N per group, N."""

    limit: int | None = None
    per_group: int | None = None
    groups: tuple[str, ...] = ()
    shortest: bool = False

    def apply(self, rows: list[dict[str, Any]], benchmark: Benchmark) -> list[dict[str, Any]]:
        fields = (benchmark.group_field, *benchmark.subgroup_fields)
        if self.groups:
            check_groups(self.groups, rows, fields, benchmark.name)
            rows = [r for r in rows if any(r.get(f) in self.groups for f in fields)]
        if self.shortest:
            rows = sorted(rows, key=benchmark.quick_order)
        if self.per_group:
            counts: dict[Any, int] = defaultdict(int)
            kept = []
            for row in rows:
                if counts[row[benchmark.group_field]] < self.per_group:
                    counts[row[benchmark.group_field]] += 1
                    kept.append(row)
            rows = kept
        rows = rows[: self.limit] if self.limit else rows
        if not rows:
            raise ValueError(f"{benchmark.name}:{benchmark.config}: no rows selected (the dataset has none)")
        return rows


def check_groups(groups: tuple[str, ...], rows: list[dict[str, Any]], fields: tuple[str, ...], name: str) -> None:
    """Refuse a `--subcategory` that names no group of the rows: it would select nothing, or less than intended."""
    present = {str(r.get(f)) for r in rows for f in fields if r.get(f) is not None}
    unknown = [g for g in groups if g not in present]
    if unknown:
        raise ValueError(
            f"--subcategory {', '.join(unknown)}: no {name} row has this {' or '.join(fields)}; "
            f"choose from {', '.join(sorted(present))}"
        )


def rows_hash(rows: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()
