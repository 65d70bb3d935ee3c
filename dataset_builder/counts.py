"""The published record counts of the released files, checked on every build."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from longform_eval.common.errors import SourceError

ALLOW_FLAG = "--allow-count-mismatch (allow_count_mismatch=True)"


@dataclass
class CountCheck:
    """Compares what a build read with the published counts.

    A difference is a SourceError, unless `allow_mismatch` (a user's own edited copy): then it is kept in
    `mismatches`, worded for the dataset card.
    """

    source: Path
    allow_mismatch: bool = False
    mismatches: list[str] = field(default_factory=list)

    def expect(self, path: Path, what: str, published: int, found: int, field: str | None = None) -> None:
        if found == published:
            return
        if not self.allow_mismatch:
            raise SourceError(
                path,
                None,
                field,
                f"expected {published} {what} (the published count), found {found}; "
                f"to build an edited copy anyway pass {ALLOW_FLAG}",
            )
        self.mismatches.append(f"`{self.label(path)}`: {found} {what} (published: {published})")

    def label(self, path: Path) -> str:
        """The path relative to the source folder, so the card reads the same on every machine."""
        try:
            return path.relative_to(self.source).as_posix()
        except ValueError:
            return path.name
