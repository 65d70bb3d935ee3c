"""The columns leaderboard.tex may have (`leaderboard --tex-columns`): light, for the command line's parser."""

from __future__ import annotations

TEX_COLUMNS = ("rank", "model", "judge", "shared", "score", "n", "tasks")  # what `--tex-columns` may name
COMPACT_TEX_COLUMNS = ("rank", "model", "score")  # the default: one column of a two-column paper at \small


def parse_tex_columns(text: str) -> tuple[str, ...]:
    """`rank,model,score,n` as the columns of leaderboard.tex, in that order (see `checked_tex_columns`)."""
    return checked_tex_columns(tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip())))


def checked_tex_columns(names: tuple[str, ...]) -> tuple[str, ...]:
    """`names` if they are one or more of TEX_COLUMNS; else a ValueError naming the unknown ones and the allowed."""
    unknown = [name for name in names if name not in TEX_COLUMNS]
    if unknown or not names:
        found = f"unknown column {', '.join(map(repr, unknown))}" if unknown else "no column named"
        raise ValueError(f"{found}; allowed: {','.join(TEX_COLUMNS)} (comma-separated, in the order wanted)")
    return names


__all__ = ["COMPACT_TEX_COLUMNS", "TEX_COLUMNS", "checked_tex_columns", "parse_tex_columns"]
