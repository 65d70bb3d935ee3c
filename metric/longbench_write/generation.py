"""How upstream `evaluation/pred.py` (THUDM/LongWriter @ 3fcfdff) prompts the model under test, and the judge
retry difference, as text a run lists.

pred.py sends one user turn. For a model whose path contains "llama" (`"llama" in path.lower()`, on the Hugging Face
repo id or folder it loads) it builds the raw text `f"[INST]{prompt}[/INST]"` and tokenizes it with
`tokenizer(prompt, truncation=False)`, i.e. with the tokenizer's own special tokens (Llama's BOS), no chat template;
every other model goes through `model.chat(tokenizer, prompt, history=[])`, the model's own chat format.
"""

from __future__ import annotations

PROMPT_FORMATS = ("chat", "upstream")
RAW_PROMPT = "[INST]{prompt}[/INST]"


def upstream_raw_prompt(prompt: str) -> str:
    """pred.py's text for a Llama model, byte for byte (a plain f-string: no space or newline is added)."""
    return f"[INST]{prompt}[/INST]"


def upstream_uses_raw_prompt(model: str | None) -> bool:
    """pred.py's rule for the raw format: "llama" in the model's path, any case (None: the model is not known)."""
    return model is not None and "llama" in model.lower()


def prompt_format_deviation() -> str:
    """The `deviations` line of a Llama model prompted through its chat template."""
    return (
        "generation prompt = the chat template (paper: pred.py's raw "
        f'"{RAW_PROMPT}" for a model whose path contains "llama"; --benchmark-arg prompt_format=upstream)'
    )


def judge_retry_deviation(attempts: int) -> str:
    """The `deviations` line of the judge's retries (eval_quality.py counts some failed replies twice)."""
    return (
        f"judge retry: every unparsed reply costs 1 of the {attempts} attempts (paper: eval_quality.py's 5 tries, of "
        "which a reply lacking a dimension other than the last costs 2, a TypeError after `scores = None`: 3 calls)"
    )
