"""Judging outside a run: a panel of judges over answer pairs (panel.py), the known-verdict self-test (selftest.py)."""
