"""The HelloEval Space: the metric's compute as a page and as the API endpoint `/compute`."""

from pathlib import Path

import evaluate

from longform_eval.metric.space_app import build_app

HERE = Path(__file__).resolve().parent
demo = build_app(evaluate.load(str(HERE / "helloeval.py")), card=HERE / "README.md")

if __name__ == "__main__":
    demo.launch()
