"""Relations compared side by side, and definitions as equations: skipping work never changes a verdict."""
from __future__ import annotations

import pytest

from evalscope_phys.benchmarks.multipart import score_parts
from evalscope_phys.scoring.answer import Definition, Value
from evalscope_phys.scoring.compare.outcome import Options
from evalscope_phys.scoring.compare.relations import as_equation_may_decide
from evalscope_phys.scoring.read.definitions import Givens


def test_a_side_read_as_particles_is_compared_even_when_the_other_pair_differs():
    # pairing compares each piece with each reference part; (a)'s parent differs from (b)'s, and the
    # reference's \Delta^{++} is no expression (it is read as a particle): skipping its side raised
    # unparseable_reference for part (b) before the skip checked that the side reads as a value
    references = [r'\rho^0 \rightarrow \pi^+\pi^-', r'\Delta^{++} \rightarrow p\pi^+']
    solution = r'(a) $\boxed{\rho^0 \to \pi^+ + \pi^-}$ (b) $\boxed{\Delta^{++} \to p + \pi^+}$'
    matched = score_parts(references, solution, question='Write the two decays.')
    assert [(p.strict, p.reason) for p in matched.parts] == [(True, 'equivalent'), (True, 'equivalent')]


def test_a_different_left_side_still_rejects_the_relation():
    references = [r'\rho^0 \rightarrow \pi^+\pi^-', r'\Delta^{++} \rightarrow p\pi^+']
    solution = r'(a) $\boxed{\omega^0 \to \pi^+ + \pi^-}$ (b) $\boxed{\Delta^{++} \to n + \pi^+}$'
    matched = score_parts(references, solution, question='Write the two decays.')
    assert [p.strict for p in matched.parts] == [False, False]


# ---- a definition compared as an equation only where the symbols allow it (cost; verdicts unchanged)


EQUATION_ROUTE_CASES = [
    # (reference name, value, answer name, value, question, may decide, why)
    ('a', 'b', 'b', 'a', '', True, 'b = a for a = b: each name is in the other equation'),
    ('x', '2y', 'y', r'\frac{x}{2}', '', True, 'the same equation solved for the other symbol'),
    ('x', '1 - x', 'x', r'\frac{1}{2}', '', True, 'a name in its own value: an implicit definition'),
    ('E', r'\gamma m c^2', 'E', r'\frac{mc^2}{\sqrt{1-\beta^2}}', '', True, 'the Lorentz factor may be written out'),
    ('v', r'\sqrt{\frac{\mu}{r}}', 'u', r'\sqrt{\frac{GM}{r}}', r'Let $\mu = GM$.', True,
     'a symbol the question defines'),
    ('v', r'\frac{\left(', 'v', '2u', '', True, 'a side the engine cannot read: try it'),
    ('v_c', '2u', 'v', '2u', '', False, 'another name, in neither equation: never one equation'),
    ('E', 'pc', 'p', 'E', '', True, 'natural units: c is no symbol the equation needs'),
    ('k', r'\frac{2\pi}{\lambda}', 'n', r'\frac{k\lambda}{2\pi}', '', True, 'a wave number beside a wavelength'),
    ('Z', r'e^{-\beta E}', 'Z', r'e^{-E/kT}', '', True, 'a thermal beta may be 1/kT'),
    ('E_1', r'\hbar\omega', 'E_2', r'\hbar\omega', '', False, 'another name: hbar alone is no link'),
    (r'\gamma_1', '2', 'p_1', r'\gamma_1 m', '', False, 'a Lorentz factor with no speed beside it is a symbol'),
    ('T', '2mg', 'T', 'mg', '', False, 'one name on both sides: the values decide'),
    ('F', 'ma', 'P', 'ma', 'A block of mass $m$ accelerates.', False, 'another name, the question defines neither'),
]


@pytest.mark.parametrize('ref_name, ref_value, ans_name, ans_value, question, expected, why', EQUATION_ROUTE_CASES,
                         ids=[c[-1] for c in EQUATION_ROUTE_CASES])
def test_the_equation_route_is_tried_only_where_it_may_decide(ref_name, ref_value, ans_name, ans_value, question,
                                                               expected, why):
    givens = Givens(question_text=question, question=True) if question else None
    decides = as_equation_may_decide(Definition(ref_name, Value(ref_value)), Definition(ans_name, Value(ans_value)),
                                     Options(givens=givens))
    assert decides is expected, why
