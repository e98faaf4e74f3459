"""The comparator: strict and lenient on values, relations, lists; optimal matching; what it refuses."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.answer import Collection, Value
from evalscope_phys.scoring.compare.answers import STRICT_RTOL, Options, compare, match_items


@pytest.mark.parametrize('reference,answer,strict,lenient', [
    (r'\frac{1}{3}', '0.3333333333333333', True, True),
    (r'\pi', '3.14159', True, True),            # relative error 8e-7 < 1e-6
    (r'\pi', '3.14', False, True),              # 5e-4: lenient only
    (r'\pi', '3.0', False, False),
    (r'\frac{\ln 2}{\lambda}', r'\frac{0.693}{\lambda}', False, True),
    (r'\sqrt{\frac{2g}{3R}}', r'\frac{\sqrt{2g}}{\sqrt{3R}}', True, True),  # the PHYBench README's example (peer case)
    (r'\sin 2x', r'2\sin x\cos x', True, True),
    (r'\left(1-\frac{w^2}{c^2}\right)^{-1/2}', r'\frac{c}{\sqrt{c^2-w^2}}', True, True),
    (r'2mg', '3mg', False, False),
    (r'0', '0.0', True, True),
])
def test_strict_and_lenient(reference, answer, strict, lenient):
    verdict = score_answer(reference, answer)
    assert (verdict.strict, verdict.lenient) == (strict, lenient), verdict


def test_the_records_tolerance_replaces_the_default():
    assert score_answer(r'\pi', '3.0', tolerance=0.05).lenient is True
    assert score_answer(r'\pi', '3.14', tolerance=1e-5).lenient is False
    assert STRICT_RTOL == 1e-6


def test_a_reason_for_every_verdict():
    assert score_answer('2', '2.0000001').reason == 'numeric_match'
    assert score_answer('x+y', 'y+x').reason == 'equivalent'
    assert score_answer('x', 'y').reason == 'not_equivalent'
    assert score_answer(r'\sin 2x', r'2\sin x\cos x').reason in ('equivalent', 'equivalent_numerically')


def test_multiple_answers_unordered_and_ordered():
    assert score_answer(['1', '2'], r'\boxed{2}, \boxed{1}').strict is True
    assert score_answer(['1', '2'], r'\boxed{2}, \boxed{1}', multiple='ordered').strict is False
    assert score_answer(['1', '2'], r'\boxed{1}, \boxed{2}', multiple='ordered').strict is True
    assert score_answer(['1', '2'], r'\boxed{1}').reason == 'count_mismatch'
    assert score_answer(['x', 'y'], r'x, \; y').strict is True


def test_matching_is_optimal_not_greedy():
    # greedy pairs 1 with 1.005 (closest) and strands 1.012 with 0.995 (1.7% off); the optimal
    # assignment pairs 1 with 0.995 and 1.012 with 1.005, both within 1%
    verdict = score_answer(['1', '1.012'], r'\boxed{1.005}, \boxed{0.995}')
    assert (verdict.strict, verdict.lenient) == (False, True), verdict
    outcome = match_items((Value('1'), Value('1.012')), (Value('1.005'), Value('0.995')), Options(), ordered=False)
    assert outcome.lenient and [p.answer for p in outcome.parts] == ['0.995', '1.005']


def test_every_part_gets_its_own_verdict():
    verdict = score_answer(['1', '2', '3'], r'\boxed{1}, \boxed{5}, \boxed{3}', multiple='ordered')
    assert [p.strict for p in verdict.parts] == [True, False, True]
    assert [p.extracted for p in verdict.parts] == ['1', '5', '3']
    short = score_answer(['1', '2', '3'], r'\boxed{1}, \boxed{2}', multiple='ordered')
    assert [p.reason for p in short.parts] == ['equivalent', 'equivalent', 'no_answer']


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


def test_definitions_compare_by_value_under_the_same_name():
    assert score_answer('T = 2mg', 'T = 2 m g').strict is True
    assert score_answer('T = 2mg', 'F = 2mg').reason == 'undecided'  # another quantity: the judge decides
    assert score_answer('x = 1', '1').strict is True
    assert score_answer(r'a_{n} =2 n +1', r'a_n=2n+1').strict is True


def test_a_value_with_a_unit_measures_its_left_side():
    # t'_2 - t'_1 is a time interval, not an equation in t'_2 and t'_1: its value is the answer
    assert score_answer(r"t'_2 - t'_1 = 4.2 \times 10^3 \, \text{s}", r'4200 \text{ s}').strict is True
    assert score_answer(r"t'_2 - t'_1 = 4.2 \times 10^3 \, \text{s}", r'4100 \text{ s}').strict is False
    assert score_answer('x + y = 1', '1').strict is False  # no unit: still an equation


def test_an_equation_is_not_matched_by_its_right_hand_side_alone():
    assert score_answer('x^2+y^2=1', '1').strict is False
    assert score_answer(r'\ddot{y} + 2\beta \dot{y} + \omega_0^2 y = 0', '0').strict is False


def test_a_reference_listing_several_values_needs_all_of_them():
    verdict = score_answer(r'R = 0.02, \quad T = 0.98', r'T \approx 0.98')
    assert (verdict.strict, verdict.reason) == (False, 'count_mismatch')
    assert score_answer(r'R = 0.02, \quad T = 0.98', r'T = 0.98,\ R = 0.02').strict is True  # any order
    assert score_answer(r'R = 0.02, \quad T = 0.98', r'R = 0.02,\ T = 0.97').strict is False
    assert score_answer('T = 2mg = 4N', '4 N').strict is True  # one value written twice is one answer


@pytest.mark.parametrize('reference,answer,reason', [
    (r'\frac{dq}{dt}', r'\frac{q}{t}', 'undecided'),             # a derivative against a quotient
    (r'\vec{p}\times\vec{q}', r'\vec{q}\times\vec{p}', 'undecided'),
    (r'\langle E^2\rangle - \langle E\rangle^2', '0', 'undecided'),
    (r'7\,\text{m}', r'7\,\text{bananas}', 'unknown_unit'),
    (r'\frac{1}{2}', r'\int_0^1 x\,dx', 'undecided'),
    ('4', r'4 \text{ or } 6', 'hedged'),
    (r'\omega_0 \pm \delta', r'\omega_0 + \delta', 'count_mismatch'),
    ('3', r'\frac{3}{0}', 'undefined_value'),
    (r'\exp(2)', r'e^{2}', 'undecided'),                         # e^2 is read as the charge squared
    (r'I_0 e^{2}', r'I_0 \mathrm{e}^{2}', 'undecided'),           # ... unless written upright
    (r'2\exp(1)', r'2e', 'undecided'),
])
def test_what_the_engine_cannot_represent_is_refused_with_a_reason(reference, answer, reason):
    verdict = score_answer(reference, answer)
    assert (verdict.strict, verdict.reason, verdict.scored) == (False, reason, True), verdict


@pytest.mark.parametrize('reference,answer', [
    (r'\exp(2)', r'e^{3}'),          # different even with Euler's e
    (r'\frac{e^2}{r}', r'\frac{e^2}{2r}'),  # both sides the charge
])
def test_the_e_ambiguity_refuses_only_what_euler_would_make_equal(reference, answer):
    assert score_answer(reference, answer).reason == 'not_equivalent'


def test_an_undefined_reference_is_unscored_not_equal_to_an_undefined_answer():
    verdict = score_answer(r'\frac{2}{0}', r'\frac{7}{0}')
    assert verdict.strict is None and not verdict.scored


def test_eed_is_zero_on_a_missing_unit_or_a_dimension_mismatch():
    assert score_answer(r'46300\,\text{N}', '46300').eed == 0.0
    assert score_answer(r'46300\,\text{N}', r'46.3\,\text{m}').eed == 0.0
    assert score_answer(r'46300\,\text{N}', r'46.3\,\text{kN}').eed == 100.0


def test_vectors_are_sampled_only_as_sums_and_dot_products():
    # (a.b) c and a (b.c) are different vectors; as numbers they would be equal
    ref = r'(\vec{a}\cdot\vec{b})\vec{c}'
    assert score_answer(ref, r'\vec{a}(\vec{b}\cdot\vec{c})').strict is False
    assert score_answer(r'2\vec{v}', r'\vec{v} + \vec{v}').strict is True
    assert compare(Collection('tuple', (Value('1'), Value('2'))), Collection('tuple', (Value('2'), Value('1')))).strict is False
