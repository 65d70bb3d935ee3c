"""Grammar libraries for constrained judging with transformers, side by side: xgrammar vs llguidance.

    python bench/grammar_libraries.py

On the embedded model's tokenizer (Qwen2.5, 151,936 tokens) and the HelloEval verdict schema for 6 checklists:
the one-time vocabulary preparation, the schema compilation, and the cost of one step (fill the next-token
bitmask, then accept the token) over a real verdict, averaged over its tokens. Outlines is not measured (not
installed here).
"""

from __future__ import annotations

import json
import time

REPEATS = 20


def tokenizer():
    from transformers import AutoTokenizer

    from longform_eval.inference.backends.local import assemble_gguf

    gguf = assemble_gguf()
    return AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)


def verdict_text(n: int, separators: tuple[str, str]) -> str:
    """A verdict as each library writes JSON without free whitespace (xgrammar: ", " and ": "; llguidance: compact)."""
    items = [{"checklist_id": i, "reason": "The response covers it", "evaluation_score": 0.75} for i in range(n)]
    return json.dumps(items, separators=separators)


def bench_xgrammar(tok, schema: str, vocab: int) -> tuple[float, float, float]:
    import xgrammar as xgr

    ids = tok.encode(verdict_text(6, (", ", ": ")))
    began = time.perf_counter()
    compiler = xgr.GrammarCompiler(xgr.TokenizerInfo.from_huggingface(tok, vocab_size=vocab))
    prepare = time.perf_counter() - began
    began = time.perf_counter()
    compiled = compiler.compile_json_schema(schema, any_whitespace=False)
    compile_s = time.perf_counter() - began
    bitmask = xgr.allocate_token_bitmask(1, vocab)
    began = time.perf_counter()
    for _ in range(REPEATS):
        matcher = xgr.GrammarMatcher(compiled)
        for token in ids:
            matcher.fill_next_token_bitmask(bitmask)
            assert matcher.accept_token(token)
    return prepare, compile_s, (time.perf_counter() - began) / (REPEATS * len(ids))


def bench_llguidance(tok, schema: str, vocab: int) -> tuple[float, float, float]:
    import llguidance
    import llguidance.hf
    import llguidance.torch

    ids = tok.encode(verdict_text(6, (",", ":")))
    began = time.perf_counter()
    lltok = llguidance.hf.from_tokenizer(tok, n_vocab=vocab)
    prepare = time.perf_counter() - began
    compact = json.dumps({**json.loads(schema), "x-guidance": {"whitespace_flexible": False}})
    began = time.perf_counter()
    grammar = llguidance.LLMatcher.grammar_from_json_schema(compact)
    llguidance.LLMatcher(lltok, grammar)
    compile_s = time.perf_counter() - began
    bitmask = llguidance.torch.allocate_token_bitmask(1, vocab)
    began = time.perf_counter()
    for _ in range(REPEATS):
        matcher = llguidance.LLMatcher(lltok, grammar)
        for token in ids:
            llguidance.torch.fill_next_token_bitmask(matcher, bitmask, 0)
            assert matcher.consume_token(token), matcher.get_error()
    return prepare, compile_s, (time.perf_counter() - began) / (REPEATS * len(ids))


def main() -> None:
    from longform_eval.metric.helloeval.parser import verdict_schema

    tok = tokenizer()
    vocab = 151_936
    schema = json.dumps(verdict_schema(6))
    print(f"a verdict of 6 checklists ({len(tok.encode(verdict_text(6, (',', ':'))))} tokens); vocabulary {vocab:,}")
    print("| library | prepare vocabulary s | compile schema ms | per step (mask + accept) ms |")
    print("|---|---|---|---|")
    for name, bench in (("xgrammar", bench_xgrammar), ("llguidance", bench_llguidance)):
        prepare, compile_s, step = bench(tok, schema, vocab)
        print(f"| {name} | {prepare:.2f} | {compile_s * 1000:.1f} | {step * 1000:.3f} |")


if __name__ == "__main__":
    main()
