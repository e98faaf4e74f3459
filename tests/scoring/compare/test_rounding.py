"""The digits a number states and how two numbers agree as rounded (:mod:`evalscope_phys.scoring.compare.rounding`)."""
from __future__ import annotations

from decimal import Decimal

import pytest

from evalscope_phys.scoring.compare.rounding import agreement, round_to, stated_number


@pytest.mark.parametrize('text, figures, point', [
    ('1.48\\times10^{4}', 3, True), ('1.5e4', 2, True), ('0.0111', 3, True), ('8571', 4, False),
    ('2000', 1, False), ('1.50', 3, True), ('-6.8 \\times 10^{19}', 2, True), ('7\\times10^{19}', 1, False),
])
def test_stated_figures(text, figures, point):
    _, got_figures, got_point = stated_number(text)
    assert (got_figures, got_point) == (figures, point)


@pytest.mark.parametrize('text', ['x', '1/2', '\\frac{1}{2}', '1.5 x', '3\\pi', '10^{9}', ''])
def test_only_plain_numbers_are_read(text):
    assert stated_number(text) is None


def test_round_half_up_to_figures():
    assert round_to(Decimal('1.45e4'), 2) == Decimal('1.5e4')
    assert round_to(Decimal('0.01114'), 2) == Decimal('0.011')


@pytest.mark.parametrize('reference, answer, value, expected', [
    ('1.5\\times10^4', '1.48\\times10^4', 1.48e4, 'strict'),
    ('8.6\\times10^3', '8571', 8571, 'strict'),
    ('0.0111', '0.011', 0.011, 'lenient'),
    ('448', '447.6', 447.6, 'lenient'),  # an integer reference: its last digit may be a placeholder
    ('1.5\\times10^4', '1.4\\times10^4', 1.4e4, None),
    ('0.0111', '0.012', 0.012, None),
    ('3', '2.6', 2.6, None),
    ('1.5', '-1.48', -1.48, None),
])
def test_agreement(reference, answer, value, expected):
    assert agreement(reference, answer, value) == expected


@pytest.mark.parametrize('reference, answer, value, kwargs, expected', [
    ('0.702', '\\frac{512}{729}', 512 / 729, {'answer_exact': True}, 'strict'),
    ('0.703', '\\frac{512}{729}', 512 / 729, {'answer_exact': True}, None),  # off in the last stated digit
    ('0.7', '\\frac{512}{729}', 512 / 729, {'answer_exact': True}, None),  # one figure: never rounded
    ('448', '447.6', 447.6, {'measured': True}, 'strict'),  # with a unit: a measurement
    ('448', '447.4', 447.4, {'measured': True}, None),
    ('x', '0.14', 0.14, {'exact_reference': Decimal(1) / 7}, 'lenient'),
    ('x', '0.15', 0.15, {'exact_reference': Decimal(1) / 7}, None),
    ('x', '0.1', 0.1, {'exact_reference': Decimal(1) / 7}, None),  # one figure rounds nothing exact
])
def test_agreement_of_exact_values_and_measurements(reference, answer, value, kwargs, expected):
    assert agreement(reference, answer, value, **kwargs) == expected
