"""longform_eval.metric"""
