"""How an option's help says what the option is when it is not given (shared by the help formatter, the generated
flags of the settings and `tests/inference/test_cli_help.py`).

The rule: the help has `default: X` or `default X` opening a clause (after `(`, `;` or a sentence's end; the words
in `local:default` or `the default dataset` say nothing), says what happens `without it`, `when not given` or
`if omitted`, or is `(required`: a value the command cannot go without, so it has no default. An option whose
default is a value gets `(default: X)` appended by the formatter unless its help says it already; one whose default
is None says it in words (`default: none, ...`, `default: $VARIABLE, else ...`, `default: chosen as ...`).
"""

from __future__ import annotations

import re

DEFAULT_STATED = re.compile(
    r"(?:^|[(;]\s*|\.\s+)default\b|\b(?:without it|when not given|if omitted)\b|\(required\b", re.IGNORECASE
)


def states_default(text: str) -> bool:
    """Whether `text`, an option's help, says what the option is when it is not given (the rule above)."""
    return DEFAULT_STATED.search(text) is not None


__all__ = ["DEFAULT_STATED", "states_default"]
