"""Synthetic populations that are hard on intervals on purpose, on HelloBench's 647 main prompts and their tasks
(row scores 0..100, seeded), beside the released ones in `interval_coverage.py`:

- top, rare zeros: a model near the top of the scale (gpt4o_0806's released rows pulled to the top,
  100 - 0.6 x (100 - score)) that scores 0 on 3 prompts (0.5%): most small samples hold no zero and show too little
  spread;
- heavy tails: 85 - 6 |t_3| per prompt, clipped to 0..100: a long lower tail;
- bimodal tasks: in each task a share (10-50%) of prompts the model fails (about 25) and the rest it does well
  (about 88);
- rare failures (`RATES`): the same rows near the top, a drawn prompt scoring 0 with probability 0 (none), 0.2%, 0.5%
  or 1% (on any prompt: the failure is the draw's, as a model that fails now and then; `interval_coverage.Population`
  draws it);
- clustered failures: the rows near the top with 0 on three prompts of one task (chat: 2.3% of its prompts, none
  elsewhere);
- discrete near the top: each prompt's row one of 100 / 87.5 / 75 / 50 / 0 (75 / 15 / 6 / 3.5 / 0.5%), as a
  checklist of few items scores; its sibling one step lower on a fifth of the prompts, so most paired differences
  are 0 and a few prompts per task often show no spread.

Pairs share what their prompts share (a prompt's difficulty), as two models on one benchmark do: each population has
a sibling (`PAIRS`). "top, rare zeros" is paired with gpt4o_0806, whose rows it is made from: the rare zeros are then
the difference's own rare values; so are the rare, clustered failures. The discrete model is paired with its
sibling.
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
RATES = {"top, no zeros": 0.0, "top, 0.2% zeros": 0.002, "top, 0.5% zeros": 0.005, "top, 1% zeros": 0.01}  # a
# drawn prompt's chance of 0
CLUSTERED, DISCRETE = "top, 3 zeros in one task", "discrete near the top"
LEVELS, LEVEL_SHARES = (100.0, 87.5, 75.0, 50.0, 0.0), (0.75, 0.15, 0.06, 0.035, 0.005)
RARE_PAIRS = (*((name, "gpt4o_0806") for name in RATES), (CLUSTERED, "gpt4o_0806"), (DISCRETE, f"{DISCRETE} sibling"))


def hard_populations(tasks: np.ndarray, gpt4o: np.ndarray, seed: int = 0) -> dict[str, np.ndarray]:
    """Row scores per synthetic model over the prompts of `tasks` (NaN where gpt4o_0806 has none)."""
    rng = np.random.default_rng(seed)
    n = len(tasks)
    scored = np.flatnonzero(np.isfinite(gpt4o))
    top = 100 - 0.6 * (100 - gpt4o)
    top[rng.choice(scored, 3, replace=False)] = 0.0
    difficulty = 6 * np.abs(rng.standard_t(3, n))
    failed = rng.random(n) < np.array([FAILED_SHARE[t] for t in tasks])
    found = {
        TOP: top,
        HEAVY: np.clip(85 - difficulty + rng.normal(0, 4, n), 0, 100),
        f"{HEAVY} sibling": np.clip(82 - 0.9 * difficulty + rng.normal(0, 6, n), 0, 100),
        BIMODAL: np.clip(np.where(failed, rng.normal(25, 10, n), rng.normal(88, 5, n)), 0, 100),
        f"{BIMODAL} sibling": np.clip(np.where(failed, rng.normal(30, 12, n), rng.normal(84, 7, n)), 0, 100),
    }
    return found | rare_failures(tasks, gpt4o, rng)


def rare_failures(tasks: np.ndarray, gpt4o: np.ndarray, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The rare-failure populations' rows (those of `RATES` without their failures, which are drawn with the prompt),
    the clustered ones and the discrete pair."""
    scored = np.isfinite(gpt4o)
    near_top = 100 - 0.6 * (100 - gpt4o)
    clustered = near_top.copy()
    clustered[rng.choice(np.flatnonzero(scored & (tasks == "chat")), 3, replace=False)] = 0.0
    level = rng.choice(len(LEVELS), len(tasks), p=LEVEL_SHARES)
    lower = np.minimum(level + (rng.random(len(tasks)) < 0.2), len(LEVELS) - 1)
    levels = np.array(LEVELS)
    discrete, sibling = (np.where(scored, levels[index], np.nan) for index in (level, lower))
    return dict.fromkeys(RATES, near_top) | {CLUSTERED: clustered, DISCRETE: discrete, f"{DISCRETE} sibling": sibling}
