"""Pairwise human-aligned evaluation: outcomes, win rates, evaluator QC, agreement, Elo and Bradley-Terry.

Also the length-controlled win rate (AlpacaEval 2.0) and style-controlled Bradley-Terry (arena-hard-auto).
"""

from .agreement import Agreement, judge_agreement, three_way
from .annotators import (
    AnnotatorQC,
    gold_labels,
    gsb,
    majority,
    pairwise_agreement,
    quality_control,
    three_label_agreement,
    z_scores,
)
from .judge import (
    SCORE_SCHEMA,
    VERDICT_SCHEMA,
    load_pairwise_prompt,
    pairwise_messages,
    parse_pairwise_verdict,
    parse_single_score,
    parse_verdict_reply,
    single_score_messages,
)
from .length_control import LengthControlledWinRate, instruction_difficulty, length_controlled_win_rates
from .outcomes import Battle, Outcome, as_outcome, combine_orders, flip_rate, from_single_scores, swap
from .ratings import BradleyTerry, bradley_terry, elo_ratings, elo_win_probability, predicted_win_rates
from .style_control import StyleControlledBT, StyleFeatures, style_controlled_bradley_terry, style_features
from .winrate import OutcomeRates, outcome_rates, tencent_win_rate, win_rate_matrix

__all__ = [
    "SCORE_SCHEMA",
    "VERDICT_SCHEMA",
    "Agreement",
    "AnnotatorQC",
    "Battle",
    "BradleyTerry",
    "Outcome",
    "as_outcome",
    "bradley_terry",
    "combine_orders",
    "elo_ratings",
    "elo_win_probability",
    "flip_rate",
    "from_single_scores",
    "gold_labels",
    "gsb",
    "load_pairwise_prompt",
    "majority",
    "pairwise_agreement",
    "pairwise_messages",
    "parse_pairwise_verdict",
    "predicted_win_rates",
    "quality_control",
    "swap",
    "tencent_win_rate",
    "three_label_agreement",
    "win_rate_matrix",
    "z_scores",
    "judge_agreement",
    "outcome_rates",
    "OutcomeRates",
    "parse_single_score",
    "parse_verdict_reply",
    "single_score_messages",
    "three_way",
    "LengthControlledWinRate",
    "StyleControlledBT",
    "StyleFeatures",
    "instruction_difficulty",
    "length_controlled_win_rates",
    "style_controlled_bradley_terry",
    "style_features",
]
