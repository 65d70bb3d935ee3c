"""What a run folder shows a reader: report.md, plots, leaderboards, cross-run comparisons, published context and
power plans. Nothing here calls a model."""
