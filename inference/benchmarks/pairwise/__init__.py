"""The pairwise benchmarks (hellobench-pairwise, tencentllmeval) and what they share: the baseline (`baseline`), the
judge calls of one item in either mode (`calls`), the figures (`scores`) and the benchmark base class (`common`)."""
