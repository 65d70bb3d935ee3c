"""Choosing each row's next token in the `ort` backend's batched engine: its grammar, then greedy or sampling.

Sampling follows onnxruntime-genai's: the folder's own top_k and top_p (genai_config.json `search`) unless the run
sets them, the temperature, and one random stream per row seeded with the run's seed (so a row draws the same tokens
whichever rows share its batch). A row with a JSON schema is masked by xgrammar (through the `hf` backend's
`hf_grammar`), imported only when a schema comes, in the compact JSON that the `genai` engine's llguidance writes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..config import GenerationConfig
from .model_cache import cache_root

NEGLIGIBLE = 40.0  # in logits at temperature 1: e^-40 is about 4e-18
COMPACT = (",", ":")  # JSON without a space after a comma or colon, as onnxruntime-genai's llguidance writes it


def folder_search_defaults(settings: dict[str, Any]) -> tuple[int, float]:
    """The top_k and top_p of a folder's genai_config.json `settings` (onnxruntime-genai's defaults where it sets
    none)."""
    search = settings.get("search", {})
    return int(search.get("top_k", 50)), float(search.get("top_p", 1.0))


class Grammars:
    """xgrammar's vocabulary, prepared on the first schema; one matcher per constrained row. Compiled schemas are
    kept in the model cache (`grammars/`), so a schema is compiled once per machine."""

    def __init__(self, tokenizer: Any, vocab_size: int):
        self.tokenizer = tokenizer
        self.vocab_size = vocab_size
        self.compiler = None

    def matcher(self, schema: dict[str, Any]) -> Any:
        if self.compiler is None:
            from .hf_grammar import GrammarCompiler

            cache = cache_root() / "grammars"
            self.compiler = GrammarCompiler(self.tokenizer, self.vocab_size, cache, separators=COMPACT)
        return self.compiler.xgr.GrammarMatcher(self.compiler.compiled(schema))


class RowSampler:
    """The next token of one row, and whether its grammar has ended the row."""

    def __init__(self, config: GenerationConfig, defaults: tuple[int, float], matcher: Any | None = None):
        self.temperature = config.temperature
        self.top_k = config.top_k if config.top_k is not None else defaults[0]
        self.top_p = config.top_p if config.top_p is not None else defaults[1]
        self.random = np.random.default_rng(config.seed)
        self.matcher = matcher
        self.bitmask = None

    def choose(self, logits: np.ndarray) -> int:
        """Masks `logits` (one row, changed in place) by the grammar, then picks a token and gives it to the grammar;
        a ValueError if the model's logits hold NaN (its call failed: no token is chosen from them)."""
        if np.isnan(logits).any():
            raise ValueError("the model's logits hold NaN")
        if self.matcher is not None:
            self.mask(logits)
        token = int(np.argmax(logits)) if self.temperature <= 0 else self.sample(logits)
        if self.matcher is not None:
            self.matcher.accept_token(token)
        return token

    def ended(self) -> bool:
        return self.matcher is not None and self.matcher.is_terminated()

    def mask(self, logits: np.ndarray) -> None:
        import torch
        import xgrammar

        if self.bitmask is None:
            self.bitmask = xgrammar.allocate_token_bitmask(1, logits.shape[-1])
        self.matcher.fill_next_token_bitmask(self.bitmask, 0)
        xgrammar.apply_token_bitmask_inplace(torch.from_numpy(logits).unsqueeze(0), self.bitmask)

    def sample(self, logits: np.ndarray) -> int:
        allowed = None if self.matcher is None else np.flatnonzero(logits != -np.inf)  # the grammar's few
        values = logits if allowed is None else logits[allowed]
        if 0 < self.top_k < values.size:
            top = np.argpartition(values, -self.top_k)[-self.top_k :]
        else:  # a token more than NEGLIGIBLE below the best has a probability under e^-NEGLIGIBLE of it
            top = np.flatnonzero(values > values.max() - NEGLIGIBLE * self.temperature)
        candidates = top if allowed is None else allowed[top]
        kept = logits[candidates].astype(np.float64) / self.temperature
        order = np.argsort(-kept, kind="stable")
        candidates, kept = candidates[order], kept[order]
        probabilities = np.exp(kept - kept[0])
        probabilities /= probabilities.sum()
        if self.top_p < 1.0:
            keep = min(int(np.searchsorted(np.cumsum(probabilities), self.top_p)) + 1, probabilities.size)
            candidates, probabilities = candidates[:keep], probabilities[:keep] / probabilities[:keep].sum()
        return int(candidates[self.random.choice(candidates.size, p=probabilities)])
