"""A third-party longform-eval plug-in: the `toyplug` benchmark (repeat a word; the judge's answer must be the
word asked for) and the `toyecho` backend (answers with the last line of its prompt)."""
