"""The unit of the choices a question offers (:mod:`evalscope_phys.scoring.compare.choices`)."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring.compare.choices import is_offered_unit, offered_unit

HALF_LIFE = 'The half-life of $U^{235}$ is $10^3$, $10^6$, $10^9$, $10^{12}$ years.'


@pytest.mark.parametrize('question, value, unit', [
    (HALF_LIFE, 1e9, 'years'),
    (HALF_LIFE, 1e12, 'years'),
    (HALF_LIFE, 1e7, None),  # not a choice
    ('$$10^6, 10^2, 10^{-1}, 10^{-5} \\text{ watt/cm}^2$$.', 0.1, '\\text{ watt/cm}^2'),
    ('It lives $10^9$ years.', 1e9, None),  # a value, not a list
    ('Choose 2.5 or 3.5 or 4.5 eV.', 3.5, 'eV'),
])
def test_offered_unit(question, value, unit):
    assert offered_unit(question, value) == unit


def test_the_offered_unit_is_compared_as_a_unit():
    assert is_offered_unit(HALF_LIFE, 1e9, '\\text{yr}')
    assert not is_offered_unit(HALF_LIFE, 1e9, 's')
    assert not is_offered_unit('x' * 50_000 + HALF_LIFE, 1e9, 'years')  # beyond the searched length
