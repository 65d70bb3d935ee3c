import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("longbench_write.py")
launch_gradio_widget(module)
