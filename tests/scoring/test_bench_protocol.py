"""The Yale comparison protocol of ``scripts/bench_scoring.py`` on our own multi-part answers."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope='module')
def bench():
    spec = importlib.util.spec_from_file_location('bench_scoring', ROOT / 'scripts' / 'bench_scoring.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ANSWER = r'''\begin{aligned}
\text{(a)}\quad & T = 290\,\text{K},\\[1mm]
\text{(b)}\quad & x^2 + y^2 = 4.
\end{aligned}'''


def test_a_single_reference_part_matches_any_answer_part(bench):
    assert bench.strict_verdict(r'290\,\text{K}', ANSWER, 1).strict is True
    assert bench.strict_verdict(r'300\,\text{K}', ANSWER, 1).strict is False


def test_a_part_keeps_its_left_side_when_the_reference_is_an_equation(bench):
    assert bench.strict_verdict('x^2 + y^2 = 4', ANSWER, 1).strict is True
    assert bench.strict_verdict('x^2 - y^2 = 4', ANSWER, 1).strict is False


def test_the_last_reference_part_is_aligned_with_the_last_labelled_part(bench):
    assert bench.strict_verdict('x^2 + y^2 = 4', ANSWER, 2, last_part=True).strict is True
    # labelled parts line up with the reference parts: part (a) is not compared with the last part
    assert bench.strict_verdict(r'290\,\text{K}', ANSWER, 2, last_part=True).strict is False


def test_a_reference_listing_values_matches_a_labelled_part_listing_them(bench):
    answer = r'\text{(a)}\quad V_c = 3b,\quad p_c = 2, \\ \text{(b)}\quad x = 1'
    assert bench.strict_verdict(r'p_c = 2, \; V_c = 3b', answer, 1).strict is True
    assert bench.strict_verdict(r'p_c = 3, \; V_c = 3b', answer, 1).strict is False


def test_an_earlier_reference_part_is_compared_with_the_whole_answer(bench):
    verdict = bench.strict_verdict(r'290\,\text{K}', ANSWER, 2, last_part=False)
    assert verdict.strict is False


def test_disagreement_shapes(bench):
    assert bench.answer_shape(r'\text{the field is zero inside}', '0') == 'prose_reference'
    assert bench.answer_shape('0', r'\text{The field vanishes}\ 0') == 'prose_answer'
    assert bench.answer_shape('1', ANSWER) == 'multi_part_answer'
    assert bench.answer_shape('1', r'\frac{1}{2}') == 'formula'
