"""LongBench-Write (Bai et al., LongWriter, ICLR 2025) as an `evaluate` metric: S_l, S_q and S = (S_l + S_q) / 2."""

from __future__ import annotations

import datasets
import evaluate

from longform_eval.common.plurals import counted
from longform_eval.metric.columns import check_columns, is_list, shown
from longform_eval.metric.longbench_write.judge import PARSER_RULES, parse_judgement
from longform_eval.metric.longbench_write.scoring import BUCKETS, Item, count_length, is_count, score_items
from longform_eval.metric.unscored import Unscored

_CITATION = """\
@inproceedings{bai2025longwriter,
  title     = {LongWriter: Unleashing 10,000+ Word Generation from Long Context {LLMs}},
  author    = {Bai, Yushi and Zhang, Jiajie and Lv, Xin and Zheng, Linzhi and Zhu, Siqi and Hou, Lei
               and Dong, Yuxiao and Tang, Jie and Li, Juanzi},
  booktitle = {International Conference on Learning Representations (ICLR)},
  year      = {2025},
  note      = {arXiv:2408.07055}
}
"""

_DESCRIPTION = """\
LongBench-Write asks for outputs of a required length (100 to 20,000 words or Chinese characters). The length of
an output is its CJK characters plus its English words. The length score of one output of length y asked to be x
long is S_l = 100 * max(0, 1 - (y/x - 1)/3) if y > x, else 100 * max(0, 1 - (x/y - 1)/2) (an empty output scores
0). A judge scores six dimensions from 1 to 5 (Relevance, Accuracy, Coherence, Clarity, Breadth and Depth, Reading
Experience); each dimension's score is (mean - 1) * 25 and S_q is their mean. S = (S_l + S_q) / 2. S_l is also
given per required-length bucket: [0,500), [500,2k), [2k,4k), [4k,20k], and >20k (the ruler probe's 30,000).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: the outputs, one per item.
    references: the required length of each item (`required_length` of the dataset), a positive integer.
    judge_completions: optional, per item the judge's raw reply to the prompt of
        `longform_eval.metric.longbench_write.judge_prompt` (None: not judged, counted as unscored). Without it,
        only the length figures are computed.
    parser: "strict" (default: a reply without all six dimensions, each a number in [1, 5] as upstream's float()
        reads it, JSON true included as 1.0, is unscored) or
        "upstream_fill" (upstream's aggregation: a missing dimension is read as 3; a deviation, counted in
        n_filled). A reply that is not a JSON object, or gives none of the six dimensions, is unscored under both.
Returns:
    s_l, s_q, s (0..100, None when not computable), n_items, n_judged, n_scored, n_unscored, n_filled, the six
    dimension scores (relevance, accuracy, coherence, clarity, breadth_and_depth, reading_experience), and per
    bucket s_l_<bucket> and n_<bucket> for 0_500, 500_2k, 2k_4k, 4k_20k, above_20k (None / 0 when empty).
Examples:
    The worked figure: an output twice the required length, all six dimensions at 4.
    >>> import evaluate
    >>> longbench_write = evaluate.load("metric/longbench_write")
    >>> reply = ('{"Analysis": "Clear.", "Relevance": 4, "Accuracy": 4, "Coherence": 4, "Clarity": 4, '
    ...          '"Breadth and Depth": 4, "Reading Experience": 4}')
    >>> result = longbench_write.compute(predictions=["word " * 200], references=[100], judge_completions=[reply])
    >>> round(result["s_l"], 2), result["s_q"], round(result["s"], 2), result["s_l_0_500"] == result["s_l"]
    (66.67, 75.0, 70.83, True)

    Length is CJK characters plus English words (upstream's regular expressions):
    >>> from longform_eval.metric.longbench_write import count_length
    >>> count_length("我们写了 three English words。"), count_length("Python编程 abc123")
    (7, 2)

    A reply that lacks a dimension is unscored; upstream's fill with 3 is an opt-in variant:
    >>> partial = ('{"Relevance": 5, "Accuracy": 5, "Coherence": 5, "Clarity": 5, "Breadth and Depth": 5}')
    >>> strict = longbench_write.compute(predictions=["word " * 100], references=[100], judge_completions=[partial])
    >>> strict["s_l"], strict["s_q"], strict["s"], strict["n_unscored"]
    (100.0, None, None, 1)
    >>> filled = longbench_write.compute(predictions=["word " * 100], references=[100], judge_completions=[partial],
    ...                                  parser="upstream_fill")
    >>> round(filled["s_q"], 2), filled["n_filled"], filled["n_unscored"]
    (91.67, 1, 0)
"""

BUCKET_KEYS = dict(zip(BUCKETS, ("0_500", "500_2k", "2k_4k", "4k_20k", "above_20k"), strict=True))


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class LongBenchWrite(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("int64")}
            ),
            reference_urls=["https://github.com/THUDM/LongWriter", "https://arxiv.org/abs/2408.07055"],
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """`evaluate.Metric.compute`, the columns checked first: a value that does not fit is a ValueError naming it."""
        check_columns(self.info.features, predictions=predictions, references=references)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, judge_completions=None, parser="strict"):
        if parser not in PARSER_RULES:
            raise ValueError(f"unknown parser {parser!r}; use one of {', '.join(PARSER_RULES)}")
        if not predictions:
            raise ValueError("predictions is empty: no items to score")
        if judge_completions is not None and not is_list(judge_completions):
            raise ValueError(f"judge_completions: expected a list, one reply per item, got {shown(judge_completions)}")
        if judge_completions is not None and len(judge_completions) != len(predictions):
            raise ValueError(
                f"judge_completions has {counted(len(judge_completions), 'entry')} for "
                f"{counted(len(predictions), 'item')}"
            )
        items, filled = [], 0
        for index, (output, required) in enumerate(zip(predictions, references, strict=True)):
            if output is None:
                raise ValueError(f"predictions[{index}]: expected the output text, got None")
            if not is_count(required) or required <= 0:
                raise ValueError(f"references[{index}]: expected a positive required length, got {required!r}")
            verdict = None
            if judge_completions is not None:
                completion = judge_reply(judge_completions[index], index)
                parsed = parse_judgement(completion, parser) if completion is not None else None
                verdict = parsed.scores if parsed is not None else Unscored("no judge completion")
                filled += bool(parsed is not None and parsed.filled and not isinstance(parsed.scores, Unscored))
            items.append(Item(str(index), required, count_length(output), verdict))
        scores = score_items(items)
        flat = {
            "s_l": scores.s_l,
            "s_q": scores.s_q,
            "s": scores.s,
            "n_items": scores.n_items,
            "n_judged": scores.n_judged,
            "n_scored": scores.n_scored,
            "n_unscored": scores.n_unscored,
            "n_filled": filled,
        }
        flat.update({name.lower().replace(" ", "_"): value for name, value in scores.dimensions.items()})
        for bucket, key in BUCKET_KEYS.items():
            part = scores.buckets.get(bucket)
            flat[f"s_l_{key}"] = part.s_l if part else None
            flat[f"n_{key}"] = part.n_items if part else 0
        return flat


def judge_reply(completion: object, index: int) -> str | None:
    """Item `index`'s judge reply: a string, or None where the item was not judged."""
    if completion is not None and not isinstance(completion, str):
        raise ValueError(
            f"judge_completions[{index}]: expected the judge's reply (a string) or None, got {shown(completion)}"
        )
    return completion
