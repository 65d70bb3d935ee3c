"""JSON-schema-constrained decoding for transformers `generate`, with xgrammar.

xgrammar was chosen over llguidance by measurement (`bench/grammar_libraries.py`, bench/RESULTS.md): on the 151k-token
Qwen vocabulary it prepares the tokenizer in a third of the time and masks a step in 0.03 ms against 1.2 ms.
Each row of a batch has its own matcher (its own schema, or none); a row whose grammar has terminated may only
end (EOS), and the padding transformers feeds a finished row is not given to its matcher. The JSON is compact: a
small model otherwise pads with whitespace until its token limit. A string's maxLength beside its pattern, which
xgrammar would ignore, is folded into the pattern (`xgrammar_schema`). The `ort` backend's batched engine uses the
compiler too, with its compiled schemas kept on disk.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import importlib.metadata
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from longform_eval.common.atomic import write_bytes_atomic
from longform_eval.common.guarded import DERIVED, read_cache

SCHEMA_RECIPE = "maxLength folded into a one-class pattern"  # in the kept grammars' key: a new rule, a new compile
LONGEST_REPEAT = 128  # xgrammar 0.2.8 compiles `C{0,128}` in a pattern, and fails on `C{0,129}`
CHUNK = 32  # the longest chunk a longer bound is cut into (the fewest states, so the quickest compile, measured)
REPEATED_CLASS = re.compile(r"\^(\[(?:\\.|[^\]\\])*\])\*\$")  # ^[...]*$


class GrammarCompiler:
    """Compiles schemas for one tokenizer; the tokenizer's vocabulary is prepared once, schemas are cached (in
    memory, and in `cache_dir` if given: a bounded string takes seconds to compile, reading it back 0.1 s)."""

    def __init__(
        self,
        tokenizer: Any,
        vocab_size: int,
        cache_dir: Path | None = None,
        separators: tuple[str, str] | None = None,  # xgrammar's own (", ", ": ") unless given
    ):
        import xgrammar

        self.xgr = xgrammar
        self.info = xgrammar.TokenizerInfo.from_huggingface(tokenizer, vocab_size=vocab_size)
        self.compiler = xgrammar.GrammarCompiler(self.info)
        self.vocab_size = vocab_size
        self.cache: dict[str, Any] = {}
        self.cache_dir = cache_dir
        self.separators = separators
        if cache_dir is not None:
            vocabulary = hashlib.sha256(b"\0".join(self.info.decoded_vocab))
            version = importlib.metadata.version("xgrammar")
            vocabulary.update(f"{version} {vocab_size} {self.info.stop_token_ids} {SCHEMA_RECIPE}".encode())
            self.vocabulary = vocabulary.hexdigest()

    def compiled(self, schema: dict[str, Any]) -> Any:
        key = json.dumps([schema, self.separators], sort_keys=True)
        if key not in self.cache:
            self.cache[key] = self.stored(key) or self.compile(schema, key)
        return self.cache[key]

    def compile(self, schema: dict[str, Any], key: str) -> Any:
        # compiled in the schema's own property order, which the reply follows
        compiled = self.compiler.compile_json_schema(
            json.dumps(xgrammar_schema(schema)), any_whitespace=False, separators=self.separators
        )
        if self.cache_dir is not None:
            with contextlib.suppress(OSError):  # the kept copy only spares the next run a compile: no error
                write_bytes_atomic(self.stored_path(key), gzip.compress(compiled.serialize_json().encode(), 1, mtime=0))
        return compiled

    def stored(self, key: str) -> Any | None:
        """The grammar kept in `cache_dir`, read as a cache is (`read_cache`: never through a link, bounded once
        decompressed); None where there is none or it cannot be read back (another xgrammar's, cut short): it is
        then compiled again and replaced."""
        data = None if self.cache_dir is None else read_cache(self.stored_path(key), DERIVED)
        try:
            return None if data is None else self.xgr.CompiledGrammar.deserialize_json(data.decode(), self.info)
        except (ValueError, RuntimeError):
            return None

    def stored_path(self, key: str) -> Path:
        name = hashlib.sha256(f"{self.vocabulary} {key}".encode()).hexdigest()[:32]
        return self.cache_dir / f"{name}.json.gz"

    def processor(self, schemas: Sequence[dict[str, Any] | None], eos_ids: Sequence[int]) -> SchemaLogitsProcessor:
        matchers = [None if s is None else self.xgr.GrammarMatcher(self.compiled(s)) for s in schemas]
        return SchemaLogitsProcessor(self.xgr, matchers, self.vocab_size, eos_ids)


class SchemaLogitsProcessor:
    """A transformers logits processor: masks every token the row's grammar does not allow next."""

    def __init__(self, xgr: Any, matchers: list[Any], vocab_size: int, eos_ids: Sequence[int]):
        self.xgr = xgr
        self.matchers = matchers
        self.eos_ids = list(eos_ids)
        self.bitmask = xgr.allocate_token_bitmask(len(matchers), vocab_size)
        self.started = False

    def __call__(self, input_ids, scores):
        import torch

        if self.started:
            for row, matcher in enumerate(self.matchers):
                if matcher is not None and not matcher.is_terminated():
                    matcher.accept_token(int(input_ids[row, -1]))
        self.started = True
        for row, matcher in enumerate(self.matchers):
            if matcher is None:
                continue
            if matcher.is_terminated():  # the row has ended; transformers pads it until the batch is done
                only_eos = torch.full_like(scores[row], float("-inf"))
                only_eos[self.eos_ids] = 0.0
                scores[row] = only_eos
                continue
            matcher.fill_next_token_bitmask(self.bitmask, row)
            self.xgr.apply_token_bitmask_inplace(scores[row : row + 1], self.bitmask[row : row + 1].to(scores.device))
        return scores


def xgrammar_schema(schema: Any) -> Any:
    """The schema with each string's `maxLength` folded into its pattern, where the pattern is one character class
    repeated (`^[^"\\\\]*$`): xgrammar ignores a maxLength beside a pattern, but enforces a bounded repetition."""
    if isinstance(schema, list):
        return [xgrammar_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    folded = {key: xgrammar_schema(value) for key, value in schema.items()}
    repeated = REPEATED_CLASS.fullmatch(str(folded.get("pattern", "")))
    if repeated and isinstance(folded.get("maxLength"), int) and not folded.get("minLength"):
        pattern = bounded_repeat(repeated.group(1), folded["maxLength"])
        if pattern is not None:
            folded["pattern"] = pattern
            del folded["maxLength"]
    return folded


def bounded_repeat(character_class: str, most: int) -> str | None:
    """A pattern of 0 to `most` characters of the class, in repetitions xgrammar compiles; None if there is none."""
    if most <= LONGEST_REPEAT:
        return f"^{character_class}{{0,{most}}}$"
    chunk = next((size for size in range(CHUNK, 1, -1) if most % size == 0), None)
    if chunk is None or most // chunk - 1 > LONGEST_REPEAT:
        return None
    return f"^({character_class}{{{chunk}}}){{0,{most // chunk - 1}}}{character_class}{{0,{chunk}}}$"
