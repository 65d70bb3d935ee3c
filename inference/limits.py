"""The ceiling of every count a user gives a run, with the reason a larger one can only be a mistake.

Each bounds its command-line option (`CEILING.argument()`) and the field it becomes (`AfterValidator(CEILING.check)`
in the typed configuration, so that a hand-edited config.yaml is held to the same bound); both are checked before
anything is written. LongGenBench's `per_scenario` has its own, beside the generator (dataset_builder).
"""

from __future__ import annotations

from longform_eval.common.arg_types import Ceiling

NEW_TOKENS = Ceiling(1_048_576, "the longest context any model offers is about 2^20 tokens")
JUDGE_SAMPLES = Ceiling(
    100, "each sample is one more judge call per judgement; a handful already measure the judge's noise"
)
JUDGE_ATTEMPTS = Ceiling(100, "each attempt is one more judge call; a judge that has not parsed in 100 never will")
ROWS = Ceiling(10_000_000, "more rows than any benchmark holds")
BACKEND_COUNT = Ceiling(2**31 - 1, "backends take 32-bit integers")
