"""pass@k / maj@k from reviews: estimator values, voting, and unscored attempts left out."""
import json

import pytest

from evalscope_phys.suite.passk import k_scores, k_values, majority_correct, pass_at_k, write_kmetrics
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
    got = {(m['identity']['aggregation'], m['identity']['dimensions']['k']): m['score'] for m in data['metrics']}
    assert got == {('pass_at_k', 1): 0.25, ('vote_at_k', 1): 0.5, ('pass_at_k', 2): 0.5, ('vote_at_k', 2): 0.5}
