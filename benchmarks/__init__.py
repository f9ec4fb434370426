"""Side-by-side benchmarks. Each module prints its figures and ratios against a peer or
the physical limit measured in the same run: ``python -m benchmarks.<name>``."""
