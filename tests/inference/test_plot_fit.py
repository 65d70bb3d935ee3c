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


def test_the_per_task_plot_names_the_model_as_report_md_does(gpt4o_replays, tmp_path, monkeypatch):
    """`--name` titles the per-task plot, as it heads report.md: not the model spec (a replay file's path)."""
    from longform_eval.inference.cli import main
    from longform_eval.inference.report.sections import hellobench as section

    from .conftest import chat_run

    titles = []

    def recorded(path, *args, **kwargs):
        titles.append(kwargs["title"])
        return bar_plot(path, *args, **kwargs)

    monkeypatch.setattr(section, "bar_plot", recorded)
    generations, verdicts = gpt4o_replays
    out = tmp_path / "run"
    assert main(chat_run(2, f"replay:{generations}", f"replay:{verdicts}", str(out), "--name", "Renamed model")) == 0
    assert titles and all(title.startswith("HelloEval score per task: Renamed model") for title in titles), titles
    assert all(str(generations) not in title and "replay:" not in title for title in titles)
    assert "Renamed model" in (out / "report.md").read_text(encoding="utf-8")
