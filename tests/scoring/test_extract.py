"""Final-answer extraction: boxes, delimiters, right-hand sides, units; idempotent."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring import extract_final_answer
from evalscope_phys.scoring.extract import extract_all_answers, right_hand_side

CASES = [
    # (response, expression, unit, source)
    (r'so \boxed{x} and finally \boxed{\frac{a}{b}}.', r'\frac{a}{b}', '', 'boxed'),
    (r'\boxed{\frac{\sqrt{2}}{\left(1+x\right)}}', r'\frac{\sqrt{2}}{\left(1+x\right)}', '', 'boxed'),
    (r'\fbox{42}', '42', '', 'boxed'),
    (r'\boxed{\boxed{3}}', '3', '', 'boxed'),
    (r'\boxed{v = \sqrt{2gh}\text{ m/s}}', r'\sqrt{2gh}', r'\text{ m/s}', 'boxed'),
    (r'We find \[ T = 2\pi\sqrt{\frac{l}{g}} \] as the period.', r'2\pi\sqrt{\frac{l}{g}}', '', 'display'),
    (r'$$\gamma = \frac{2}{5}$$', r'\frac{2}{5}', '', 'display'),
    (r'the ratio is $\dfrac{2}{5}$.', r'\dfrac{2}{5}', '', 'inline'),
    (r'the ratio is \(\dfrac{2}{5}\)', r'\dfrac{2}{5}', '', 'inline'),
    ('Reasoning...\nFinal answer: 42', '42', '', 'final_answer_line'),
    ('The final answer is $x = 7$.', '7', '', 'final_answer_line'),
    (r'T = 2mg = 4N', '4', 'N', 'whole'),
    # a plain word after a number reads as a unit here; the engine puts it back when the other
    # side has symbols (see test_plain_unit_words_can_be_symbols)
    (r'T = 4mg', '4', 'mg', 'whole'),
    (r'T \approx 2.5', '2.5', '', 'whole'),
    (r'x \leq \frac{mg}{k}', r'\frac{mg}{k}', '', 'whole'),
    (r'\left(1+\frac{v}{c}\right)f_0', r'\left(1+\frac{v}{c}\right)f_0', '', 'whole'),
    ('46.3 kN', '46.3', 'kN', 'whole'),
    (r'5\,\text{N}', '5', r'\text{N}', 'whole'),
    (r'3\times 10^8 \text{ m/s}', r'3\times 10^8', r'\text{ m/s}', 'whole'),
    (r'30^\circ', '30', r'^\circ', 'whole'),
    (r'8.64 \times 10^{22} \, \text{A} \cdot \text{m}^2', r'8.64 \times 10^{22}', r'\text{A} \cdot \text{m}^2', 'whole'),
    (r'E = \frac{1}{2}mv^2 \quad \text{for } v \ll c', r'\frac{1}{2}mv^2', '', 'whole'),
    ('2 m g', '2 m g', '', 'whole'),  # single letters after a number: symbols, not metre-grams
    ('', '', '', 'none'),
]


@pytest.mark.parametrize('response,expression,unit,source', CASES)
def test_extraction(response, expression, unit, source):
    found = extract_final_answer(response)
    assert (found.expression, found.unit, found.source) == (expression, unit, source)


@pytest.mark.parametrize('response', [c[0] for c in CASES if c[1]])
def test_extraction_is_idempotent(response):
    once = extract_final_answer(response)
    twice = extract_final_answer(once.text)
    assert (twice.expression, twice.unit) == (once.expression, once.unit)


def test_relation_commands_are_matched_whole():
    assert right_hand_side(r'\left(a\right) = b') == 'b'
    assert right_hand_side(r'\left(a+b\right)') == r'\left(a+b\right)'


def test_all_answers_of_a_multi_part_response():
    response = r'''\begin{aligned}
\text{(a)}\quad T &= 290\,\mathrm{K},\\[1mm]
\text{(b)}\quad F &\approx 6\times10^{13}\,\mathrm{dyn}
\end{aligned}'''
    parts = extract_all_answers(response)
    assert [(p.expression, p.unit) for p in parts] == [('290', r'\mathrm{K}'), (r'6\times10^{13}', r'\mathrm{dyn}')]
    assert [p.expression for p in extract_all_answers(r'\boxed{1} and \boxed{x+2}')] == ['1', 'x+2']


def test_plain_unit_words_can_be_symbols():
    from evalscope_phys.scoring import score_answer
    assert score_answer(r'4 m g', r'T = 4mg').strict is True
    assert score_answer(r'4\,\text{mg}', r'0.004\,\text{g}').reason == 'unit_converted'
