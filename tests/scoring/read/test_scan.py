"""The one brace-depth scan (``scan.unclosed_braces``) that ``balanced`` and ``braces`` share."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring.read.braces import close_reference_groups, repair_braces
from evalscope_phys.scoring.read.scan import balanced, unclosed_braces


@pytest.mark.parametrize('text, unclosed', [
    (r'\frac{a}{b}', []),
    (r'\frac{a}{b', [8]),
    (r'\sqrt{\frac{a}{b}', [5]),
    (r'\{x\}', []),  # escaped braces are no group
    (r'\left\{ x', []),
    (r'a\\{b', [3]),  # a line break, then a real group
    (r'x}', None),  # a closing brace too many
])
def test_unclosed_braces(text, unclosed):
    assert unclosed_braces(text) == unclosed
    assert balanced(text) is (unclosed == [])


def test_the_two_repairs_read_the_same_depth():
    assert repair_braces(r'\frac{a}{b') == r'\frac{a}{b}'
    assert close_reference_groups(r'\sqrt{\frac{a}{b') == r'\sqrt{\frac{a}{b}}'
    assert repair_braces(r'\{a') == r'\{a' and close_reference_groups(r'\{a') == r'\{a'
    assert close_reference_groups('x}') == 'x}'
