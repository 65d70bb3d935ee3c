"""Report plots keep every title and tick label whole: nothing drawn touches the PNG's edge."""

from __future__ import annotations

import numpy as np
from PIL import Image

from longform_eval.inference.report.sections.plots import bar_plot, interval_plot

TASKS = ["open_ended_qa", "summarization", "chat", "text_completion", "heuristic_text_generation"]


def ink_at_the_edges(path) -> dict[str, int]:
    """Pixels that are not white on each edge of the image (a cut label or title leaves some)."""
    pixels = np.asarray(Image.open(path).convert("L")) < 250
    return {
        "top": int(pixels[0].sum()),
        "bottom": int(pixels[-1].sum()),
        "left": int(pixels[:, 0].sum()),
        "right": int(pixels[:, -1].sum()),
    }


def test_a_long_title_and_a_long_task_name_stay_inside_the_bar_plot(tmp_path):
    title = (
        "HelloEval score per task: replay:/very/long/path/to/recorded/generations-of-a-model.jsonl (error bars: 95% CI)"
    )
    values = dict(zip(TASKS, (12.0, -40.5, 3.2, -120.0, -300.0), strict=True))
    plot = bar_plot(tmp_path / "score_per_task.png", values, ylabel="task score", title=title)
    assert ink_at_the_edges(plot) == {"top": 0, "bottom": 0, "left": 0, "right": 0}


def test_long_model_names_stay_inside_the_interval_plot(tmp_path):
    ratings = {f"an-organisation/a-model-with-a-long-name-{i}-Instruct-2407": (i, i - 1.0, i + 1.0) for i in range(3)}
    plot = interval_plot(tmp_path / "ratings.png", ratings, xlabel="rating", title="Ratings with 95% intervals")
    assert ink_at_the_edges(plot) == {"top": 0, "bottom": 0, "left": 0, "right": 0}
