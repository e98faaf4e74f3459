"""Strict and lenient verdicts: symbolic, numeric, tolerance, multiple answers."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.equivalence import STRICT_RTOL, compare
from evalscope_phys.scoring.latex import to_sympy


@pytest.mark.parametrize('reference,answer,strict,lenient', [
    (r'\frac{1}{3}', '0.3333333333333333', True, True),
    (r'\pi', '3.14159', True, True),            # relative error 8e-7 < 1e-6
    (r'\pi', '3.14', False, True),              # 5e-4: lenient only
    (r'\pi', '3.0', False, False),
    (r'\frac{\ln 2}{\lambda}', r'\frac{0.693}{\lambda}', False, True),
    (r'\sqrt{\frac{2g}{3R}}', r'\frac{\sqrt{2g}}{\sqrt{3R}}', True, True),
    (r'\sin 2x', r'2\sin x\cos x', True, True),
    (r'\frac{1}{\sqrt{1-v^2/c^2}}', r'\frac{c}{\sqrt{c^2-v^2}}', True, True),
    (r'2mg', '3mg', False, False),
    (r'0', '0.0', True, True),
])
def test_strict_and_lenient(reference, answer, strict, lenient):
    verdict = score_answer(reference, answer)
    assert (verdict.strict, verdict.lenient) == (strict, lenient), verdict


def test_the_records_tolerance_replaces_the_default():
    assert score_answer(r'\pi', '3.0', tolerance=0.05).lenient is True
    assert score_answer(r'\pi', '3.14', tolerance=1e-5).lenient is False


def test_branch_cuts_agree_on_both_sides():
    # the inside of the root is negative at some sample points: both sides must take the same branch
    ref = to_sympy(r'\sqrt{\frac{2kQq}{mR} \cdot \frac{1-\cos\left(\frac{\pi}{n}\right)}{2\cos\left(\frac{\pi}{n}\right)-1}}')
    ans = to_sympy(r'\sqrt{- \frac{2 Q k q \cos{(\frac{\pi}{n} )}}{2 R m \cos{(\frac{\pi}{n} )} - R m} '
                   r'+ \frac{2 Q k q}{2 R m \cos{(\frac{\pi}{n} )} - R m}}')
    assert compare(ref, ans).strict


def test_a_reason_for_every_verdict():
    assert compare(to_sympy('2'), to_sympy('2.0000001')).reason == 'numeric_match'
    assert compare(to_sympy('x+y'), to_sympy('y+x')).reason == 'equivalent'
    assert compare(to_sympy('x'), to_sympy('y')).reason == 'not_equivalent'
    assert STRICT_RTOL == 1e-6


def test_multiple_answers_unordered_and_ordered():
    assert score_answer(['1', '2'], r'\boxed{2}, \boxed{1}').strict is True
    assert score_answer(['1', '2'], r'\boxed{2}, \boxed{1}', multiple='ordered').strict is False
    assert score_answer(['1', '2'], r'\boxed{1}, \boxed{2}', multiple='ordered').strict is True
    assert score_answer(['1', '2'], r'\boxed{1}').reason == 'count_mismatch'
    assert score_answer(['x', 'y'], r'x, \; y').strict is True
    with pytest.raises(ValueError):
        score_answer('1', '1', multiple='sometimes')


@pytest.mark.parametrize('answer,strict', [
    (r'\boxed{x^{2}+y^{2}=1}', True),
    (r'\boxed{x^{2}=1-y^2}', True),
    (r'\boxed{1-x^{2}-y^{2}=0}', True),
    (r'2x^2 + 2y^2 = 2', True),
    (r'\boxed{x^{2}-y^{2}=1}', False),   # same right-hand side, another equation
    (r'\boxed{x^{2}+y^{2}=2}', False),
])
def test_equations_compare_as_equations(answer, strict):
    assert score_answer('x^2+y^2=1', answer).strict is strict


def test_definitions_still_compare_by_value():
    assert score_answer('T = 2mg', 'F = 2mg').strict is True
    assert score_answer('x = 1', '1').strict is True
    assert score_answer(r'a_{n} =2 n +1', r'a_n=2n+1').strict is True


def test_a_value_with_a_unit_measures_its_left_side():
    # t'_1 - t'_0 is a time interval, not an equation in t'_1 and t'_0: its value is the answer
    assert score_answer(r"t'_1 - t'_0 = 3.7 \times 10^3 \, \text{s}", r'3700 \text{ s}').strict is True
    assert score_answer(r"t'_1 - t'_0 = 3.7 \times 10^3 \, \text{s}", r'3600 \text{ s}').strict is False
    assert score_answer('x + y = 1', '1').strict is False  # no unit: still an equation


def test_an_equation_is_not_matched_by_its_right_hand_side_alone():
    assert score_answer('x^2+y^2=1', '1').strict is False
    assert score_answer(r'\ddot{q} + \gamma \dot{q} + \frac{kq}{m} = 0', '0').strict is False


def test_a_reference_listing_several_values_needs_all_of_them():
    # R = 0.02, T = 0.98 is two answers: one of them alone is not the answer (count_mismatch)
    verdict = score_answer(r'R = 0.02, \quad T = 0.98', r'T \approx 0.98')
    assert (verdict.strict, verdict.reason) == (False, 'count_mismatch')
    assert score_answer(r'R = 0.02, \quad T = 0.98', r'T = 0.98,\ R = 0.02').strict is True  # any order
    assert score_answer(r'R = 0.02, \quad T = 0.98', r'R = 0.02,\ T = 0.97').strict is False
    assert score_answer('T = 2mg = 4N', '4 N').strict is True  # one value written twice is one answer
