"""The unit of the choices a question offers (:mod:`evalscope_phys.scoring.compare.choices`)."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring.compare.choices import is_offered_unit, offered_unit

HALF_LIFE = 'A typical star shines for $10^4$, $10^7$, $10^{10}$, $10^{13}$ years.'


@pytest.mark.parametrize('question, value, unit', [
    (HALF_LIFE, 1e10, 'years'),
    (HALF_LIFE, 1e13, 'years'),
    (HALF_LIFE, 1e8, None),  # not a choice
    ('$$10^7, 10^3, 10^{-1}, 10^{-4} \\text{ watt/cm}^2$$.', 0.1, '\\text{ watt/cm}^2'),
    ('It lives $10^9$ years.', 1e9, None),  # a value, not a list
    ('Choose 2.5 or 3.5 or 4.5 eV.', 3.5, 'eV'),
])
def test_offered_unit(question, value, unit):
    assert offered_unit(question, value) == unit


def test_the_offered_unit_is_compared_as_a_unit():
    assert is_offered_unit(HALF_LIFE, 1e10, '\\text{yr}')
    assert not is_offered_unit(HALF_LIFE, 1e10, 's')
    assert not is_offered_unit('x' * 50_000 + HALF_LIFE, 1e10, 'years')  # beyond the searched length
