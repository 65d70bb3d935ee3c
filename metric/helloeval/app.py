"""The HelloEval Space: the metric's compute as a page and as the API endpoint `/compute`, its card's example
computed on the page."""

from pathlib import Path

import evaluate

from longform_eval.metric.helloeval.example import DIGITS, EXAMPLE
from longform_eval.metric.space_app import build_app

HERE = Path(__file__).resolve().parent
demo = build_app(evaluate.load(str(HERE / "helloeval.py")), card=HERE / "README.md", example=EXAMPLE, digits=DIGITS)

if __name__ == "__main__":
    demo.launch()
