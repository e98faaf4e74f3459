"""Relations know their left-hand side: a different quantity named is routed, formatting is forgiven."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.read.definitions import Givens
from evalscope_phys.scoring.compare.quantity_names import problem_tie, same_family, same_quantity_name

CASES = json.loads((Path(__file__).parent / 'quantity_name_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['reference']}|{c['answer']}" for c in CASES])
def test_quantity_name_case(case):
    verdict = score_answer(case['reference'], case['answer'])
    context = f"{case['why']}: {case['reference']!r} vs {case['answer']!r} -> {verdict}"
    assert verdict.strict == case['strict'], context
    assert verdict.reason == case['reason'], context


@pytest.mark.parametrize('a, b, same', [
    ('v_{A}', 'v_A', True), (r'\left(x\right)', '(x)', True),
    ('T', 'N', False), ('v_A', 'v_B', False), ('x', '', True), (r'E_{\text{k}}', 'E_k', True),
    ('E_k', 'E_K', False), ('D(r)', r'\mathbf{D}', True), (r'\sigma(\theta)', r'\sigma', True),
    ('P(s_x)', 'P(s_z)', False), (r'\lambda &', r'\lambda', True), ("p_\\phi'", "p'_\\phi", True), ('U', 'W', False),
    (r'f_{\rmmirror}', r'f_{\rm mirror}', True), (r'h_{\rmmax}', 'h', False), (r'f_{\rmmirror}', 'f_m', False),
    (r'\langle E\rangle', r'\overline{E}', True), (r'\left\langle E \right\rangle', r'\bar{E}', True),
    (r'\langle E\rangle', 'E', False), (r'\bar{E}', 'E', False), (r'\langle x^2\rangle', r'\bar{x}^2', False),
    (r'\vec E', r'\vec{E}', True), (r'\mathbf E_0', 'E_0', True), (r'\vec\Phi', r'\Phi', True),
    (r'\mathbf{J_b}', 'J_b', True), (r'\vec E', 'F', False), (r'\vec E_0', 'E_1', False), (r'\bmod', 'o', False),
    (r'\lvert\psi\rangle', r'|\psi\rangle', True), (r'\left\lvert \psi(t) \right\rangle', r'|\psi(t)\rangle', True),
    (r'\lvert\psi\rangle', r'|\phi\rangle', False), (r'\lVert x\rVert', '|x|', False), (r'\lvert x\rvert', '|x|', True),
    (r'\lvertx', '|x', False),
    (r'P_{1s\rightarrow 2p}', r'P_{1s \to 2p}', True), (r'P_{1s\longrightarrow2p}', r'P_{1s\to 2p}', True),
    (r'P_{1s\to 2p}', r'P_{2p\to 1s}', False), (r'P_{1s\rightarrow 2p}', r'P_{1s\leftarrow 2p}', False),
])
def test_same_quantity_name(a, b, same):
    assert same_quantity_name(a, b) is same


@pytest.mark.parametrize('reference, answer, question, tie', [
    ('h', r'h_{\rm max}', 'Find the maximum height.', 'decorated'),
    ('h', r'h_{\rm max}', None, None),
    (r'v_{\text{term}}', r'v_\text{T}', 'Find the terminal velocity.', 'abbreviated'),
    (r'E_{\min}', r'E_{\max}', 'Find the energy.', None), ('v_B', 'v_A', 'Find the speeds.', None),
    ('T', r'T_{\text{new}}', 'The gas is at $T_1$; find the temperature.', None),
    ('T_e', 'T', 'A building at $T$ beside air at $T_0$.', None), ('v', 'v_0', 'Find the speed.', None),
    ('B', 'B_z', 'Find the field.', None), ("E", "E'", 'Find the energy.', None), ('x', 'y', 'Find the plane.', None),
    (r'\Delta S', r'\Delta S_{\text{univ}}', 'Find the change of the universe.', 'decorated'),
    (r'\Delta S', r'\Delta S_1', 'Find the change of the universe.', None),
    (r'\Delta S', r'\Delta S_{\text{univ}}', 'The wire changes by $\\Delta S_w$; and the universe?', None),
    (r'\Delta S', r'S_{\text{univ}}', 'Find the change.', None), (r'\Delta_0', r'\Delta_{\rm gap}', 'Find the gap.', None),
])
def test_problem_tie(reference, answer, question, tie):
    """Two names the problem ties (a descriptive subscript added, a word abbreviated), and those it leaves open."""
    givens = Givens(question_text=question or '', question=question is not None)
    assert problem_tie(reference, answer, ('1',), givens) == tie


@pytest.mark.parametrize('reference, answer, values, question, tie', [
    ('A_n', 'A', (r'\frac{n}{B}', r'\frac{n}{B}'), 'Quantise the area.', 'indexed'),
    ('W', 'W_n', ('n^2 w', 'w n^2'), 'Find the levels.', 'indexed'),
    ('W_n', 'W', ('3', '3'), 'Find the levels.', None),  # no n in the values: n is the normal component
    ('W_n', 'W', ('n^2 w', '3'), 'Find the levels.', None),  # only one value in n
    ('B_n', 'B', ('n I', 'n I'), 'Find the normal component of the field.', None),
    ('A_n', 'A_m', ('n', 'n'), 'Find the areas.', None), ('W_n', 'W', ('n^2 w', 'n^2 w'), 'The lowest is $W_1$.', None),
])
def test_problem_tie_level_index(reference, answer, values, question, tie):
    """A subscript n is the level index only when both values are written in n and the question speaks of
    no normal component."""
    assert problem_tie(reference, answer, values, Givens(question_text=question, question=True)) == tie


def test_problem_tie_refuses_the_answers_name_in_a_value():
    givens = Givens(question_text='A gas expands; find the final temperature.', question=True)
    assert problem_tie('T_f', 'T', (r'\frac{T}{2}',), givens) is None
    assert problem_tie('T_f', r'T_{\text{final}}', (r'\frac{T}{2}',), givens) == 'abbreviated'  # T is not T_final


@pytest.mark.parametrize('a, b, family', [
    (r'\omega_1', r'\omega_3', True), ('E_{1}', 'E_2', True), ('v_A', 'v_{B}', False), (r'\beta_0', r'\beta_c', False),
    (r'\omega_1', r'\omega_{1}', False), (r'\omega_z', r'\omega_{\pm}', False),
    (r'\omega_1', r'\omega', False), ('v_A', 'u_A', False), ('E', 'F', False), ('q_1', r'\omega_1', False),
])
def test_same_family(a, b, family):
    """Siblings (one symbol, other numbered subscripts) are rival candidates in a multi-part answer; the same
    name, a bare symbol or another letter is not a sibling."""
    assert same_family(a, b) is family


def test_tied_names_with_another_value_stay_undecided_and_say_the_value_failed():
    """A tie is no proof, so a failing value is still the judge's; the detail names the value, not the name."""
    verdict = score_answer('h = 5', r'\boxed{h_{\max} = 6}', question='Find the maximum height of the column.')
    assert (verdict.strict, verdict.reason) == (False, 'undecided')
    assert 'decorated, but the value is not_equivalent' in verdict.detail
    untied = score_answer('h = 5', r'\boxed{h_{\max} = 6}')
    assert untied.detail.endswith('another quantity named')


@pytest.mark.parametrize('reference, answer, references, tied', [
    ("\\omega'", '\\omega_{\\text{rad}}', ("\\omega' = 3",), True),
    ("\\omega'", '\\omega_{\\text{rad}}', ("\\omega' = 3", '\\omega_{\\text{ax}} = 2'), False),  # another part on the letter
    ('T_1', 'T_{\\text{up}}', ('T_1 = 3', 'T_2 = 1'), False),  # two tensions asked: a swap stays possible
    ('E_p', 'E_{\\text{min}}', ('E_p = 3', 'E_p = 5'), True),  # one name asked twice (two cases): one quantity
    ('E_p', 'E_{\\text{th}}', ('E_p = 3', 'v = E_{th}/c'), False),  # a reference part writes the answer's name
])
def test_sole_tie_reads_the_reference_set(reference, answer, references, tied):
    from evalscope_phys.scoring.compare.quantity_names import sole_tie
    from evalscope_phys.scoring.read.definitions import Givens
    givens = Givens(question_text='Find it.', question=True, references=references)
    assert bool(sole_tie(reference, answer, ('3', '3'), givens)) is tied


@pytest.mark.parametrize('reference, answer, references, tied', [
    ('p', 'P', (r'p = \frac{NkT}{V}',), True),  # the only quantity on p or P
    ('z', 'Z', (r'z = \frac{NkT}{V}', r'S = Nk'), True),
    ('p', 'P', (r'p = \frac{NkT}{V}', r'P_{\text{rad}} = 3'), False),  # a reference part writes P_rad
    ('p', 'P', (r'p = \frac{NkT}{V}', r'S = \frac{P}{T}'), False),  # a reference value writes P
    ('m', 'M', (r'm = \frac{NkT}{V}',), True),
    (r'\phi', r'\Phi', (r'\phi = \frac{NkT}{V}',), False),  # a Greek capital: another letter
    ('v_A', 'V_a', (r'v_A = \frac{NkT}{V}',), False),  # two changes
])
def test_sole_tie_in_the_other_case_reads_the_reference_set(reference, answer, references, tied):
    """The other case of the letter ties only a formula, and only where no reference part writes either case."""
    from evalscope_phys.scoring.compare.quantity_names import sole_tie
    givens = Givens(question_text='Find it.', question=True, references=references)
    assert bool(sole_tie(reference, answer, (r'\frac{NkT}{V}',) * 2, givens, formulas=True)) is tied
    assert sole_tie(reference, answer, ('3', '3'), givens) is None  # a number names no quantity


@pytest.mark.parametrize('answer_text, tied', [
    (r'T_{\text{shell}} = \frac{T}{\sqrt{3}} ; P_{\text{out}} = \frac{P}{3}', True),  # its own name, and P
    (r'T_{\text{shell}} = \frac{T}{\sqrt{3}} ; T_{\text{core}} = 2T_0', False),  # another temperature beside it
])
def test_sole_tie_lets_the_answer_define_its_own_name(answer_text, tied):
    from evalscope_phys.scoring.compare.quantity_names import sole_tie
    givens = Givens(question_text='A core at $T$ is wrapped in a black shell. Find the temperature of the shell.',
                    question=True, references=(r'T_1 = \frac{T}{\sqrt{3}}',), answer_text=answer_text)
    assert bool(sole_tie('T_1', r'T_{\text{shell}}', (r'\frac{T}{\sqrt{3}}',) * 2, givens)) is tied
