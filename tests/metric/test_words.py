"""Our offline tokenizer equals nltk.word_tokenize on the released HelloBench responses."""

from __future__ import annotations

import gzip
import json

import nltk
import pytest

from longform_eval.metric.words import word_count, word_tokenize, write_punkt_tab

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


@pytest.mark.slow
@pytest.mark.parametrize("model", ["gpt4o_0806", "qwen2_7b"])
def test_tokens_equal_nltk_word_tokenize_on_released_responses(shared_data, nltk_with_punkt_tab, model):
    responses = list(released_responses(shared_data, model))
    assert len(responses) == 647
    for response in responses:
        assert word_tokenize(response) == nltk_with_punkt_tab(response)


MODELS = ("claude35", "gemma2_27b", "gpt4o_0806", "llama31_8b", "longwriter_9b", "mistral_large_api", "qwen2_7b")


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_word_count_equals_nltk_on_every_released_response(shared_data, nltk_with_punkt_tab, model):
    """word_count (Treebank once over NUL-joined sentences) gives len(nltk.word_tokenize) on every answer."""
    responses = list(released_responses(shared_data, model))
    assert len(responses) > 600
    differ = [(i, word_count(r), len(nltk_with_punkt_tab(r))) for i, r in enumerate(responses)]
    assert [d for d in differ if d[1] != d[2]] == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "It ended. Then Mr. Smith left.",
        'He said "go." Then: no, \'tis (fine). Wanna go?! ... "Quoted."\n"Next" line,',
        "CANNOT gimme GİMME gımme. Gonna lemme, more'n 'Twas. D'ye? gotta",  # contractions, dotted/dotless i
        "End.) (Start) end.\" 'Single.' [x.] e.g. U.S. 3.5. -- a--b; @#$%&* « » “ ” ‘ ’ „ `` ''",
        "She's, they'll, we'd, can't, WON'T, I'M, 'quoted' words'",
        "a\x00b. c.",  # a NUL in the text: counted token by token
    ],
)
def test_word_count_equals_the_token_count(text):
    assert word_count(text) == len(word_tokenize(text))


def test_word_count_splits_sentences_before_words():
    assert word_tokenize("It ended. Then Mr. Smith left.") == ["It", "ended", ".", "Then", "Mr.", "Smith", "left", "."]
    assert word_count("Don't stop.") == 4
