"""Pairwise human-aligned evaluation as an `evaluate` metric: agreement with reference labels, Elo and BT."""

from __future__ import annotations

import datasets
import evaluate

from longform_eval.common.plurals import counted
from longform_eval.metric.columns import check_columns, is_list
from longform_eval.metric.pairwise.agreement import agreement, label_set
from longform_eval.metric.pairwise.outcomes import Battle, Outcome, as_outcome, model_name_problem
from longform_eval.metric.pairwise.ratings import bradley_terry, check_integer, elo_ratings
from longform_eval.metric.space_limits import check_ceiling
from longform_eval.metric.uncertainty.label_agreement import Agreement

_CITATION = """\
@article{xie2023tencentllmeval,
  title   = {TencentLLMEval: A Hierarchical Evaluation of Real-World Capabilities for Human-Aligned LLMs},
  author  = {Xie, Shuyi and Yao, Wenlin and Dai, Yong and others},
  journal = {arXiv preprint arXiv:2311.05374},
  year    = {2023}
}
"""

_DESCRIPTION = """\
Pairwise comparisons with four outcomes: A better, B better, equally good, equally bad. The metric measures
how often a set of labels (e.g. an LLM judge's) agrees with reference labels (e.g. human majority), and, given
the model names, rates the models from the predicted labels with Elo (K=4, start 1000, mean of 20 seeded
shuffles) and Bradley-Terry (maximum likelihood, seeded bootstrap 95% intervals). Both ties are draws.
Predictions that are empty or "unscored" are left out and counted.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: labels to evaluate, one per comparison: "A", "B", "equally_good", "equally_bad"
        ("tie" is read as equally good); "" or "unscored" for a verdict that could not be parsed.
    references: reference labels in the same vocabulary (e.g. the human majority).
    model_a: optional, the model shown as A in each comparison. model_b: the model shown as B. Names are
        non-empty strings and the two differ in every comparison; at most 100 models.
    bootstrap_rounds: Bradley-Terry bootstrap rounds, an integer from 0 to 1,000 (default 100; 0: no bootstrap, no
        interval), with rounds x comparisons at most 2,000,000 and rounds x models at most 20,000 (each round refits:
        the Space answers within its time limit).
        seed: random seed, an integer >= 0 (default 0). Another value raises a ValueError naming the argument.
    labels: the label set agreement and kappa are computed on: 4 (default: A, B, equally_good, equally_bad) or 3
        (A, B, tie: equally good and equally bad are one tie, as three-class human labels such as PandaLM's).
    Empty predictions, an unknown label or a bad model name raise a ValueError naming the list and position.
Returns:
    agreement: share of scored comparisons whose prediction equals the reference (0..1).
    cohen_kappa: chance-corrected agreement (-1..1). labels: the label set both are on ("4 labels: A, B, ...").
    agreement_lower/_upper: Wilson's 95% interval; cohen_kappa_lower/_upper: bootstrap SE over the comparisons
    (2000 resamples, `seed`), a t quantile, cut to [-1, 1]; None with agreement_note / cohen_kappa_note saying
    why (one comparison, every label the same). n_scored, n_unscored: comparisons used / left out.
    With model_a and model_b: elo_<model>, bt_<model>, bt_<model>_lower, bt_<model>_upper (Elo scale,
    around 1000), computed from the predictions; None for a model without a scored comparison. The interval
    bounds are None, and bt_<model>_note says why, with bootstrap_rounds=0, for a model with fewer than 20 scored
    comparisons (too few to rank it), or where the fit diverges (a model that never lost or never won: then
    bt_<model> is None too).
Examples:
    >>> import evaluate
    >>> pairwise = evaluate.load("metric/pairwise")
    >>> result = pairwise.compute(predictions=["A", "B", "equally_good", "unscored"],
    ...                           references=["A", "A", "equally_good", "B"])
    >>> round(result["agreement"], 3), result["n_scored"], result["n_unscored"]
    (0.667, 3, 1)

    >>> result = pairwise.compute(predictions=["A"] * 18 + ["B"] * 6, references=["A"] * 24,
    ...                           model_a=["gpt"] * 24, model_b=["llama"] * 24, bootstrap_rounds=20)
    >>> result["elo_gpt"] > 1000 > result["elo_llama"], result["bt_gpt_lower"] > result["bt_llama_upper"]
    (True, True)

    >>> few = pairwise.compute(predictions=["A"] * 6 + ["B"] * 2, references=["A"] * 8,
    ...                        model_a=["gpt"] * 8, model_b=["llama"] * 8, bootstrap_rounds=20)
    >>> few["bt_gpt"] > few["bt_llama"], few["bt_gpt_lower"], few["bt_gpt_note"]
    (True, None, '8 battles, fewer than 20: not ranked')

    >>> pairwise.compute(predictions=["A"], references=["B"], model_a=["gpt"], model_b=[None])
    Traceback (most recent call last):
    ...
    ValueError: model_b[0]: expected a model name (a string), got None

    >>> pairwise.compute(predictions=["A"], references=["A"], bootstrap_rounds=-1)
    Traceback (most recent call last):
    ...
    ValueError: bootstrap_rounds must be an integer >= 0, got -1
"""

UNSCORED_LABELS = {"", "unscored"}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Pairwise(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
            reference_urls=["https://github.com/xsysigma/TencentLLMEval", "https://arxiv.org/abs/2311.05374"],
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """`evaluate.Metric.compute`, the columns checked first: a value that does not fit is a ValueError naming it."""
        check_columns(self.info.features, predictions=predictions, references=references)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, model_a=None, model_b=None, bootstrap_rounds=100, seed=0, labels=4):
        check_integer("bootstrap_rounds", bootstrap_rounds, 0)
        check_ceiling("bootstrap_rounds", bootstrap_rounds, "bootstrap_rounds")  # before any work
        check_integer("seed", seed, 0)
        label_set(labels)  # 3 or 4, else a ValueError naming the argument
        if model_a is not None or model_b is not None:  # rated: the bootstrap refits once per round
            rows = f"bootstrap_rounds {bootstrap_rounds:,} x {counted(len(predictions), 'comparison', spec=',')}"
            check_ceiling(rows, bootstrap_rounds * len(predictions), "bootstrap_work")
        if not predictions:
            raise ValueError("predictions is empty: there is nothing to compare")
        expected_all = [label_of(reference, f"references[{i}]") for i, reference in enumerate(references)]
        keep = [i for i, p in enumerate(predictions) if (p or "").strip().lower() not in UNSCORED_LABELS]
        predicted = [label_of(predictions[i], f"predictions[{i}]").value for i in keep]
        expected = [expected_all[i].value for i in keep]
        found = agreement(expected, predicted, labels, unit="comparison", seed=seed)
        result = {
            "agreement": found.agreement,
            "cohen_kappa": found.cohen_kappa,
            "labels": found.label_set,
            **interval_keys(found),
            "n_scored": len(keep),
            "n_unscored": len(predictions) - len(keep),
        }
        if model_a is None and model_b is None:
            return result
        check_models(model_a, model_b, len(predictions))
        check_model_count(len(set(model_a) | set(model_b)), bootstrap_rounds)
        battles = [Battle(model_a[i], model_b[i], as_outcome(predictions[i])) for i in keep]
        for model in sorted(set(model_a) | set(model_b)):  # None unless a scored comparison rates it
            result.update(dict.fromkeys((f"elo_{model}", f"bt_{model}", f"bt_{model}_lower", f"bt_{model}_upper")))
        for model, rating in elo_ratings(battles, seed=seed).items():
            result[f"elo_{model}"] = rating
        bt = bradley_terry(battles, bootstrap=bootstrap_rounds, seed=seed)
        for model in bt.models:
            result[f"bt_{model}"] = bt.ratings[model]
            result[f"bt_{model}_lower"], result[f"bt_{model}_upper"] = bt.lower[model], bt.upper[model]
            if model in bt.reasons:
                result[f"bt_{model}_note"] = bt.reasons[model]
        return result


def interval_keys(found: Agreement) -> dict:
    """`<figure>_lower` and `<figure>_upper` of agreement and cohen_kappa, and `<figure>_note` where one has none."""
    keys: dict = {}
    for name, spread in (("agreement", found.agreement_interval), ("cohen_kappa", found.kappa_interval)):
        keys[f"{name}_lower"], keys[f"{name}_upper"] = (None, None) if spread is None else (spread.low, spread.high)
        if name in found.reasons:
            keys[f"{name}_note"] = found.reasons[name]
    return keys


def check_model_count(models: int, rounds: int) -> None:
    """Refuse more distinct models than the `models` ceiling, or bootstrap rounds x models over `bootstrap_models`
    (a refit costs with the models: `space_limits`)."""
    check_ceiling("model_a and model_b", models, "models")
    check_ceiling(f"bootstrap_rounds {rounds:,} x {models:,} models", rounds * models, "bootstrap_models")


def label_of(label: str | None, where: str) -> Outcome:
    try:
        return as_outcome(label)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


def check_models(model_a, model_b, size: int) -> None:
    """Raise a ValueError naming the list and position unless both give one distinct model name per prediction."""
    for side, models in (("model_a", model_a), ("model_b", model_b)):
        if not is_list(models) or len(models) != size:
            got = "nothing" if models is None else type(models).__name__
            got += f" of length {len(models)}" if hasattr(models, "__len__") else ""
            raise ValueError(
                f"model_a and model_b must both be lists of {counted(size, 'model name')}; {side} is {got}"
            )
        for index, name in enumerate(models):
            problem = model_name_problem(name)
            if problem is not None:
                raise ValueError(f"{side}[{index}]: {problem}")
    for index, (first, second) in enumerate(zip(model_a, model_b, strict=True)):
        if first == second:
            raise ValueError(f"model_a[{index}] and model_b[{index}] are both {first!r}: a model compared with itself")
