"""pass@k / maj@k / G-Pass@k / mG-Pass@k from reviews: estimator values, voting, unscored attempts left out."""
import json
from math import ceil

import pytest
from scipy.stats import hypergeom

from evalscope_phys.suite.passk import (
    G_PASS_THRESHOLDS, g_pass_at_k, k_scores, k_values, majority_correct, mg_pass_at_k, pass_at_k, write_kmetrics,
)
from evalscope_phys.suite.results import SampleResult

from .synthetic import review_line, write_reviews


@pytest.mark.parametrize('n, c, k, expected', [
    (5, 2, 1, 0.4),
    (5, 2, 2, 0.7),  # 1 - C(3,2)/C(5,2)
    (5, 0, 3, 0.0),
    (5, 5, 5, 1.0),
    (4, 1, 4, 1.0),
    (10, 3, 5, 1 - 21 / 252),  # 1 - C(7,5)/C(10,5)
])
def test_pass_at_k_unbiased_estimator(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected)


def test_pass_at_k_rejects_impossible_counts():
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_k_values_are_powers_of_two_up_to_repeats():
    assert k_values(1) == [1]
    assert k_values(4) == [1, 2, 4]
    assert k_values(6) == [1, 2, 4, 6]


@pytest.mark.parametrize('attempts, expected', [
    ([('x', 1.0), ('y', 0.0), ('x', 1.0)], 1.0),
    ([('y', 0.0), ('x', 1.0), ('y', 0.0)], 0.0),
    ([('x', 1.0), ('y', 0.0)], 1.0),  # tie: the first seen answer wins
    ([('a  b', 1.0), ('a b', 1.0), ('c', 0.0)], 1.0),  # whitespace does not split a vote
    ([(None, 0.0), ('', 0.0)], 0.0),  # nothing extracted: no vote, not correct
])
def test_majority_vote(attempts, expected):
    assert majority_correct(attempts) == expected


def sample(problem, gen, values, pred='p'):
    return SampleResult('phybench', 'mechanics', problem, gen, values, pred)


def test_k_scores_skip_eed_and_unscored_attempts():
    samples = [
        sample('1', 0, {'eed': 100.0, 'strict_acc': 1.0, 'scored': 1.0}, 'a'),
        sample('1', 1, {'eed': 10.0, 'strict_acc': 0.0, 'scored': 1.0}, 'b'),
        sample('2', 0, {'eed': 0.0, 'strict_acc': 0.0, 'scored': 1.0}, 'c'),
        sample('2', 1, {'scored': 0.0}, None),  # scorer timeout: no verdict
    ]
    scores = {(s.metric, s.aggregation, s.k): s for s in k_scores(samples, repeats=2)}
    assert {m for m, _, _ in scores} == {'strict_acc'}
    assert scores[('strict_acc', 'pass_at_k', 1)].score == pytest.approx((0.5 + 0.0) / 2)
    pass2 = scores[('strict_acc', 'pass_at_k', 2)]
    assert (pass2.score, pass2.num, pass2.total) == (1.0, 1, 2)  # problem 2 has one scored attempt only
    vote2 = scores[('strict_acc', 'vote_at_k', 2)]
    assert (vote2.score, vote2.num) == (0.5, 2)


def test_write_kmetrics_file(tmp_path):
    lines = [review_line(0, {'strict_acc': 1.0, 'eed': 100.0}, 'x', group=0, generation=0),
             review_line(1, {'strict_acc': 0.0, 'eed': 20.0}, 'y', group=0, generation=1),
             review_line(2, {'strict_acc': 0.0, 'eed': 0.0}, 'z', group=1, generation=0),
             review_line(3, {'strict_acc': 0.0, 'eed': 0.0}, 'z', group=1, generation=1)]
    write_reviews(tmp_path, 'phybench', 'mechanics', lines)
    [path] = write_kmetrics(tmp_path, repeats=2)
    data = json.loads(path.read_text())
    assert path == tmp_path / 'kmetrics' / 'm' / 'phybench.json'
    got = {(m['identity']['aggregation'], m['identity']['dimensions']['k']): m['score'] for m in data['metrics']
           if m['identity']['aggregation'] in ('pass_at_k', 'vote_at_k')}
    assert got == {('pass_at_k', 1): 0.25, ('vote_at_k', 1): 0.5, ('pass_at_k', 2): 0.5, ('vote_at_k', 2): 0.5}
    # problem 0: n=2, c=1 -> G-Pass@2_tau needs ceil(2 tau) of 2 draws: tau <= 0.5 -> 1 of 2 = 1, else 2 of 2 = 0;
    # problem 1: c=0 -> 0 everywhere. Means over the two problems:
    gpass = {m['identity']['dimensions']['tau']: m['score'] for m in data['metrics']
             if m['identity']['aggregation'] == 'g_pass_at_k'}
    assert gpass == {'0.25': 0.5, '0.5': 0.5, '0.75': 0.0, '1.0': 0.0}
    [mg] = [m for m in data['metrics'] if m['identity']['aggregation'] == 'mg_pass_at_k']
    assert (mg['identity']['dimensions'], mg['score']) == ({'k': 2}, 0.0)  # (2/2) * P(2 of 2) = 0


# G-Pass@k_tau = P(X >= max(ceil(tau k), 1)) for X ~ Hypergeometric(n attempts, c correct, k drawn);
# mG-Pass@k = (2/k) * sum_{i=ceil(k/2)+1}^{k} P(X >= i)  (OpenCompass's definition).
# (n, c, k, {tau: G-Pass@k_tau}, mG-Pass@k), each worked out by hand below the table.
G_PASS_CASES = [
    # n=4, c=2, k=2: C(4,2)=6; P(X=0)=1/6, P(X=1)=C(2,1)C(2,1)/6=4/6, P(X=2)=1/6.
    # tau .25, .5 -> m=1: 5/6; tau .75, 1 -> m=2: 1/6; mG: i=2 only: (2/2)(1/6)
    (4, 2, 2, {'0.25': 5 / 6, '0.5': 5 / 6, '0.75': 1 / 6, '1.0': 1 / 6}, 1 / 6),
    # n=8, c=5, k=4: C(8,4)=70; P(X=j)=C(5,j)C(3,4-j)/70 = 5, 30, 30, 5 (/70) for j=1..4.
    # m = 1, 2, 3, 4 -> 70/70, 65/70, 35/70, 5/70; mG: i=3,4: (2/4)(35+5)/70 = 2/7
    (8, 5, 4, {'0.25': 1.0, '0.5': 65 / 70, '0.75': 35 / 70, '1.0': 5 / 70}, 2 / 7),
    # n=6, c=3, k=3: C(6,3)=20; P(X=j) = 1, 9, 9, 1 (/20) for j=0..3.
    # m = ceil(.75)=1, ceil(1.5)=2, ceil(2.25)=3, 3 -> 19/20, 10/20, 1/20, 1/20; mG: i=3: (2/3)(1/20)
    (6, 3, 3, {'0.25': 19 / 20, '0.5': 10 / 20, '0.75': 1 / 20, '1.0': 1 / 20}, 1 / 30),
    # every attempt right: every tail is 1; mG@4 = (2/4)(1 + 1)
    (4, 4, 4, {'0.25': 1.0, '0.5': 1.0, '0.75': 1.0, '1.0': 1.0}, 1.0),
    # none right: 0 everywhere
    (5, 0, 2, {'0.25': 0.0, '0.5': 0.0, '0.75': 0.0, '1.0': 0.0}, 0.0),
    # k = n: the draw is every attempt, so X = c = 3 of 4: tau <= .75 passes, tau = 1 does not; mG: i=3,4: (2/4)(1 + 0)
    (4, 3, 4, {'0.25': 1.0, '0.5': 1.0, '0.75': 1.0, '1.0': 0.0}, 0.5),
]


@pytest.mark.parametrize('n, c, k, by_tau, mg', G_PASS_CASES)
def test_g_pass_at_k_hand_values(n, c, k, by_tau, mg):
    assert {tau: g_pass_at_k(n, c, k, tau) for tau in G_PASS_THRESHOLDS} == pytest.approx(by_tau, abs=1e-12)
    assert mg_pass_at_k(n, c, k) == pytest.approx(mg, abs=1e-12)


@pytest.mark.parametrize('n', [1, 2, 5, 8, 16])
def test_g_pass_at_k_is_the_hypergeometric_tail_opencompass_uses(n):
    """The same numbers as OpenCompass's ``hypergeom.sf(m - 1, n, c, k)`` over every c, k, tau."""
    for c in range(n + 1):
        for k in range(1, n + 1):
            for tau in G_PASS_THRESHOLDS:
                m = max(ceil(float(tau) * k), 1)
                assert g_pass_at_k(n, c, k, tau) == pytest.approx(hypergeom.sf(m - 1, n, c, k), abs=1e-12)
            assert g_pass_at_k(n, c, k, '0.25') >= g_pass_at_k(n, c, k, '1.0')


def test_g_pass_at_1_is_pass_at_1():
    assert [g_pass_at_k(5, 2, 1, tau) for tau in G_PASS_THRESHOLDS] == [pytest.approx(0.4)] * 4


def test_g_pass_rejects_impossible_counts():
    with pytest.raises(ValueError):
        g_pass_at_k(2, 3, 1, '0.5')
    with pytest.raises(ValueError):
        mg_pass_at_k(2, 1, 3)


def test_k_scores_g_pass_means_over_problems():
    # A: 4 attempts, 3 right; B: 4 attempts, 1 right (C(4,2) = 6 pairs of attempts)
    samples = [sample('A', g, {'strict_acc': v}) for g, v in enumerate([1.0, 1.0, 0.0, 1.0])]
    samples += [sample('B', g, {'strict_acc': v}) for g, v in enumerate([0.0, 0.0, 0.0, 1.0])]
    scores = {(s.aggregation, s.k, s.tau): s.score for s in k_scores(samples, repeats=4)}
    # G-Pass@2_0.5 (at least 1 of 2): A 1 - C(1,2)/6 = 1, B 1 - C(3,2)/6 = 1/2 -> 3/4
    assert scores[('g_pass_at_k', 2, '0.5')] == pytest.approx(0.75)
    # G-Pass@2_1.0 (2 of 2): A C(3,2)/6 = 1/2, B 0 -> 1/4
    assert scores[('g_pass_at_k', 2, '1.0')] == pytest.approx(0.25)
    # k = n = 4 draws every attempt: at least 3 right for A only -> 1/2
    assert scores[('g_pass_at_k', 4, '0.75')] == pytest.approx(0.5)
    # mG-Pass@4: A (2/4)(P(X>=3) + P(X>=4)) = (1/2)(1 + 0), B 0 -> 1/4; mG-Pass@2: A (2/2)(1/2), B 0 -> 1/4
    assert scores[('mg_pass_at_k', 4, None)] == pytest.approx(0.25)
    assert scores[('mg_pass_at_k', 2, None)] == pytest.approx(0.25)
    assert ('g_pass_at_k', 1, '0.5') not in scores and ('mg_pass_at_k', 1, None) not in scores  # k >= 2 only
