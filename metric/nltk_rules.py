"""NLTK 3.10.4's patterns and constants that `word_count` and `sentence_spans` read, copied as literals.

From `nltk/tokenize/punkt.py` (`PunktLanguageVars`, `PunktToken`, `PunktSentenceTokenizer`) and
`nltk/tokenize/destructive.py` (`NLTKWordTokenizer`, `MacIntyreContractions`) of NLTK 3.10.4, Copyright (C) 2001-2026
NLTK Project, Apache License 2.0. Copied so that counting words needs no `import nltk`, whose package import (scipy,
collocations, ...) costs more than a second. NLTK compiles each pattern with `redos.compile(pattern, flags)`, that
is `regex.compile(pattern, flags)`: a pattern here is `(pattern, flags)` as NLTK passes them, a Treebank rule
`(pattern, flags, substitution)`. tests/metric/test_words.py checks every one against NLTK's live object.
"""

from __future__ import annotations

import re

# PunktLanguageVars.sent_end_chars, and PunktSentenceTokenizer.PUNCTUATION
SENT_END_CHARS = (".", "?", "!")
PUNCTUATION = (";", ":", ",", ".", "!", "?")

# punkt.py's _ORTHO_* flags
ORTHO_BEG_UC, ORTHO_MID_UC, ORTHO_UNK_UC = 1 << 1, 1 << 2, 1 << 3
ORTHO_BEG_LC, ORTHO_MID_LC, ORTHO_UNK_LC = 1 << 4, 1 << 5, 1 << 6

# PunktLanguageVars' pieces. NLTK spells the end of _NON_WORD from a set ("?!" or "!?" by the hash seed): either
# order means the same class.
_SENT_END_CHARS = "[\\.\\?!]"  # _re_sent_end_chars: "[%s]" % re.escape("".join(sent_end_chars))
_NON_WORD = r"(?:[)\";}\]\*:@\'\({\[\u2018\u2019\u201c\u201d\xab\xbb\?!])"  # _re_non_word_chars
_MULTI_CHAR = r"(?:\-{2,}|\.{2,}|(?:\.\s){2,}\.)"  # _re_multi_char_punct
_WORD_START = r"[^\(\"\`{\[:;&\#\*@\)}\]\-,]"  # _re_word_start

_WORD_TOKENIZE_FMT = r"""(
        %(MultiChar)s
        |
        (?=%(WordStart)s)\S+?  # Accept word characters until end is found
        (?= # Sequences marking a word's end
            \s|                                 # White-space
            $|                                  # End-of-string
            %(NonWord)s|%(MultiChar)s|          # Punctuation
            ,(?=$|\s|%(NonWord)s|%(MultiChar)s) # Comma if at end of word
        )
        |
        \S
    )"""

_PERIOD_CONTEXT_FMT = r"""
        %(SentEndChars)s             # a potential sentence ending
        (?=(?P<after_tok>
            %(NonWord)s              # either other punctuation
            |
            \s+(?P<next_tok>\S+)     # or whitespace and some other token
        ))"""

# PunktLanguageVars.period_context_re(), _word_tokenizer_re() and re_boundary_realignment
PERIOD_CONTEXT = (
    _PERIOD_CONTEXT_FMT % {"NonWord": _NON_WORD, "SentEndChars": _SENT_END_CHARS},
    re.UNICODE | re.VERBOSE,
)
WORD_TOKENIZER = (
    _WORD_TOKENIZE_FMT % {"NonWord": _NON_WORD, "MultiChar": _MULTI_CHAR, "WordStart": _WORD_START},
    re.UNICODE | re.VERBOSE,
)
BOUNDARY_REALIGNMENT = (r'["\')\]}\u2018\u2019\u201c\u201d\xab\xbb]+?(?:\s+|(?=--)|$)', re.MULTILINE)

# PunktToken._RE_NUMERIC, _RE_ELLIPSIS and _RE_INITIAL
TOKEN_NUMERIC = (r"^-?[\.,]?\d[\d,\.-]*\.?$", 0)
TOKEN_ELLIPSIS = (r"\.\.+$", 0)
TOKEN_INITIAL = (r"[^\W\d]\.$", re.UNICODE)

# NLTKWordTokenizer's rules, in its order: STARTING_QUOTES, PUNCTUATION, PARENS_BRACKETS and DOUBLE_DASHES before
# it pads the text with a space on each side, ENDING_QUOTES after, then CONTRACTIONS2 and CONTRACTIONS3 (compiled
# with `re`, each substituted by r" \1 \2 ").
STARTING_QUOTES = [
    ("([«“‘„]|[`]+)", re.U, r" \1 "),
    (r"^\"", 0, r"``"),
    (r"(``)", 0, r" \1 "),
    (r"([ \(\[{<])(\"|\'{2})", 0, r"\1 `` "),
    (r"(?i)(?<!\w)(\')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)", re.U, r"\1 "),
]
TREEBANK_PUNCTUATION = [
    (r'([^\.])(\.)([\]\)}>"\'' "»”’ " r"]*+)\s*$", re.U, r"\1 \2 \3 "),
    (r"([:,])([^\d])", 0, r" \1 \2"),
    (r"([:,])$", 0, r" \1 "),
    (r"\.{2,}", re.U, r" \g<0> "),
    (r"[;@#$%&]", 0, r" \g<0> "),
    (r"[\u2012-\u2015]", re.UNICODE, r" \g<0> "),
    (r'([^\.])(\.)([\]\)}>"\']*)\s*$', 0, r"\1 \2\3 "),
    (r"[?!]", 0, r" \g<0> "),
    (r"([^'])' ", 0, r"\1 ' "),
    (r"[*]", re.U, r" \g<0> "),
]
PARENS_BRACKETS = (r"[\]\[\(\)\{\}\<\>]", 0, r" \g<0> ")
DOUBLE_DASHES = (r"--", 0, r" -- ")
ENDING_QUOTES = [
    ("([»”’])", re.U, r" \1 "),
    (r"''", 0, " '' "),
    (r'"', 0, " '' "),
    (r"\s+", 0, " "),
    (r"([^' ])('[sS]|'[mM]|'[dD]|') ", 0, r"\1 \2 "),
    (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", 0, r"\1 \2 "),
]
CONTRACTIONS2 = [
    r"(?i)\b(can)(?#X)(not)\b",
    r"(?i)\b(d)(?#X)('ye)\b",
    r"(?i)\b(gim)(?#X)(me)\b",
    r"(?i)\b(gon)(?#X)(na)\b",
    r"(?i)\b(got)(?#X)(ta)\b",
    r"(?i)\b(lem)(?#X)(me)\b",
    r"(?i)\b(more)(?#X)('n)\b",
    r"(?i)\b(wan)(?#X)(na)(?=\s)",
]
CONTRACTIONS3 = [r"(?i) ('t)(?#X)(is)\b", r"(?i) ('t)(?#X)(was)\b"]
