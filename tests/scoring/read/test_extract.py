"""The one extractor: where the final answer is, and what it means (the answer model); linear time."""
from __future__ import annotations

import time

import pytest

from evalscope_phys.scoring.answer import (Alternatives, Collection, Definition, Empty, Interval, Relation, Text,
                                           Unit, Unreadable, Value, describe)
from evalscope_phys.scoring.read.extract import extract_answer, labelled_parts, read_answer, read_reference

LOCATED = [
    # (response, where the answer was found, what it reads as)
    (r'so \boxed{x} and finally \boxed{\frac{a}{b}}.', 'boxes', r'x ; \frac{a}{b}'),
    (r'\fbox{42}', 'boxed', '42'),
    (r'\boxed{\boxed{3}}', 'boxed', '3'),
    (r'We find \[ T = 2\pi\sqrt{\frac{l}{g}} \] as the period.', 'display', r'T = 2\pi\sqrt{\frac{l}{g}}'),
    (r'the ratio is $\dfrac{2}{5}$.', 'inline', r'\dfrac{2}{5}'),
    ('Reasoning...\nFinal answer: 42', 'final_answer_line', '42'),
    ('The final answer is $x = 7$.', 'final_answer_line', 'x = 7'),
    ('Final answer: $$\n\\lambda=\\sqrt{2}\\lambda_{0}\n\n$$', 'final_answer_line', r'\lambda = \sqrt{2}\lambda_{0}'),
    ('Final Answer: The largest $n$ is 34. I hope it is correct.', 'final_answer_line', '34'),
    (r'$\boxed{318}$ first, and at last: Final Answer: The final answer is $20,316$.', 'final_answer_line', '20316'),
    (r'So the speed is $5$ m/s.', 'inline', '5 m/s'),
    (r'\boxed{28} pct', 'boxed', '28 pct'),
    ('', 'none', ''),
]


@pytest.mark.parametrize('response,source,reads', LOCATED)
def test_the_final_answer_is_located(response, source, reads):
    found = extract_answer(response)
    assert (found.source, describe(found.answer)) == (source, reads)


READS = [
    # (answer text, what it means)
    ('p > q', Relation('<', Value('q'), Value('p'))),
    (r'3\,\text{s} \le t', Relation('<=', Value('3', Unit(r'\text{s}')), Value('t'))),
    (r'y \neq 2', Relation('!=', Value('y'), Value('2'))),
    # a plain word after a number reads as a unit here; against a symbolic reference the comparator
    # reads '2 mg' back as a product (test_plain_unit_words_can_be_symbols)
    (r'T = 2mg', Definition('T', Value('2', Unit('mg', plain=True)))),
    (r'T \approx 2.5', Definition('T', Value('2.5'), approximate=True)),
    (r'k \pm 1', Alternatives((Value('k  +  1'), Value('k  -  1')), 'pm')),
    (r'7 \text{ or } 9', Alternatives((Value('7'), Value('9')))),
    ('(3, 5)', Collection('tuple', (Value('3'), Value('5')))),
    ('[0, 1)', Interval(((True, Value('0'), Value('1'), False),))),
    (r'0 < x \le 1', Definition('x', Interval(((False, Value('0'), Value('1'), True),)))),
    (r'\{1, 2\}', Collection('set', (Value('1'), Value('2')))),
    ('1 : 4', Collection('ratio', (Value('1'), Value('4')))),
    (r'R = 0.02, \quad T = 0.98', Collection('list', (Definition('R', Value('0.02')), Definition('T', Value('0.98'))))),
    (r'E = \frac{1}{2}mv^2 \quad \text{for } v \ll c', Definition('E', Value(r'\frac{1}{2}mv^2'))),
    ('46.3 kN', Value('46.3', Unit('kN', plain=True))),
    (r'9\,\text{bananas}', Value('9', Unit(r'\text{bananas}'))),
    ('2 m g', Value('2 m g')),
    (r'\text{counterclockwise}', Text('counterclockwise')),
    ('the ball moves to the left', Text('the ball moves to the left')),
    (r'\text{The momentum is about }0.82\text{ GeV/c}', Value('0.82', Unit(r'\text{ GeV/c}'))),
    ('v₀ = 3 m s⁻¹', Definition('v_{0}', Value('3', Unit('m s^{-1}', plain=True)))),
    ('12,000,023', Value('12000023')),
    ('', Empty()),
]


@pytest.mark.parametrize('text,meaning', READS, ids=[r[0][:30] or 'empty' for r in READS])
def test_what_an_answer_means(text, meaning):
    assert read_answer(text) == meaning


def test_matrices_and_aligned_blocks():
    matrix = read_answer(r'\begin{pmatrix}2 & 0 \\ 9 & 4\end{pmatrix}')
    assert isinstance(matrix, Collection) and matrix.kind == 'matrix' and matrix.shape == (2, 2)
    block = read_answer(r'\begin{aligned} x &= 1 \\ y &= 2 \end{aligned}')
    assert block == Collection('list', (Definition('x', Value('1')), Definition('y', Value('2'))))
    piecewise = read_answer(r'f = \begin{cases} 1 & x > 0 \\ 0 & x < 0 \end{cases}')
    assert isinstance(piecewise, Unreadable) and piecewise.why == 'piecewise'  # refused, not guessed


def test_plain_unit_words_can_be_symbols():
    from evalscope_phys.scoring import score_answer
    assert score_answer(r'4 m g', r'T = 4mg').strict is True
    assert score_answer(r'4\,\text{mg}', r'0.004\,\text{g}').reason == 'unit_converted'


def test_a_reference_is_all_answer():
    assert read_reference('$1$ and $2$ and $3$') == Collection('list', (Value('1'), Value('2'), Value('3')))
    assert read_reference(r'\boxed{1}\boxed{2}') == Collection('boxes', (Value('1'), Value('2')))


def test_extraction_is_idempotent():
    for response, _, reads in LOCATED:
        if reads and ';' not in reads:
            once = extract_answer(response).answer
            assert read_answer(describe(once)) == once, response


def test_a_long_answer_is_the_models_failure():
    assert isinstance(read_answer('x+' * 6000 + 'x'), Unreadable)


@pytest.mark.parametrize('opening', [r'\[', r'\(', r'\begin{equation}', '$$', r'\boxed{'])
def test_unclosed_delimiters_cost_one_pass(opening):
    # 200k characters of unclosed openings: a backtracking regex took minutes here; one pass is instant
    text = (opening + ' x ') * (200_000 // (len(opening) + 3))
    started = time.process_time()
    extract_answer(text)
    assert time.process_time() - started < 2.0


LABELLED = [
    (r"""\begin{aligned}
(a)\; E &= \sqrt{13}\,m_p c^2,\\[1mm]
(b)\; u &= \frac{3\sqrt{3}}{7}\,c.
\end{aligned}""", [r'E &= \sqrt{13}\,m_p c^2', r'u &= \frac{3\sqrt{3}}{7}\,c']),
    (r'\text{(a) Forbidden,\quad (b) Forbidden,\quad (c) Forbidden.}', [r'\text{ Forbidden}'] * 3),
    (r'\text{(a) } \beta = 1, \quad \text{(b) } E = 2', [r'\beta = 1', 'E = 2']),
    (r'(i) x = 1; (ii) y = 2', ['x = 1', 'y = 2']),
    (r'\boxed{(a)\ 3\,\text{m}, \quad (b)\ 4\,\text{s}}', [r'3\,\text{m}', r'4\,\text{s}']),
    (r'E(r) = 3, (a+b)', []),
    (r'\text{(a)}\quad x = 1', []),
    (r'(b) x = 1, (c) y = 2', []),
    ('', []),
]


@pytest.mark.parametrize('response,parts', LABELLED)
def test_labelled_parts(response, parts):
    assert labelled_parts(response) == parts


ROWS = [r'\text{(%d) The %s wave is damped because the medium absorbs part of its energy on every cycle.}' % (i, w)
        for i, w in enumerate(('first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth',
                               'ninth', 'tenth', 'eleventh', 'twelfth'), 1)]
ROWS_ANSWER = '\\begin{array}{l}\n' + '\\\\[1mm]\n'.join(ROWS) + '\n\\end{array}'


def test_an_answer_laid_out_as_one_environment_of_rows_is_the_answer():
    # a long answer in rows of words is the answer (for the judge as words), not "no answer": its
    # last line is only \end{array}
    assert len(ROWS_ANSWER) > 1000
    found = extract_answer(ROWS_ANSWER)
    assert found.source == 'whole' and not found.empty and 'twelfth' in describe(found.answer)


def test_a_solution_ending_in_an_environment_is_not_one_environment():
    solution = 'We reason step by step. ' * 60 + '\n' + ROWS_ANSWER
    assert extract_answer(solution).source != 'whole'
