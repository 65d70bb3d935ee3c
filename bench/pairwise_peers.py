"""Our pairwise statistics against the peers' own code, in one run, on the PandaLM human battles.

Battles: the 999 PandaLM test items in file order, model A/B from `cmp_key`, outcome = the majority of the three
human labels (0 tie -> "equally good", a draw everywhere). Compared:

- Elo, battles in file order: `elo_ratings(rounds=1, shuffle=False)` vs FastChat's `compute_elo` (fschat 0.2.36,
  K=4, SCALE=400, BASE=10, INIT_RATING=1000).
- Bradley-Terry: `bradley_terry` vs arena-hard-auto's `compute_mle_elo` (utils_math.py at 0489bf3; unpenalised
  sklearn logistic regression, tol 1e-8) and vs fschat 0.2.36's `compute_elo_mle_with_tie` (sklearn's default L2
  penalty, C=1: a different estimator, shown for the record).
- LC win rate, every model against every baseline: `length_controlled_win_rates` vs alpaca-eval 0.6.6's
  `get_length_controlled_winrate`, without difficulty (its GLM `length_controlled_minimal`) and with the
  difficulty from our `instruction_difficulty` given to both sides (GLM `length_controlled_noreg`; alpaca-eval
  reads difficulty from a `df_gamed.csv` it downloads: `hf_hub_download` is pointed at a local file holding ours).
  Lengths: characters of each answer, as alpaca-eval's `str.len()`.
- Style control: `style_controlled_bradley_terry(penalty_c=1.0)` vs arena-hard-auto's `construct_style_matrices`
  + `fit_bt` (same style counts in; a covariate that never varies is left out of the peer's call, since it
  divides by its zero spread), both centred at 1000; and our `style_features` markdown counts vs its
  `count_markdown_elements` on every answer.

The peers are bench-only. `pip install --dry-run fschat==0.2.36 alpaca-eval==0.6.6` in the project venv would
upgrade or downgrade nothing (torch, transformers, datasets untouched) but add 16 packages; they go into their own
venv anyway, so that the project venv (shared, and what the tests see) stays as the package declares it:

    python3 -m venv /tmp/peers
    /tmp/peers/bin/pip install numpy pandas scikit-learn scipy
    /tmp/peers/bin/pip install --no-deps fschat==0.2.36 alpaca-eval==0.6.6
    /tmp/peers/bin/pip install pytz plotly tqdm requests datasets huggingface_hub patsy python-dotenv pyyaml \
        fire "setuptools<81" tiktoken
    git clone https://github.com/lmarena/arena-hard-auto /tmp/arena-hard-auto
    git -C /tmp/arena-hard-auto checkout 0489bf384abd010906014dec7b903f7c438eabba

Run (ours in this process, the peers' side in a subprocess of --peer-python):

    python bench/pairwise_peers.py --peer-python /tmp/peers/bin/python --arena-hard /tmp/arena-hard-auto
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ANNOTATORS = ("annotator1", "annotator2", "annotator3")
WINNER = {"A": "model_a", "B": "model_b", "equally_good": "tie", "equally_bad": "tie (bothbad)"}
STYLE = ("tokens", "headers", "lists", "bold")
ARENA_STYLE = {
    "tokens": "sum_assistant_{}_tokens",
    "headers": "header_count_{}",
    "lists": "list_count_{}",
    "bold": "bold_count_{}",
}


def load_pandalm(folder: Path) -> list[dict]:
    """One record per item: models, human-majority label, both answers, instruction id (sorted texts)."""
    from longform_eval.metric.pairwise import as_outcome, majority

    labels = {"1": "A", "2": "B", "0": "equally_good"}
    items = json.loads((folder / "testset-v1.json").read_text())
    texts = sorted({x["instruction"] + "\n" + x["input"] for x in items})
    instruction = {text: i for i, text in enumerate(texts)}
    records = []
    for x in items:
        model_a, model_b = x["cmp_key"].split("_")
        label = majority([labels[str(x[a])] for a in ANNOTATORS])
        records.append(
            {
                "model_a": model_a,
                "model_b": model_b,
                "outcome": as_outcome(label).value,
                # six answers are JSON booleans (the text "True"); str() gives the text back
                "text_a": x["response1"] if isinstance(x["response1"], str) else str(x["response1"]),
                "text_b": x["response2"] if isinstance(x["response2"], str) else str(x["response2"]),
                "instruction": instruction[x["instruction"] + "\n" + x["input"]],
            }
        )
    return records


# Our side (this process)


def ours(records: list[dict]) -> dict:
    from longform_eval.metric.pairwise import (
        Battle,
        bradley_terry,
        elo_ratings,
        instruction_difficulty,
        length_controlled_win_rates,
        style_controlled_bradley_terry,
        style_features,
    )

    battles = [Battle(r["model_a"], r["model_b"], r["outcome"]) for r in records]
    lengths = [(len(r["text_a"]), len(r["text_b"])) for r in records]
    instructions = [r["instruction"] for r in records]
    models = sorted({r["model_a"] for r in records} | {r["model_b"] for r in records})
    difficulty, lc = {}, []
    for baseline in models:
        fitted = instruction_difficulty(battles, lengths, baseline, instructions)
        difficulty[baseline] = {str(k): v for k, v in fitted.items()}
        per_battle = [fitted.get(i, 0.0) for i in instructions]
        plain = length_controlled_win_rates(battles, lengths, baseline)
        with_difficulty = length_controlled_win_rates(battles, lengths, baseline, per_battle)
        for model, r in plain.items():
            controlled = with_difficulty[model].length_controlled
            lc.append([model, baseline, r.n, 100 * r.win_rate, 100 * r.length_controlled, 100 * controlled])
    styles = [(style_features(r["text_a"]), style_features(r["text_b"])) for r in records]
    style = style_controlled_bradley_terry(battles, styles, bootstrap=0, penalty_c=1.0)
    return {
        "elo": elo_ratings(battles, rounds=1, shuffle=False),
        "bt": bradley_terry(battles, bootstrap=0).ratings,
        "lc": lc,
        "difficulty": difficulty,
        "counts": [[[getattr(s, name) for name in STYLE] for s in pair] for pair in styles],
        "style_ratings": style.ratings,
        "style_coefficients": style.style,
    }


def exact_bt(records: list[dict]) -> dict[str, float]:
    """Reference: the BT maximum-likelihood ratings solved to a gradient of 1e-12 (scipy BFGS), mean 1000."""
    import numpy as np
    from scipy.optimize import minimize

    models = sorted({r["model_a"] for r in records} | {r["model_b"] for r in records})
    index = {m: i for i, m in enumerate(models)}
    points = np.zeros((len(models), len(models)))
    for r in records:
        s = {"A": 1.0, "B": 0.0}.get(r["outcome"], 0.5)
        points[index[r["model_a"]], index[r["model_b"]]] += s
        points[index[r["model_b"]], index[r["model_a"]]] += 1 - s

    def negative_log_likelihood(theta: np.ndarray) -> tuple[float, np.ndarray]:
        log_p = -np.logaddexp(0.0, -(theta[:, None] - theta[None, :]))
        pull = points * (1 - np.exp(log_p))
        return -float(np.sum(points * log_p)), -(pull.sum(axis=1) - pull.sum(axis=0))

    theta = minimize(negative_log_likelihood, np.zeros(len(models)), jac=True, method="BFGS", options={"gtol": 1e-12}).x
    ratings = 1000 + 400 / np.log(10) * (theta - theta.mean())
    return dict(zip(models, ratings.tolist(), strict=True))


# Peers' side (run with --as-peer under the peers' interpreter; stdlib + peer packages only)


def peer_main(arena_hard: Path) -> None:
    job = json.load(sys.stdin)
    with contextlib.redirect_stdout(sys.stderr):
        result = peers(job, arena_hard)
    json.dump(result, sys.stdout)


def peers(job: dict, arena_hard: Path) -> dict:
    import pandas as pd

    records = job["records"]
    frame = pd.DataFrame(
        {
            "model_a": [r["model_a"] for r in records],
            "model_b": [r["model_b"] for r in records],
            "winner": [WINNER[r["outcome"]] for r in records],
        }
    )
    elo_analysis = import_fastchat_elo_analysis()
    sys.path.insert(0, str(arena_hard))
    import add_markdown_info
    import utils_math

    return {
        "elo": elo_analysis.compute_elo(frame),
        "bt": utils_math.compute_mle_elo(frame).to_dict(),
        "bt_fschat": elo_analysis.compute_elo_mle_with_tie(frame).to_dict(),
        "lc": peer_lc(records, job["difficulty"]),
        "counts": [[arena_counts(add_markdown_info, r[side]) for side in ("text_a", "text_b")] for r in records],
        **peer_style(frame, job["counts"], utils_math),
    }


def import_fastchat_elo_analysis():
    """fastchat/model/__init__.py imports the model adapters (torch, transformers); elo_analysis needs only
    fastchat.model.model_registry, so the package is registered without running that __init__."""
    import importlib.util
    import types

    package = types.ModuleType("fastchat.model")
    package.__path__ = [str(Path(importlib.util.find_spec("fastchat").origin).parent / "model")]
    sys.modules["fastchat.model"] = package
    from fastchat.serve.monitor import elo_analysis

    return elo_analysis


def peer_lc(records: list[dict], difficulty: dict[str, dict[str, float]]) -> list[list]:
    import pandas as pd
    from alpaca_eval.metrics import glm_winrate

    models = sorted({r["model_a"] for r in records} | {r["model_b"] for r in records})
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for baseline in models:
            gamed = Path(folder) / f"df_gamed_{baseline}.csv"
            n_instructions = 1 + max(r["instruction"] for r in records)
            values = [difficulty[baseline].get(str(i), 0.0) for i in range(n_instructions)]
            columns = {"index": range(n_instructions), "instruction_difficulty": values}
            pd.DataFrame(columns | {"model": "none", "not_gamed_baseline": True}).to_csv(gamed, index=False)
            glm_winrate.hf_hub_download = lambda path=gamed, **_: str(path)
            for model in models:
                if model == baseline:
                    continue
                annotations = alpaca_annotations(records, model, baseline)
                if annotations.empty:
                    continue
                plain = lc_of(glm_winrate, annotations, "length_controlled_minimal")
                noreg = lc_of(glm_winrate, annotations, "length_controlled_noreg")
                lc = [plain["win_rate"], plain["length_controlled_winrate"], noreg["length_controlled_winrate"]]
                rows.append([model, baseline, len(annotations), *lc])
    return rows


def alpaca_annotations(records: list[dict], model: str, baseline: str):
    """alpaca-eval's frame: output_1 / generator_1 the baseline, preference 1 baseline, 2 model, 1.5 draw."""
    import pandas as pd

    score_a = {"A": 1.0, "B": 0.0, "equally_good": 0.5, "equally_bad": 0.5}
    rows = []
    for r in records:
        if {r["model_a"], r["model_b"]} != {model, baseline}:
            continue
        model_is_a = r["model_a"] == model
        s = score_a[r["outcome"]] if model_is_a else 1 - score_a[r["outcome"]]
        model_text, baseline_text = (r["text_a"], r["text_b"]) if model_is_a else (r["text_b"], r["text_a"])
        rows.append(
            {
                "preference": 1 + s,
                "index": r["instruction"],
                "generator_1": baseline,
                "generator_2": model,
                "output_1": baseline_text,
                "output_2": model_text,
            }
        )
    return pd.DataFrame(rows)


def lc_of(glm_winrate, annotations, glm_name: str) -> dict:
    return glm_winrate.get_length_controlled_winrate(
        annotations, glm_name=glm_name, save_weights_dir=None, is_warn_extreme_changes=False
    )


def arena_counts(add_markdown_info, text: str) -> list[int]:
    import re

    prose = add_markdown_info.remove_pattern(text, re.compile("```([^`]*)```"))
    counts = add_markdown_info.count_markdown_elements(prose, suffix="")
    return [sum(counts[name].values()) for name in ("header_count", "list_count", "bold_count")]


def peer_style(frame, counts: list, utils_math) -> dict:
    """arena-hard-auto's style-controlled BT on our counts, leaving out covariates with no spread."""
    import numpy as np

    table = np.array(counts, dtype=float)  # battles x (A, B) x style
    differences = (table[:, 0] - table[:, 1]) / (table[:, 0] + table[:, 1] + 1)
    varying = [name for k, name in enumerate(STYLE) if differences[:, k].std() > 0]
    frame = frame.copy()
    frame["conv_metadata"] = [
        {ARENA_STYLE[name].format(side): int(pair[j][k]) for k, name in enumerate(STYLE) for j, side in enumerate("ab")}
        for pair in counts
    ]
    elements = [ARENA_STYLE[name].format("a") for name in varying] + [ARENA_STYLE[n].format("b") for n in varying]
    x, y, models = utils_math.construct_style_matrices(frame, apply_ratio=[1] * len(varying), style_elements=elements)
    ratings, coefficients = utils_math.fit_bt(x, y, models, baseline_model=models.index[0])
    centred = ratings - ratings.mean() + 1000
    # Diagnostic, not the peer's code: fit_bt's regression (C=1) on the same matrices, stopped at tol 1e-10
    # instead of sklearn's default 1e-4.
    from sklearn.linear_model import LogisticRegression

    tight = LogisticRegression(fit_intercept=False, tol=1e-10, max_iter=10_000).fit(x, y).coef_[0][: len(models)]
    tight = 1000 + 400 * (tight - tight.mean())
    return {
        "style_ratings": centred.to_dict(),
        "style_coefficients": dict(zip(varying, coefficients.tolist(), strict=True)),
        "style_ratings_tol_1e-10": dict(zip(models.index, tight.tolist(), strict=True)),
    }


# Report


def table(title: str, header: list[str], rows: list[list], note: str = "") -> None:
    print(f"\n{title}" + (f"\n{note}" if note else ""))
    cells = [header] + [[f"{v:.6f}" if isinstance(v, float) else str(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for row in cells:
        print("  ".join(value.rjust(width) for value, width in zip(row, widths, strict=True)))


def compare_ratings(title: str, ours: dict, peer: dict, note: str = "") -> float:
    rows = [[m, ours[m], peer[m], abs(ours[m] - peer[m])] for m in sorted(ours)]
    table(title, ["model", "ours", "peer", "|diff|"], rows, note)
    worst = max(row[3] for row in rows)
    print(f"max |diff| = {worst:.3g}")
    return worst


def compare_lc(ours: list, peer: list) -> None:
    peer_by = {(r[0], r[1]): r for r in peer}
    rows = []
    for model, baseline, n, win, lc, lc_difficulty in ours:
        p = peer_by[(model, baseline)]
        rows.append([model, baseline, n, win, p[3], lc, p[4], lc_difficulty, p[5]])
    table(
        "LC win rate (percent) vs alpaca-eval 0.6.6 get_length_controlled_winrate",
        ["model", "baseline", "n", "WR ours", "WR peer", "LC ours", "LC peer", "LC+diff ours", "LC+diff peer"],
        rows,
        "LC: GLM length_controlled_minimal (no difficulty); LC+diff: length_controlled_noreg with our difficulty",
    )
    for label, i in (("win rate", 3), ("LC", 5), ("LC+difficulty", 7)):
        print(f"max |diff| {label} = {max(abs(row[i] - row[i + 1]) for row in rows):.3g} points")


def report(mine: dict, theirs: dict) -> None:
    compare_ratings("Elo, file order, vs fschat 0.2.36 compute_elo", mine["elo"], theirs["elo"])
    compare_ratings("Bradley-Terry vs arena-hard-auto compute_mle_elo", mine["bt"], theirs["bt"])
    exact = mine["bt_exact"]
    gaps = f"ours {max_gap(mine['bt'], exact):.3g}, arena-hard-auto {max_gap(theirs['bt'], exact):.3g}"
    print(f"  max |diff| to the exact MLE (BFGS to a gradient of 1e-12): {gaps}")
    compare_ratings(
        "Bradley-Terry vs fschat 0.2.36 compute_elo_mle_with_tie",
        mine["bt"],
        theirs["bt_fschat"],
        "(the peer keeps sklearn's default L2 penalty, C=1; ours is the unpenalised MLE)",
    )
    compare_lc(mine["lc"], theirs["lc"])
    compare_ratings(
        "Style-controlled BT (penalty_c=1.0) vs arena-hard-auto construct_style_matrices + fit_bt",
        mine["style_ratings"],
        theirs["style_ratings"],
        f"style coefficients ours {rounded(mine['style_coefficients'])} peer {rounded(theirs['style_coefficients'])}",
    )
    tight = theirs["style_ratings_tol_1e-10"]
    gap = max_gap(mine["style_ratings"], tight)
    print(f"  max |diff| to the peer's matrices refitted at tol 1e-10 (fit_bt: sklearn's default 1e-4): {gap:.3g}")
    markdown = [pair_ours[1:] for pair in mine["counts"] for pair_ours in pair]
    arena = [counts for pair in theirs["counts"] for counts in pair]
    differ = sum(a != b for a, b in zip(markdown, arena, strict=True))
    print(f"\nmarkdown counts (headers, lists, bold) differing from arena-hard-auto: {differ} of {len(arena)} answers")


def max_gap(first: dict[str, float], second: dict[str, float]) -> float:
    return max(abs(first[m] - second[m]) for m in first)


def rounded(values: dict) -> dict:
    return {k: round(v, 6) for k, v in values.items()}


def run_peers(peer_python: str, arena_hard: Path, job: dict) -> dict:
    completed = subprocess.run(
        [peer_python, __file__, "--as-peer", "--arena-hard", str(arena_hard)],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise SystemExit(f"peer side failed:\n{completed.stderr[-4000:]}")
    return json.loads(completed.stdout)


def versions(python: str) -> str:
    code = "import numpy, pandas, sklearn, scipy; print(numpy.__version__, pandas.__version__, sklearn.__version__, "
    code += "scipy.__version__)"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return f"numpy {out[0]}, pandas {out[1]}, scikit-learn {out[2]}, scipy {out[3]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-python", default="/tmp/peers/bin/python")
    parser.add_argument("--arena-hard", type=Path, default=Path("/tmp/arena-hard-auto"))
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/pandalm")
    parser.add_argument("--as-peer", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.as_peer:
        peer_main(args.arena_hard)
        return
    records = load_pandalm(args.data)
    mine = ours(records) | {"bt_exact": exact_bt(records)}
    theirs = run_peers(args.peer_python, args.arena_hard, {"records": records, **mine})
    print(f"PandaLM human-majority battles: {len(records)}; Python {platform.python_version()}")
    print(f"ours:  {versions(sys.executable)}\npeers: {versions(args.peer_python)}")
    report(mine, theirs)


if __name__ == "__main__":
    main()
