from __future__ import annotations

import dataclasses
import re

import evaluate
import pytest

from longform_eval.dataset_builder.longgenbench import read_setting
from longform_eval.metric import Unscored
from longform_eval.metric.longgenbench import (
    completion_rate,
    full_output,
    item_result,
    judge_prompt,
    match_checks,
    parse_yes_no,
    score_items,
    split_subtasks,
)

from .conftest import REPO, run_module_doctests


@pytest.fixture(scope="module")
def released(shared_data):
    source = shared_data / "longgenbench"
    return {setting: read_setting(source, setting) for setting in ("short", "long")}


def first(items, subtask_type):
    return next(item for item in items if item["subtask_type"] == subtask_type)


def write_output(item, positions, mention=lambda position, descriptions: descriptions):
    """An output whose sub-task `p` names the descriptions of the checks at `p` (as a model would)."""
    by_position = {}
    for check in item["checks"]:
        by_position.setdefault(check["subtask"], []).append(check["description"])
    parts = [
        f"{item['subtask_type']} {p}: " + "; ".join(mention(p, by_position.get(p, ["nothing special"])))
        for p in positions
    ]
    return "#*# " + " #*# ".join(parts)


def fake_judge(block, description):
    """Stands for the judge model: yes when the block names the description."""
    return "Yes" if description in block else "No"


def run(item, output, rule="paper"):
    matched = match_checks(item["checks"], split_subtasks(output, item["subtask_type"]))
    verdicts = [None if m.block is None else parse_yes_no(fake_judge(m.block, m.description), rule) for m in matched]
    return item_result(item, output, verdicts)


def test_complete_output_scores_100(released):
    item = first(released["short"], "Floor")
    result = score_items([run(item, write_output(item, range(1, 101)))])
    assert (result.cr, result.stic1, result.stic2, result.wavg) == (100.0, 100.0, 100.0, 100.0)
    assert result.n_checks == len(item["checks"])


def test_missing_subtasks_lower_cr_and_stic2_but_not_stic1(released):
    item = first(released["short"], "Floor")
    result = score_items([run(item, write_output(item, range(1, 51)))])
    present = sum(1 for c in item["checks"] if c["subtask"] <= 50)
    assert result.cr == 50.0
    assert result.n_judged == present and result.n_yes == present
    assert result.stic1 == 100.0
    assert result.stic2 == pytest.approx(100 * present / len(item["checks"]))
    assert result.wavg == pytest.approx(50 * present / len(item["checks"]))


def test_duplicated_headers_first_block_wins(released):
    item = first(released["short"], "Week")
    target = item["checks"][0]["subtask"]
    output = write_output(item, range(1, 53))
    output = output.replace(f"#*# Week {target}:", f"#*# Week {target}: an uneventful week #*# Week {target}:", 1)
    result = score_items([run(item, output)])
    at_target = sum(1 for c in item["checks"] if c["subtask"] == target)
    assert result.cr == 100.0
    assert result.n_judged == len(item["checks"])
    assert result.n_yes == len(item["checks"]) - at_target


def test_out_of_range_ids_do_not_count_for_cr_but_their_checks_are_judged(released):
    menu = [i for i in released["short"] if any(c["subtask"] > i["num_subtasks"] for c in i["checks"])]
    assert len(menu) >= 1  # the released week-53 quirk
    item = menu[0]
    assert item["subtask_type"] == "Menu Week"
    without_53 = score_items([run(item, write_output(item, range(1, 53)))])
    with_53 = score_items([run(item, write_output(item, range(1, 54)))])
    assert without_53.cr == with_53.cr == 100.0
    assert with_53.n_judged == without_53.n_judged + 1
    assert without_53.stic2 < 100.0 and with_53.stic2 == 100.0


def test_zero_padded_keys_match_their_subtask(released):
    item = next(i for i in released["long"] if any(c["key"] != str(c["subtask"]) for c in i["checks"]))
    padded = next(c for c in item["checks"] if c["key"] != str(c["subtask"]))
    output = write_output(item, [padded["subtask"]])
    blocks = split_subtasks(output, item["subtask_type"])
    matched = [m for m in match_checks(item["checks"], blocks) if m.block is not None]
    assert padded["subtask"] in {m.subtask for m in matched}
    result = score_items([run(item, output)])
    assert result.cr == pytest.approx(100 / item["num_subtasks"])
    assert result.stic1 == 100.0


def test_split_uses_the_first_header_of_each_block_case_sensitively():
    output = "#*# Week 1: see Week 9 #*# week 2: lower case #*# Menu Week 3: not a Week 4 header #*# Week 5"
    assert sorted(split_subtasks(output, "Week")) == [1, 3, 5]
    assert split_subtasks(output, "Week")[3].startswith(" Menu Week 3")
    assert sorted(split_subtasks(output, "Menu Week")) == [3]


def test_full_output_prepends_the_prefix(released):
    item = first(released["short"], "Week")
    output = full_output(item["prefix"], "\nA quiet start.\n#*# Week 2 (January 8th - January 14th): more")
    assert sorted(split_subtasks(output, "Week")) == [1, 2]


def test_judge_prompt_is_the_papers():
    assert judge_prompt("#*# Floor 3: a gym", "gym") == (
        "Context: #*# Floor 3: a gym### Instruction: Does this context include the gym? "
        "Please answer with 'yes' or 'no' only."
    )


@pytest.mark.parametrize(
    "completion,paper,strict",
    [
        ("Yes", True, True),
        ("**No.**", False, False),
        ("  yes, it does", True, True),
        ("No, but yes in spirit", True, False),
        ("The eyes of the context", True, None),
        ("I cannot tell", False, None),
        ("", False, None),
    ],
)
def test_paper_and_strict_verdict_rules(completion, paper, strict):
    assert parse_yes_no(completion, "paper") is paper
    result = parse_yes_no(completion, "strict")
    if strict is None:
        assert isinstance(result, Unscored)
    else:
        assert result is strict


def test_breakdown_per_type_scenario_and_position(released):
    items = [first(released["short"], t) for t in ("Week", "Menu Week", "Floor", "Block")]
    results = [run(item, write_output(item, range(1, item["num_subtasks"] // 2 + 1))) for item in items]
    scores = score_items(results, position_bins=2)
    assert set(scores.by_type) == {"SI", "RI", "PI"}
    assert set(scores.by_scenario) == {"diary", "menu", "skyscraper", "urban_planning"}
    assert scores.by_scenario["skyscraper"].cr == 50.0
    first_half, second_half = scores.by_position
    assert first_half["stic2"] == 100.0 and second_half["stic2"] == 0.0
    assert sum(f.n_checks for f in scores.by_type.values()) == scores.n_checks


def test_len_counts_only_long_outputs_with_many_blocks(released):
    item = first(released["short"], "Floor")
    short = run(item, write_output(item, range(1, 101)))
    long_output = write_output(item, range(1, 101), mention=lambda p, d: d + ["lorem"] * 25)
    long = run(item, long_output)
    assert short.word_count <= 2000 < long.word_count
    assert score_items([short, long]).length == long.word_count
    assert score_items([short]).length is None


def test_evaluate_module_matches_the_package(released):
    item = first(released["short"], "Block")
    output = write_output(item, range(1, 61))
    matched = match_checks(item["checks"], split_subtasks(output, item["subtask_type"]))
    completions = [None if m.block is None else fake_judge(m.block, m.description) for m in matched]
    reference = {k: item[k] for k in ("id", "scenario", "subtask_type", "num_subtasks")}
    reference["checks"] = [{k: c[k] for k in ("kind", "subtask", "description")} for c in item["checks"]]
    result = evaluate.load(str(REPO / "metric/longgenbench")).compute(
        predictions=[output], references=[reference], judge_completions=[completions]
    )
    expected = score_items([run(item, output)])
    assert result["cr"] == expected.cr == 60.0
    assert result["stic2"] == pytest.approx(expected.stic2)
    assert result["cr_urban_planning"] == 60.0


def test_metric_doctests_run(monkeypatch):
    results = run_module_doctests(REPO / "metric/longgenbench/longgenbench.py", monkeypatch)
    assert results.failed == 0 and results.attempted >= 2


DEMO_ITEM = {
    "id": "demo",
    "scenario": "skyscraper",
    "subtask_type": "Floor",
    "num_subtasks": 4,
    "checks": [
        {"kind": "single", "subtask": 2, "description": "gym"},
        {"kind": "range", "subtask": 3, "description": "hotel"},
        {"kind": "periodic", "subtask": 4, "description": "hotel"},
    ],
}
DEMO_OUTPUT = "#*# Floor 1: lobby #*# Floor 2: a gym #*# Floor 3: hotel rooms"


@pytest.fixture(scope="module")
def longgenbench_metric():
    return evaluate.load(str(REPO / "metric/longgenbench"))


@pytest.mark.parametrize("size", [0, -4])
def test_metric_rejects_a_non_positive_number_of_subtasks(longgenbench_metric, size):
    references = [DEMO_ITEM, {**DEMO_ITEM, "num_subtasks": size}]
    message = f"references[1]['num_subtasks']: expected a positive integer, got {size}"
    with pytest.raises(ValueError, match=re.escape(message)):
        longgenbench_metric.compute(predictions=[DEMO_OUTPUT] * 2, references=references)


def test_metric_rejects_unknown_check_kinds(longgenbench_metric):
    checks = [*DEMO_ITEM["checks"][:2], {"kind": "sometimes", "subtask": 4, "description": "hotel"}]
    message = "references[0]['checks'][2]['kind']: unknown check kind 'sometimes'; use one of single, range, periodic"
    with pytest.raises(ValueError, match=re.escape(message)):
        longgenbench_metric.compute(predictions=[DEMO_OUTPUT], references=[{**DEMO_ITEM, "checks": checks}])


def test_metric_rejects_judge_completions_that_do_not_match_the_checks(longgenbench_metric):
    with pytest.raises(ValueError, match=re.escape("judge_completions[0]: 2 completions for 3 checks")):
        longgenbench_metric.compute(
            predictions=[DEMO_OUTPUT], references=[DEMO_ITEM], judge_completions=[["yes", "no"]]
        )


@pytest.mark.parametrize(
    ("judge_completions", "message"),
    [
        (["Yes"], "judge_completions[0]: expected a list of 3 completions (one per check), got a str"),
        ("Yes", "judge_completions: expected a list with one list of completions per item, got a str"),
        ([[1, "no", None]], "judge_completions[0][0]: expected a completion (a string) or None, got 1"),
        ([None], "judge_completions[0]: expected a list of 3 completions (one per check), got None"),
    ],
)
def test_metric_refuses_judge_completions_of_the_wrong_shape_rather_than_reading_letters(
    longgenbench_metric, judge_completions, message
):
    """Issue 37: `["Yes"]` (one string where the item's list goes) was read letter by letter as 3 verdicts."""
    with pytest.raises(ValueError, match=re.escape(message)):
        longgenbench_metric.compute(
            predictions=[DEMO_OUTPUT], references=[DEMO_ITEM], judge_completions=judge_completions
        )


@pytest.mark.parametrize("field", ["scenario", "id", "checks"])
def test_metric_names_a_missing_reference_field_in_a_value_error(longgenbench_metric, field):
    """Issue 37: evaluate's own encoding raised `KeyError: 'scenario'`; the docstring promises a ValueError."""
    item = {key: value for key, value in DEMO_ITEM.items() if key != field}
    with pytest.raises(ValueError, match=re.escape(f"references[0][{field!r}]: missing")):
        longgenbench_metric.compute(predictions=[DEMO_OUTPUT], references=[item])


def test_metric_rejects_unknown_verdict_rules_before_judging(longgenbench_metric):
    with pytest.raises(ValueError, match="unknown verdict_rule 'lenient'; use one of paper, strict"):
        longgenbench_metric.compute(predictions=[DEMO_OUTPUT], references=[DEMO_ITEM], verdict_rule="lenient")


@pytest.mark.parametrize("size", [0, -4, 2.5, True, "4", None])
def test_item_result_rejects_bad_numbers_of_subtasks(size):
    message = f"item 'demo'['num_subtasks']: expected a positive integer, got {size!r}"
    with pytest.raises(ValueError, match=re.escape(message)):
        item_result({**DEMO_ITEM, "num_subtasks": size}, DEMO_OUTPUT, [None] * 3)


@pytest.mark.parametrize(
    "check,field",
    [
        ({"kind": "SI", "subtask": 2, "description": "gym"}, "kind"),
        ({"subtask": 2, "description": "gym"}, "kind"),
        ({"kind": "single", "subtask": 0, "description": "gym"}, "subtask"),
        ({"kind": "single", "subtask": "two", "description": "gym"}, "subtask"),
        ({"kind": "single", "subtask": 2, "description": None}, "description"),
    ],
)
def test_item_result_rejects_bad_checks(check, field):
    with pytest.raises(ValueError, match=re.escape(f"item 'demo'['checks'][0][{field!r}]")):
        item_result({**DEMO_ITEM, "checks": [check]}, DEMO_OUTPUT, [None])


def test_item_result_rejects_verdicts_that_are_not_booleans():
    with pytest.raises(ValueError, match=re.escape("item 'demo': verdicts[1]: expected True, False, None or Unscored")):
        item_result(DEMO_ITEM, DEMO_OUTPUT, [True, "no", None])
    with pytest.raises(ValueError, match="item 'demo': 2 verdicts for 3 checks"):
        item_result(DEMO_ITEM, DEMO_OUTPUT, [True, None])


def test_score_items_rejects_unknown_kinds_and_empty_subtask_counts():
    good = item_result(DEMO_ITEM, DEMO_OUTPUT, [True, False, None])
    with pytest.raises(ValueError, match=r"unknown check kinds \['weird'\]; use one of single, range, periodic"):
        score_items([good, dataclasses.replace(good, kinds=("single", "weird", "range"))])
    with pytest.raises(ValueError, match="item 'demo': num_subtasks must be a positive integer, got 0"):
        score_items([dataclasses.replace(good, num_subtasks=0)])
    with pytest.raises(ValueError, match="position_bins must be a positive integer, got 0"):
        score_items([good], position_bins=0)


@pytest.mark.parametrize("size", [0, -4])
def test_completion_rate_rejects_a_non_positive_number_of_subtasks(size):
    with pytest.raises(ValueError, match=f"num_subtasks must be a positive integer, got {size}"):
        completion_rate({1: "Floor 1"}, size)


def test_len_counts_blocks_as_upstream_splits_them_empty_pieces_included():
    from longform_eval.metric.longgenbench.splitting import count_blocks

    assert count_blocks("a #*##*# b") == 3  # upstream: len("a #*##*# b".split("#*#"))
    assert count_blocks("#*# Week 1 #*#") == 3
    assert count_blocks("no separator") == 1
