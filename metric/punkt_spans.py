"""NLTK's Punkt sentence spans for the English model, decided candidate by candidate.

`sentence_spans(text)` returns what `PunktSentenceTokenizer(english).span_tokenize(text)` returns under the pinned
NLTK 3.10.4 (`nltk/tokenize/punkt.py`), which spends most of its time building a `PunktToken` per word of every
candidate's context and running each regex through its ReDoS wrapper. The same steps here, in NLTK's order:

- the candidates are NLTK's own `period_context_re` matches (".", "?" or "!" before punctuation or whitespace and
  a token), and each one's context is the one `_match_potential_end_contexts` builds: the text from after the last
  ASCII whitespace (`string.whitespace`) before the candidate, where NLTK keeps only the last of candidates that no
  such whitespace separates;
- a context holds a break when one of its Punkt words but the last ends a sentence after the first pass
  (`_first_pass_annotation`) and the second (`_second_pass_annotation`, with the collocation, abbreviation,
  sentence-starter, initial, number and orthographic rules) given the word after it: `text_contains_sentbreak`;
- the slices follow `_slices_from_text` and closing quotes and brackets move back as in `_realign_boundaries`.

A decision depends on its context's text alone, so decisions are kept per context and Punkt's word facts per word
(both bounded). NLTK's patterns that use nothing but whitespace classes and literals run on the standard `re`
engine with `regex`'s whitespace class spelled out (`WHITESPACE`: `re` also counts U+001C-U+001F); the others
(`\\d`, `\\w`) stay on `regex`, as in NLTK. The tests and bench/word_counts.py compare the spans with NLTK's.
"""

from __future__ import annotations

from typing import NamedTuple

from .bounded_cache import bounded
from .nltk_rules import PUNCTUATION, SENT_END_CHARS
from .punkt_model import BEG_LC, LC, MID_UC, UC, english_punkt

_ASCII_WHITESPACE = " \t\n\r\x0b\x0c"  # string.whitespace, what NLTK's _get_last_whitespace_index looks for
_RARE_ASCII_WHITESPACE = "\t\r\x0b\x0c"
_ODD_SPACES = "\x1c\x1d\x1e\x1f"  # whitespace to `str`, not to `regex`
_CLOSING = "\"')]}\u2018\u2019\u201c\u201d\xab\xbb"  # re_boundary_realignment's first class


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """`list(PunktSentenceTokenizer(english_punkt_parameters()).span_tokenize(text))`, NLTK 3.10.4."""
    realign_boundary = english_punkt().realign_boundary
    slices = _slices(text)
    spans = []
    realign = 0
    start, stop = slices[0]
    for next_start, next_stop in slices[1:]:  # _realign_boundaries
        start += realign
        # The pattern starts with one of _CLOSING: look only where the next sentence does.
        closing = (
            next_start < next_stop and text[next_start] in _CLOSING and realign_boundary(text, next_start, next_stop)
        )
        if closing:
            spans.append((start, next_start + len(closing.group(0).rstrip())))
            realign = closing.end() - next_start
        else:
            realign = 0
            if start < stop:
                spans.append((start, stop))
        start, stop = next_start, next_stop
    start += realign
    if start < stop:
        spans.append((start, stop))
    return spans


def _slices(text: str) -> list[tuple[int, int]]:
    """NLTK's `_slices_from_text` over `_match_potential_end_contexts`, before the realignment."""
    global _DECISIONS, _PERIOD_WORDS, _WORDS
    _WORDS, _DECISIONS, _PERIOD_WORDS = bounded(_WORDS), bounded(_DECISIONS), bounded(_PERIOD_WORDS)
    decisions, period_words = _DECISIONS, _PERIOD_WORDS
    # Every context has a Punkt word after its candidate, but where a line of U+001C-U+001F alone (blank to
    # `str.strip`, not to NLTK's patterns) is skipped.
    word_after = not any(space in text for space in _ODD_SPACES)
    rare_whitespace = any(space in text for space in _RARE_ASCII_WHITESPACE)
    slices = []
    last_break = 0
    previous = None
    word_start = previous_start = 0  # the previous candidate's word start and its own position
    for match in [*english_punkt().period_context(text), None]:
        if match is not None:
            start = match.start()
            # NLTK's word before: from after the last ASCII whitespace in text[previous_start:start] (one at
            # that slice's first index counts as none), else from the previous candidate's word start, and then
            # NLTK keeps the previous candidate only where that word was empty.
            if rare_whitespace:
                space = max(text.rfind(c, previous_start, start) for c in _ASCII_WHITESPACE)
            else:
                space = max(text.rfind(" ", previous_start, start), text.rfind("\n", previous_start, start))
            this_word = space + 1 if space > previous_start else word_start
            if previous_start > this_word:
                previous, previous_start = match, start  # word_start stays
                continue
        if previous is not None:
            end = previous.end()
            # A "?" or "!" is its own Punkt word and breaks before any word; so does "word." for most words.
            if (word_after and (text[end - 1] != "." or period_words[text[word_start:end]])) or decisions[
                text[word_start : previous.end(1)]
            ]:
                slices.append((last_break, end))
                next_token = previous.start(2)
                last_break = next_token if next_token >= 0 else end
        if match is not None:
            previous, word_start, previous_start = match, this_word, start
    slices.append((last_break, len(text.rstrip())))
    return slices


class _Word(NamedTuple):
    """A Punkt word after NLTK's first pass, with what the second pass reads of it (`PunktToken`)."""

    sentbreak: bool  # first pass
    abbr_or_ellipsis: bool  # first pass
    period_final: bool
    type_no_period: str
    type_no_sentperiod: str
    is_initial: bool
    first_upper: bool
    first_lower: bool
    is_punctuation: bool  # in PunktSentenceTokenizer.PUNCTUATION (nltk_rules.PUNCTUATION)
    ortho_context: int  # of type_no_sentperiod


class _Words(dict):
    def __missing__(self, token: str) -> _Word:
        punkt = english_punkt()
        typ = punkt.numeric.sub("##number##", token.lower())  # PunktToken._get_type
        type_no_period = typ[:-1] if len(typ) > 1 and typ[-1] == "." else typ
        sentbreak = abbr_or_ellipsis = False
        if token in SENT_END_CHARS:  # _first_pass_annotation
            sentbreak = True
        elif punkt.ellipsis.match(token):
            abbr_or_ellipsis = True
        elif token.endswith(".") and not token.endswith(".."):
            lowered = token[:-1].lower()
            abbr_or_ellipsis = lowered in punkt.abbrev_types or lowered.split("-")[-1] in punkt.abbrev_types
            sentbreak = not abbr_or_ellipsis
        type_no_sentperiod = type_no_period if sentbreak else typ
        word = _Word(
            sentbreak=sentbreak,
            abbr_or_ellipsis=abbr_or_ellipsis,
            period_final=token.endswith("."),
            type_no_period=type_no_period,
            type_no_sentperiod=type_no_sentperiod,
            is_initial=punkt.initial.match(token) is not None,
            first_upper=token[0].isupper(),
            first_lower=token[0].islower(),
            is_punctuation=token in PUNCTUATION,
            ortho_context=punkt.ortho_context.get(type_no_sentperiod, 0),
        )
        self[token] = word
        return word


class _Decisions(dict):
    def __missing__(self, context: str) -> bool:
        decision = _contains_sentbreak(context)
        self[context] = decision
        return decision


class _PeriodWords(dict):
    """Whether "word." breaks before whatever Punkt word follows. The word holds no character of NOT_PLAIN but
    single hyphens (not first), so "word." is one Punkt word in any context; and it breaks after both passes
    whatever the next word when it is no abbreviation, initial or number and first in no collocation. False: the
    context decides."""

    def __missing__(self, text: str) -> bool:
        punkt = english_punkt()
        word = _WORDS[text] if punkt.plain_period_word(text) else None
        always = (
            word is not None
            and word.sentbreak
            and not word.is_initial
            and word.type_no_period != "##number##"
            and word.type_no_period not in punkt.collocation_firsts
        )
        self[text] = always
        return always


_WORDS = _Words()
_DECISIONS = _Decisions()
_PERIOD_WORDS = _PeriodWords()


def clear_caches() -> None:
    """Forget the decisions and Punkt words kept between calls."""
    global _WORDS, _DECISIONS, _PERIOD_WORDS
    _WORDS, _DECISIONS, _PERIOD_WORDS = _Words(), _Decisions(), _PeriodWords()


def _contains_sentbreak(context: str) -> bool:
    """NLTK's `text_contains_sentbreak`: a word other than the last ends a sentence after both passes."""
    punkt = english_punkt()
    two_words = punkt.two_words(context)
    if two_words:  # "word. Word": the Punkt words are the two (see TWO_WORDS)
        return _sentbreak(_WORDS[two_words.group(1)], _WORDS[two_words.group(2)])
    if "\n" in context:  # _tokenize_words: Punkt words line by line, blank lines skipped
        tokens = [token for line in context.split("\n") if line.strip() for token in punkt.words(line)]
    else:  # a context holds its candidate, so its one line is not blank
        tokens = punkt.words(context)
    words = list(map(_WORDS.__getitem__, tokens))
    return any(_sentbreak(word, next_word) for word, next_word in zip(words, words[1:], strict=False))


def _sentbreak(word: _Word, next_word: _Word) -> bool:
    """The word's sentence break after NLTK's `_second_pass_annotation` given the word after it."""
    if not word.period_final:
        return word.sentbreak
    punkt = english_punkt()
    typ, next_typ = word.type_no_period, next_word.type_no_sentperiod
    if (typ, next_typ) in punkt.collocations:
        return False
    if word.abbr_or_ellipsis and not word.is_initial:
        if _ortho_heuristic(next_word) is True:
            return True
        if next_word.first_upper and next_typ in punkt.sent_starters:
            return True
    if word.is_initial or typ == "##number##":
        starter = _ortho_heuristic(next_word)
        if starter is False:
            return False
        if starter == "unknown" and word.is_initial and next_word.first_upper and not next_word.ortho_context & LC:
            return False
    return word.sentbreak


def _ortho_heuristic(word: _Word) -> bool | str:
    """NLTK's `_ortho_heuristic`: does the word start a sentence (True, False or "unknown")."""
    if word.is_punctuation:
        return False
    context = word.ortho_context
    if word.first_upper and context & LC and not context & MID_UC:
        return True
    if word.first_lower and (context & UC or not context & BEG_LC):
        return False
    return "unknown"
