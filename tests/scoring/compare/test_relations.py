"""Relations compared side by side: skipping a pair of sides never changes a verdict."""
from __future__ import annotations

from evalscope_phys.benchmarks.multipart import score_parts


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
