"""Benchmarks: a hand-written reference for the untap step, board builders, and `run.py`."""
