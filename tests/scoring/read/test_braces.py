"""Unbalanced braces repaired only where the missing one can go in one place (``braces``)."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring.read.braces import repair_braces


@pytest.mark.parametrize('text, repaired', [
    (r'\frac{a}{b', r'\frac{a}{b}'),
    (r'x^{2', r'x^{2}'),
    (r'x^{-1', r'x^{-1}'),
    (r'\frac{1}{\hbar', r'\frac{1}{\hbar}'),
    (r'5\,\text{m/s', r'5\,\text{m/s}'),
])
def test_one_place_for_the_brace(text, repaired):
    assert repair_braces(text) == repaired


@pytest.mark.parametrize('text', [
    r'\frac{a}{b+c',      # after b or after c
    r'\sqrt{2gh',         # after 2, g or h
    r'\frac{a}{b}}',      # one too many
    r'\frac{{a}{b',       # two missing
    r'\{a',               # an escaped brace is no group
    r'\frac{a}{b}',       # balanced: unchanged
    r'x^{',               # nothing to close around
])
def test_everything_else_is_left_as_written(text):
    assert repair_braces(text) == text
