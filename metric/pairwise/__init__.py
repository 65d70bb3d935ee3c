"""Pairwise human-aligned evaluation: outcomes, win rates, evaluator QC, agreement, Elo and Bradley-Terry.

Also the length-controlled win rate (AlpacaEval 2.0) and style-controlled Bradley-Terry (arena-hard-auto).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from longform_eval.common.lazy import lazy_exports

# Each name is imported from its module on first use: sklearn (about a second) loads only with what fits a model.
MODULE_OF = {
    "Agreement": "agreement",
    "judge_agreement": "agreement",
    "three_way": "agreement",
    "AnnotatorQC": "annotators",
    "gold_labels": "annotators",
    "gsb": "annotators",
    "majority": "annotators",
    "pairwise_agreement": "annotators",
    "quality_control": "annotators",
    "three_label_agreement": "annotators",
    "z_scores": "annotators",
    "SCORE_SCHEMA": "judge",
    "VERDICT_SCHEMA": "judge",
    "load_pairwise_prompt": "judge",
    "pairwise_messages": "judge",
    "parse_pairwise_verdict": "judge",
    "parse_single_score": "judge",
    "parse_verdict_reply": "judge",
    "single_score_messages": "judge",
    "LengthControlledWinRate": "length_control",
    "instruction_difficulty": "length_control",
    "length_controlled_win_rates": "length_control",
    "Battle": "outcomes",
    "Outcome": "outcomes",
    "as_outcome": "outcomes",
    "combine_orders": "outcomes",
    "flip_rate": "outcomes",
    "from_single_scores": "outcomes",
    "swap": "outcomes",
    "BradleyTerry": "ratings",
    "bradley_terry": "ratings",
    "elo_ratings": "ratings",
    "elo_win_probability": "ratings",
    "predicted_win_rates": "ratings",
    "StyleControlledBT": "style_control",
    "StyleFeatures": "style_control",
    "style_controlled_bradley_terry": "style_control",
    "style_features": "style_control",
    "OutcomeRates": "winrate",
    "outcome_rates": "winrate",
    "tencent_win_rate": "winrate",
    "win_rate_matrix": "winrate",
}

if TYPE_CHECKING:
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


__getattr__, __dir__ = lazy_exports(__name__, MODULE_OF, __all__)
