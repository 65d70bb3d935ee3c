"""A count and its noun, in agreement: `1 attempt`, `3 attempts`, `1 entry`, `2 entries`.

Every message of the toolkit that puts a number before a noun builds it with `counted` (or `plural` where the number
is printed apart), so that no line reads `1 attempts` or hedges with `row(s)`. The plural is the last word's:
`+ies` after a consonant and `y`, `+es` after s, x, z, ch or sh, else `+s`; an irregular one is given (`many`).
"""

from __future__ import annotations

from typing import SupportsFloat

SIBILANT_ENDS = ("s", "x", "z", "ch", "sh")


def plural_of(noun: str) -> str:
    """`noun` in the plural, by its last word: `generation call` -> `generation calls`, `entry` -> `entries`."""
    if noun.endswith("y") and noun[-2:-1] not in ("", *"aeiou"):
        return f"{noun[:-1]}ies"
    return f"{noun}es" if noun.endswith(SIBILANT_ENDS) else f"{noun}s"


def plural(count: SupportsFloat, noun: str, many: str | None = None) -> str:
    """`noun` as it reads after `count`: itself for 1 (or -1), else `many` or `plural_of(noun)` (0 rows, 2.5 rows)."""
    return noun if abs(float(count)) == 1 else many or plural_of(noun)


def counted(count: SupportsFloat, noun: str, many: str | None = None, spec: str = "") -> str:
    """`count` (formatted with `spec`, e.g. "," for thousands) and its noun: `1 attempt`, `1,204 rows`."""
    return f"{count:{spec}} {plural(count, noun, many)}"


__all__ = ["counted", "plural", "plural_of"]
