"""The pairing stage's assignment: one to one, keeping the written order, of greatest weight."""
import pytest

from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.pairing import ordered_assignment

# (weights, rows, cols, the pairs chosen)
CASES = [
    ({(0, 0): 1, (1, 1): 1}, 2, 2, [(0, 0), (1, 1)]),
    ({(0, 1): 9, (1, 0): 9, (0, 0): 1, (1, 1): 1}, 2, 2, [(0, 1)]),  # never crossing: one of the two
    ({(0, 0): 1, (0, 1): 9, (1, 1): 1, (1, 2): 9}, 2, 3, [(0, 1), (1, 2)]),  # an extra first item is skipped
    ({(0, 0): 1, (1, 0): 9, (2, 0): 1}, 3, 1, [(1, 0)]),  # one item answers one part only
    ({(0, 0): 9, (1, 0): 9}, 2, 1, [(1, 0)]),
    ({}, 2, 2, []),
    ({(0, 0): 1}, 0, 0, []),
]


@pytest.mark.parametrize('weights, rows, cols, pairs', CASES)
def test_ordered_assignment(weights, rows, cols, pairs):
    chosen = ordered_assignment(weights, rows, cols)
    assert len(chosen) == len(pairs)
    assert sum(weights[p] for p in chosen) == sum(weights[p] for p in pairs)
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in zip(chosen, chosen[1:]))
    assert all(p in weights for p in chosen)


# A reference part restating another part's reference is answered by what answers that part
# (references, labels, response, each part's strict verdict); negative rows: not a restatement.
RESTATED = [
    ([r'\frac{1}{4}', r'25\%'], (), r'\boxed{\frac{1}{4}}', [True, True]),  # one value in two forms
    ([r'E = mc^2', r'E = mc^2', r'p = mv'], (), r'\boxed{E = mc^2}, \boxed{p = mv}', [True, True, True]),
    ([r'\frac{1}{4}', r'25\%'], (), r'\boxed{\frac{1}{3}}', [False, False]),  # shared, still wrong
    (['0', '0'], (), r'\boxed{0}', [False, True]),  # two quantities that agree: one 0 answers one
    ([r'v_A = 2', r'v_B = 2'], (), r'\boxed{v_A = 2}', [True, False]),  # another quantity named
    ([r'x = 1', r'x = 2'], (), r'\boxed{x = 1}', [True, False]),  # not the same reference
    # (c) left unanswered: a labelled response answers each label once, so (a)'s piece is no answer to (c);
    # the dataset's labels reach the pairing (they did not: the engine's option check shadowed them);
    # without them, content pairs the pieces and, on the tie, the piece labelled (a) answers the first part
    # (it went to the last one): the same verdicts
    ([r'E = mc^2', r'p = mv', r'E = mc^2'], ('(a)', '(b)', '(c)'), r'\boxed{(a)\ E = mc^2,\ (b)\ p = mv}',
     [True, True, False]),
    ([r'E = mc^2', r'p = mv', r'E = mc^2'], (), r'\boxed{(a)\ E = mc^2,\ (b)\ p = mv}', [True, True, False]),
]


@pytest.mark.parametrize('references, labels, response, strict', RESTATED)
def test_restated_reference_parts(references, labels, response, strict):
    verdict = score_answer(references, response, multiple='ordered', labels=labels)
    assert [bool(p.strict) for p in verdict.parts] == strict


# A \pm piece answers two reference parts when its branches are those parts; negative rows: a branch
# that is no part, a reference writing \pm itself, one part only.
PLUS_MINUS = [
    ([r'L_z^3 = L_z', r'(L_x + i L_y)^3 = 0', r'(L_x - i L_y)^3 = 0'],
     r'\boxed{L_z^3 = L_z \quad\text{and}\quad (L_x \pm i\,L_y)^3 = 0}', [True, True, True]),
    ([r'\omega_+ = a + b', r'\omega_- = a - b'], r'\boxed{\omega_{\pm} = a \pm b}', [True, True]),
    ([r'\omega_+ = a + b', r'\omega_- = a - b'], r'\boxed{\omega_{\pm} = a \mp b}', [False, False]),  # swapped
    ([r'\omega_+ = a + b', r'\omega_- = a - 2b'], r'\boxed{\omega_{\pm} = a \pm b}', [False, False]),
    ([r'x = 1.1', r'y = 2'], r'\boxed{x = 1 \pm 0.1}, \boxed{y = 2}', [False, True]),  # an uncertainty
    ([r'x = 1 \pm 0.1', r'y = 2'], r'\boxed{x = 1 \pm 0.1}, \boxed{y = 2}', [True, True]),  # compared whole
]


@pytest.mark.parametrize('references, response, strict', PLUS_MINUS)
def test_plus_minus_piece_answers_two_parts(references, response, strict):
    verdict = score_answer(references, response, multiple='ordered')
    assert [bool(p.strict) for p in verdict.parts] == strict


# The verdict with EED is the table's where the score is known: strict parts score 100, but a number
# accepted at the digits the reference states keeps the official distance (it is compared again).
# (references, response, each part's (strict, EED))
EED_AFTER_THE_TABLE = [
    ([r'v = 2gh', r'T = 3mg'], r'$\boxed{T = 3mg}$ and $\boxed{v = 2gh}$', [(True, 100.0), (True, 100.0)]),
    ([r'v = 2gh', r'E = 236\,\text{MeV}'], r'$\boxed{v = 2gh}$, $\boxed{E \approx 235.7\,\text{MeV}}$',
     [(True, 100.0), (True, 0.0)]),
    ([r'v = 2gh', r'T = 3mg'], r'$\boxed{v = 2gh}$, $\boxed{T = 3g}$', [(True, 100.0), (False, None)]),
]


@pytest.mark.parametrize('references, response, parts', EED_AFTER_THE_TABLE)
def test_each_parts_eed_is_the_one_a_fresh_comparison_gives(references, response, parts):
    verdict = score_answer(references, response, multiple='unordered')
    got = [(p.strict, p.eed) for p in verdict.parts]
    assert [s for s, _ in got] == [s for s, _ in parts]
    for (strict, eed), (_, expected) in zip(got, parts):
        if expected is not None:
            assert eed == expected
        else:
            assert eed is not None and eed < 100.0
