"""A comparison's distance is computed only where a verdict keeps it, and is the same either way."""
import pytest

from evalscope_phys.scoring.compare import answers
from evalscope_phys.scoring.compare.answers import Options, compare, compared
from evalscope_phys.scoring.compare.memo import remembering
from evalscope_phys.scoring.compare.pending_eed import PendingEed, mean, settled
from evalscope_phys.scoring.read.reading import read_answer

PAIRS = [
    (r'v = \sqrt{2gh}', r'v = \sqrt{3gh}'),        # a rejected definition: a distance below 100
    (r'T = 2mg', r'T = mg + mg'),                   # strict: 100
    (r'x^2 + y^2 = R^2', r'x^2 = R^2 - y^2 + 1'),  # a rejected relation
    (r'3\,\text{m/s}', r'3.1\,\text{m/s}'),         # within tolerance
    (r'\frac{a}{b}', r'\frac{b}{a}'),
]


@pytest.mark.parametrize('reference,answer', PAIRS)
def test_the_distance_kept_is_the_one_computed_at_once(reference, answer):
    ref, ans = read_answer(reference), read_answer(answer)
    with remembering():
        fresh = compare(ref, ans, Options(eed=True))
    with remembering():
        quiet = compare(ref, ans, Options(eed=False))
        later = compare(ref, ans, Options(eed=True))
    assert quiet.eed is None and fresh.eed is not None
    assert later == fresh
    assert (quiet.strict, quiet.lenient, quiet.reason) == (fresh.strict, fresh.lenient, fresh.reason)


def test_a_pair_compared_without_eed_is_not_compared_again_for_it(monkeypatch):
    calls = []
    real = answers._dispatch
    monkeypatch.setattr(answers, '_dispatch', lambda *a: calls.append(a) or real(*a))
    ref, ans = read_answer(r'v = \sqrt{2gh}'), read_answer(r'v = \sqrt{3gh}')
    with remembering():
        compare(ref, ans, Options(eed=False))
        before = len(calls)
        assert compare(ref, ans, Options(eed=True)).eed < 100
    assert before > 0 and len(calls) == before


def test_an_outcome_inside_a_comparison_keeps_its_distance_pending():
    outcome = compared(read_answer(r'v = \sqrt{2gh}'), read_answer(r'v = \sqrt{3gh}'), Options(eed=False))
    assert isinstance(outcome.eed, PendingEed)
    assert settled(outcome, eed=False).eed is None
    assert 0 <= settled(outcome, eed=True).eed < 100


def test_a_mean_is_pending_while_a_term_is_and_settles_to_the_same_sum():
    assert mean([100.0, 50.0], 3) == 50.0
    outcome = compared(read_answer(r'v = \sqrt{2gh}'), read_answer(r'v = \sqrt{3gh}'), Options(eed=False))
    pending = mean([100.0, outcome.eed], 2)
    assert isinstance(pending, PendingEed)
    whole = settled(answers.Outcome(False, False, 'not_equivalent', pending), eed=True)
    assert whole.eed == (100.0 + settled(outcome, eed=True).eed) / 2
