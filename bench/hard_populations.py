"""Synthetic populations that are hard on intervals on purpose, on HelloBench's 647 main prompts and their tasks
(row scores 0..100, seeded), beside the released ones in `interval_coverage.py`:

- top, rare zeros: a model near the top of the scale (gpt4o_0806's released rows pulled to the top,
  100 - 0.6 x (100 - score)) that scores 0 on 3 prompts (0.5%): most small samples hold no zero and show too little
  spread;
- heavy tails: 85 - 6 |t_3| per prompt, clipped to 0..100: a long lower tail;
- bimodal tasks: in each task a share (10-50%) of prompts the model fails (about 25) and the rest it does well
  (about 88).

Pairs share what their prompts share (a prompt's difficulty), as two models on one benchmark do: each population has
a sibling (`PAIRS`). "top, rare zeros" is paired with gpt4o_0806, whose rows it is made from: the rare zeros are then
the difference's own rare values.
"""

from __future__ import annotations

import numpy as np

TOP, HEAVY, BIMODAL = "top, rare zeros", "heavy tails", "bimodal tasks"
FAILED_SHARE = {  # per task, the share of prompts a bimodal model fails
    "open_ended_qa": 0.2,
    "summarization": 0.5,
    "chat": 0.35,
    "text_completion": 0.1,
    "heuristic_text_generation": 0.4,
}
PAIRS = ((TOP, "gpt4o_0806"), (HEAVY, f"{HEAVY} sibling"), (BIMODAL, f"{BIMODAL} sibling"))


def hard_populations(tasks: np.ndarray, gpt4o: np.ndarray, seed: int = 0) -> dict[str, np.ndarray]:
    """Row scores per synthetic model over the prompts of `tasks` (NaN where gpt4o_0806 has none)."""
    rng = np.random.default_rng(seed)
    n = len(tasks)
    scored = np.flatnonzero(np.isfinite(gpt4o))
    top = 100 - 0.6 * (100 - gpt4o)
    top[rng.choice(scored, 3, replace=False)] = 0.0
    difficulty = 6 * np.abs(rng.standard_t(3, n))
    failed = rng.random(n) < np.array([FAILED_SHARE[t] for t in tasks])
    return {
        TOP: top,
        HEAVY: np.clip(85 - difficulty + rng.normal(0, 4, n), 0, 100),
        f"{HEAVY} sibling": np.clip(82 - 0.9 * difficulty + rng.normal(0, 6, n), 0, 100),
        BIMODAL: np.clip(np.where(failed, rng.normal(25, 10, n), rng.normal(88, 5, n)), 0, 100),
        f"{BIMODAL} sibling": np.clip(np.where(failed, rng.normal(30, 12, n), rng.normal(84, 7, n)), 0, 100),
    }
