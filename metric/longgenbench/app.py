import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("longgenbench.py")
launch_gradio_widget(module)
