"""longform_eval.spaces"""
