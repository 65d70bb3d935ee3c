"""Our offline tokenizer and word count equal nltk.word_tokenize: on released HelloBench responses, adversarial
texts and seeded random ones.

The proof over every released answer (4,501, 7 models) is bench/word_counts.py; CI keeps two models' answers.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import subprocess
import sys

import nltk
import pytest
import regex

from longform_eval.metric import nltk_rules, punkt_model, words
from longform_eval.metric.punkt_spans import sentence_spans
from longform_eval.metric.words import (
    english_punkt_parameters,
    sentence_tokenizer,
    word_count,
    word_tokenize,
    write_punkt_tab,
)

TASKS = ("open_ended_qa", "summarization", "chat", "text_completion", "heuristic_text_generation")


@pytest.fixture(scope="module")
def nltk_with_punkt_tab(tmp_path_factory):
    """Install the English punkt_tab files in NLTK's own format, so the real nltk.word_tokenize runs."""
    root = tmp_path_factory.mktemp("nltk_data")
    write_punkt_tab(root)
    nltk.data.path.insert(0, str(root))
    yield nltk.word_tokenize
    nltk.data.path.remove(str(root))


def released_responses(shared_data, model):
    for task in TASKS:
        path = shared_data / "hellobench" / "generations" / "main_exp" / model / f"{task}_results.jsonl.gz"
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                yield json.loads(line)["response"]


def nltk_spans(text):
    return list(sentence_tokenizer().span_tokenize(text))


@pytest.mark.slow
@pytest.mark.parametrize("model", ["gpt4o_0806", "qwen2_7b"])
def test_tokens_equal_nltk_word_tokenize_on_released_responses(shared_data, nltk_with_punkt_tab, model):
    responses = list(released_responses(shared_data, model))
    assert len(responses) == 647
    for response in responses:
        assert word_tokenize(response) == nltk_with_punkt_tab(response)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["claude35", "llama31_8b"])
def test_word_count_equals_nltk_on_released_responses(shared_data, nltk_with_punkt_tab, model):
    """word_count and the Punkt spans under it equal NLTK's on all 647 answers of two models (a fixed sample: the
    proof over every released answer of the 7 models is bench/word_counts.py)."""
    responses = list(released_responses(shared_data, model))
    assert len(responses) == 647
    counts = [(i, word_count(r), len(nltk_with_punkt_tab(r))) for i, r in enumerate(responses)]
    assert [c for c in counts if c[1] != c[2]] == []
    assert [i for i, r in enumerate(responses) if sentence_spans(r) != nltk_spans(r)] == []


COLLOCATION = next(f"{a}. {b}" for a, b in sorted(english_punkt_parameters().collocations) if "#" not in a)

ADVERSARIAL = [
    "",
    "   ",
    "\n\n",
    "It ended. Then Mr. Smith left.",
    "See e.g. the U.S. and the U.K. reports. They differ, i.e. a lot. Dr. Who? vs. them etc. And so on.",
    "J. K. Rowling wrote it. J. Bach too. A. b. Cf. Fig. 3. Jan. 5 and St. Paul.",  # initials, abbreviations
    "Wait... what? Really... Yes. . . no.. ok\u2026 The end... Then. . . More.",  # ellipses
    "Version 3.5. Next is 3.5.1. The 2. item. 1. first 2. second 3. Third. $3.88. 1,000. Done.",  # numbers
    "It was the 2nd. Then the 3rd. and 21st. Place, 4th. place.",  # ordinals
    'He said "go." Then left. "Quoted." she said. (Aside.) Next. [End.] x.\' y \u201cCurly.\u201d Z \u2018s.\u2019 a',
    "it ended. then it began. the end. of it. and more.",  # lowercase after a period
    f"We met {COLLOCATION} today. {COLLOCATION.upper()} too.",  # a collocation of the English model
    "Na\u00efve caf\u00e9. \u0130stanbul is big. \u0131l\u0131k su. \u65e5\u672c\u8a9e\u3002\u30c6\u30b9\u30c8. "
    "\u00abGuillemets.\u00bb Dash \u2014 here \u2013 there \u2012 x \u2015 y. well\u2014known 1\u20132 "
    "x\u00b2 y. e\u0301. \U0001f642 Done.",
    "a.\u00a0B. c.\u3000D.\tE.\rF.\x0bG.\x0cH. I.\x1cJ. K.\x85L. M.\u2028N.",  # whitespace of every kind
    "End?\n\x1c",  # a line blank to str.strip only
    "End.\n\x1c\x1d",
    "CANNOT gimme G\u0130MME g\u0131mme. Gonna lemme, more'n 'Twas. D'ye? gotta wanna\tgo cannot. x/cannot.",
    "end. ) Next. end. ) ) Next. end.) Next. end.\" Next. end.' next. end. \u201d  Next. end .) x. "
    "He left. ) ) And then.",  # closing marks after a period
    'Really?! Yes!!! No?? Ok.? Hm!. Why?) Because!" Fine.',
    "## Title\n\n1. **First.** Item.\n2. Second item.\n- bullet. - another.\n\n**Note:** done. --flag-- x --> y.",
    " Hello. World.",
    "\nHello. World.",
    "\x1cHello. World.",
    "Hello.  World  again.   Done.    ",
    "a.b.c.d.e no spaces.at.all.Here",
    "She's, they'll, we'd, can't, WON'T, I'M, 'quoted' words' ''double'' ``tex'' `x` end.",
    "End.) (Start) end.\" 'Single.' [x.] e.g. U.S. 3.5. -- a--b; @#$%&* "
    "\u00ab \u00bb \u201c \u201d \u2018 \u2019 \u201e",
    "one: two, three:4, 5,6 ; x. y:",
    "Cannot, gonna; wanna: lemme. Gimme, x. 3, 4; 5: 6. A,\nB; C:\tD, E.",  # pieces that end in , ; :
    "a\x00b. c.",  # a NUL in the text: counted token by token
    "a\x01b. c.",
]


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_word_count_and_sentences_equal_nltk_on_adversarial_texts(nltk_with_punkt_tab, text):
    assert word_count(text) == len(nltk_with_punkt_tab(text))
    assert sentence_spans(text) == nltk_spans(text)


def random_words() -> list[str]:
    """Words, marks and the English model's own abbreviations, collocations and sentence starters."""
    parameters = english_punkt_parameters()
    rng = random.Random(0)
    vocabulary = [*ADVERSARIAL[3:-2]]
    for text in ADVERSARIAL[3:-2]:
        vocabulary += text.split()
    vocabulary += ["##", "**", "*", "-", "--", "\u2014", "...", "\u2026", "'", "''", "``", '"', "(", ")", "[", "]"]
    vocabulary += ["1.", "5.", "5.5.", "2)", "a)", "No.", "o'clock", "well-known", "http://x.y/z?a=1", "a_b"]
    abbreviations = sorted(parameters.abbrev_types)
    vocabulary += rng.sample(abbreviations, 60) + [a + "." for a in rng.sample(abbreviations, 60)]
    vocabulary += [s for s in sorted(parameters.sent_starters)] + [s.title() for s in sorted(parameters.sent_starters)]
    for first, second in sorted(parameters.collocations):
        first = "5" if first == "##number##" else first
        vocabulary += [f"{first}. {second}", f"{first}. {second.title()}", f"{first.title()}. {second}"]
    return vocabulary


SEPARATORS = [" "] * 12 + ["\n", "\n\n", "  ", "\t", "\r\n", "\u00a0", "\u3000", "\x1c", "\x85", " \n ", "\x0c", ""]
ENDINGS = ["", ".", ".", ".", "?", "!", ",", ";", ":", '."', ".)", ".'", "...", ".\u201d", ". )", '. "', "?)", "--"]


def random_text(rng: random.Random, vocabulary: list[str]) -> str:
    parts = []
    for _ in range(rng.randint(1, 40)):
        parts += [rng.choice(vocabulary) + (rng.choice(ENDINGS) if rng.random() < 0.35 else ""), rng.choice(SEPARATORS)]
    text = (rng.choice(SEPARATORS) if rng.random() < 0.3 else "") + "".join(parts)
    return text.rstrip() if rng.random() < 0.5 else text


def test_word_count_and_sentences_equal_nltk_on_random_texts(nltk_with_punkt_tab):
    """Seeded random texts of tricky words, endings and separators; LONGFORM_EVAL_WORDS_FUZZ sets how many (a run
    of 30,000 found no difference)."""
    rng, vocabulary = random.Random(1), random_words()
    texts = [random_text(rng, vocabulary) for _ in range(int(os.environ.get("LONGFORM_EVAL_WORDS_FUZZ", "1500")))]
    assert [t for t in texts if word_count(t) != len(nltk_with_punkt_tab(t))] == []
    assert [t for t in texts if sentence_spans(t) != nltk_spans(t)] == []


def test_word_count_of_texts_with_a_nul_or_a_piece_separator_equals_nltk(nltk_with_punkt_tab):
    """Texts that hold the separators `word_count` joins with are counted by NLTK's rules sentence by sentence."""
    rng, vocabulary = random.Random(4), random_words()
    texts = []
    for _ in range(300):
        text = random_text(rng, vocabulary)
        at = rng.randint(0, len(text))
        texts.append(text[:at] + rng.choice("\x00\x01") + text[at:])
    assert [t for t in texts if word_count(t) != len(nltk_with_punkt_tab(t))] == []


def test_plain_pieces_go_alike_by_run_and_by_piece():
    """Python 3.11+ drops runs of plain pieces in one match, 3.10 piece by piece: the same text is left."""
    rng, vocabulary = random.Random(3), random_words()
    texts = [f" {t} " for t in [*ADVERSARIAL, *(random_text(rng, vocabulary) for _ in range(300))]]
    texts = [re.sub(r"(?<=[.?!]) ", "\x00 \x00", t) for t in texts]  # sentence ends, as word_count joins them
    for by_run, by_piece in zip((words._PLAIN, words._PLAIN_NO_CONTRACTION), words._PLAIN_BY_PIECE, strict=True):
        assert [by_run.sub("", t) for t in texts] == [by_piece.sub("", t) for t in texts]


def test_word_count_splits_sentences_before_words():
    assert word_tokenize("It ended. Then Mr. Smith left.") == ["It", "ended", ".", "Then", "Mr.", "Smith", "left", "."]
    assert word_count("Don't stop.") == 4
    assert word_count("It ended. Then Mr. Smith left.") == 8


def every_character() -> str:
    return "".join(map(chr, [*range(0xD800), *range(0xE000, sys.maxunicode + 1)]))


def test_the_spelled_out_whitespace_is_regex_whitespace():
    """`re` runs NLTK's whitespace-and-literal patterns with `regex`'s `\\s` spelled out (`re`'s own also counts
    U+001C-U+001F)."""
    characters = every_character()
    spelled = re.findall(f"[{punkt_model.WHITESPACE}]", characters)
    assert spelled == regex.findall(r"\s", characters)
    assert re.findall(f"[^{punkt_model.WHITESPACE}]", characters) == regex.findall(r"\S", characters)


def test_casefold_finds_every_contraction_letter_but_the_dotted_and_dotless_i():
    """A contraction can match only where the casefolded text holds its letters, or U+0130 or U+0131 is there."""
    characters = every_character()
    for letter in sorted(set("".join(words._treebank_rules()[3]))):
        matches = set(re.findall(f"(?i){re.escape(letter)}", characters))
        assert {c for c in matches if c.casefold() != letter} <= {"\u0130", "\u0131"}, letter


def test_every_treebank_rule_match_holds_a_trigger():
    """A rule skipped for want of its triggers could not have matched: every match holds one (on these texts and
    on them rewritten by the rules before)."""
    rng, vocabulary = random.Random(2), random_words()
    texts = [*ADVERSARIAL, *(random_text(rng, vocabulary) for _ in range(300))]
    before, after, _, _ = words._treebank_rules()
    for text in texts:
        text = " " + text.replace("\x00", "") + " "
        for pattern, substitution, triggers in [*before, *after]:
            for match in pattern.finditer(text) if triggers is not None else ():
                assert any(trigger in match.group(0) for trigger in triggers), (pattern.pattern, text)
            text = pattern.sub(substitution, text)


def test_nltk_rules_are_nltk_own_patterns_and_constants():
    """Every literal of `nltk_rules` equals NLTK's live object: pattern, flags (compiled as NLTK's `redos` does),
    substitution and order, so that a change of NLTK cannot slip by."""
    from nltk.tokenize import punkt as nltk_punkt
    from nltk.tokenize.destructive import NLTKWordTokenizer

    def spelled(pattern: tuple[str, int]) -> tuple[str, int]:
        compiled = regex.compile(*pattern)
        return compiled.pattern, compiled.flags

    def live(pattern) -> tuple[str, int]:
        # NLTK spells the end of its non-word class from a set: "?!" or "!?" by the hash seed, the same class.
        return pattern._rx.pattern.replace("!\\?])", "\\?!])"), pattern._rx.flags

    language, token = nltk_punkt.PunktLanguageVars(), nltk_punkt.PunktToken
    assert spelled(nltk_rules.PERIOD_CONTEXT) == live(language.period_context_re())
    assert spelled(nltk_rules.WORD_TOKENIZER) == live(language._word_tokenizer_re())
    assert spelled(nltk_rules.BOUNDARY_REALIGNMENT) == live(language.re_boundary_realignment)
    assert spelled(nltk_rules.TOKEN_NUMERIC) == live(token._RE_NUMERIC)
    assert spelled(nltk_rules.TOKEN_ELLIPSIS) == live(token._RE_ELLIPSIS)
    assert spelled(nltk_rules.TOKEN_INITIAL) == live(token._RE_INITIAL)
    assert language.sent_end_chars == nltk_rules.SENT_END_CHARS
    assert tuple(nltk_punkt.PunktSentenceTokenizer.PUNCTUATION) == nltk_rules.PUNCTUATION
    for name in ("BEG_UC", "MID_UC", "UNK_UC", "BEG_LC", "MID_LC", "UNK_LC"):
        assert getattr(nltk_punkt, f"_ORTHO_{name}") == getattr(nltk_rules, f"ORTHO_{name}"), name

    tokenizer = NLTKWordTokenizer()
    groups = {
        "STARTING_QUOTES": (nltk_rules.STARTING_QUOTES, tokenizer.STARTING_QUOTES),
        "PUNCTUATION": (nltk_rules.TREEBANK_PUNCTUATION, tokenizer.PUNCTUATION),
        "PARENS_BRACKETS": ([nltk_rules.PARENS_BRACKETS], [tokenizer.PARENS_BRACKETS]),
        "DOUBLE_DASHES": ([nltk_rules.DOUBLE_DASHES], [tokenizer.DOUBLE_DASHES]),
        "ENDING_QUOTES": (nltk_rules.ENDING_QUOTES, tokenizer.ENDING_QUOTES),
    }
    for name, (ours, theirs) in groups.items():
        ours = [(*spelled((pattern, flags)), substitution) for pattern, flags, substitution in ours]
        assert ours == [(*live(pattern), substitution) for pattern, substitution in theirs], name
    for ours, theirs in [
        (nltk_rules.CONTRACTIONS2, tokenizer.CONTRACTIONS2),
        (nltk_rules.CONTRACTIONS3, tokenizer.CONTRACTIONS3),
    ]:
        assert [(re.compile(p).pattern, re.compile(p).flags) for p in ours] == [(p.pattern, p.flags) for p in theirs]


def test_word_count_imports_no_nltk():
    """Counting words and sentences in a fresh process leaves `nltk` unimported (its import costs over a second), in
    the text with a NUL too."""
    code = (
        "from longform_eval.metric.words import word_count, sentence_spans; "
        "assert word_count('Mr. Smith left. He said \"go.\" Then: no.') == 14; "
        "assert len(sentence_spans('Mr. Smith left. He said \"go.\" Then: no.')) == 3; "
        "assert word_count('a\\x00b. c.') == 4; "  # a NUL: counted sentence by sentence
        "import sys; assert not any(m == 'nltk' or m.startswith('nltk.') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
