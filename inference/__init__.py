"""longform_eval.inference"""
