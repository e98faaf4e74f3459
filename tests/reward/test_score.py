"""``physics_reward``: binary by default, lenient and EED on request, the format term as an ablation,
and unscored answers earning 0.0 and counted instead of raising."""
from __future__ import annotations

import pytest

from evalscope_phys.reward import (UNSCORED_REWARD, physics_reward, reset_unscored_counts, score_completion,
                                   unscored_counts)

# (response, reference, mode, expected reward): cases whose truth is plain arithmetic
CASES = [
    (r'so the speed is \boxed{2}', '2', 'binary', 1.0),
    (r'\boxed{3}', '2', 'binary', 0.0),
    (r'\boxed{100.5}', '100', 'binary', 0.0),     # 0.5 % off: not equal ...
    (r'\boxed{100.5}', '100', 'lenient', 1.0),    # ... but within the 1 % lenient tolerance
    (r'\boxed{130}', '100', 'lenient', 0.0),
    (r'\boxed{2}', '2', 'eed', 1.0),
    ('I could not finish.', '2', 'binary', 0.0),
    ('', '2', 'binary', 0.0),
]


@pytest.mark.parametrize('response, reference, mode, expected', CASES)
def test_reward_by_mode(response, reference, mode, expected):
    assert physics_reward(response, reference, mode=mode) == expected


def test_eed_mode_gives_partial_credit_below_one_for_a_wrong_answer():
    value = physics_reward(r'\boxed{\frac{m g}{3}}', r'\frac{m g}{2}', mode='eed')
    assert 0.0 <= value < 1.0


def test_a_unit_kept_apart_by_the_dataset_is_the_reference_unit():
    assert physics_reward(r'\boxed{200\,\text{cm}}', '2', unit='m') == 1.0
    assert physics_reward(r'\boxed{3\,\text{m}}', '2', unit='m') == 0.0


@pytest.mark.parametrize('response, expected', [
    (r'\boxed{2}', 1.0),            # right and boxed
    ('Final answer: 2', 0.8),       # right, no box
    (r'\boxed{3}', 0.2),            # wrong, boxed
    ('Final answer: 3', 0.0),
])
def test_format_term_is_an_ablation_weighted_in(response, expected):
    assert physics_reward(response, '2', format_weight=0.2) == pytest.approx(expected)
    assert physics_reward(response, '2') == (1.0 if '2' in response else 0.0)  # off by default


def test_unscored_answers_earn_the_documented_reward_and_are_counted():
    reset_unscored_counts()
    reward = score_completion(r'\boxed{2}', r'\frac{a}{')  # a reference the engine cannot read: ours to fix
    assert reward.score == UNSCORED_REWARD == 0.0
    assert not reward.verdict.scored
    assert physics_reward(r'\boxed{2}', '') == UNSCORED_REWARD  # an empty reference too
    counts = unscored_counts()
    assert sum(counts.values()) == 2, counts
    assert reward.verdict.reason in counts


def test_an_oversized_completion_is_the_models_failure_not_unscored():
    reset_unscored_counts()
    reward = score_completion(r'\boxed{2}' + ' ' * 1_000_001, '2')  # beyond what the engine will read
    assert reward.score == 0.0 and reward.verdict.scored and reward.verdict.reason == 'answer_too_large'
    assert sum(unscored_counts().values()) == 0


def test_bad_completions_never_raise():
    for response in (None, b'\xff\xfe\\boxed{2}', 12, '\\boxed{', '}' * 500, '\x00'):
        assert physics_reward(response, '2') in (0.0, 1.0)


def test_a_misconfigured_reward_is_an_error():
    with pytest.raises(ValueError, match='mode'):
        physics_reward(r'\boxed{2}', '2', mode='dense')
    with pytest.raises(ValueError, match='format_weight'):
        physics_reward(r'\boxed{2}', '2', format_weight=1.5)


def test_to_dict_has_the_same_keys_and_types_for_scored_and_unscored():
    scored = score_completion(r'\boxed{2}', '2').to_dict()
    unscored = score_completion(r'\boxed{2}', '').to_dict()
    assert scored == {'score': 1.0, 'strict': True, 'lenient': True, 'scored': True, 'reason': scored['reason']}
    assert set(unscored) == set(scored)
    assert {k: type(v) for k, v in unscored.items()} == {k: type(v) for k, v in scored.items()}
    assert unscored['scored'] is False and unscored['strict'] is False


def _verdict_of(reason):
    from evalscope_phys.scoring.verdict import Verdict
    scored = reason == 'equivalent'
    return Verdict(eed=None, strict=True if scored else None, lenient=True if scored else None, reason=reason,
                   extracted=None, seconds=0.0)


@pytest.mark.parametrize('first, calls, reward', [
    ('timeout', 2, 1.0), ('worker_crashed', 2, 1.0), ('input_too_large', 1, 0.0), ('equivalent', 1, 1.0)])
def test_a_timed_out_or_crashed_completion_is_retried_once_with_a_fresh_budget(monkeypatch, first, calls, reward):
    import evalscope_phys.reward.score as score_module
    seen = []

    def engine(reference, response, **options):
        seen.append(options)
        return _verdict_of(first if len(seen) == 1 else 'equivalent')

    monkeypatch.setattr(score_module, 'score_answer', engine)
    assert physics_reward(r'\boxed{2}', '2', timeout=1.5) == reward
    assert len(seen) == calls
    assert all(o['timeout'] == 1.5 and o['wait'] > 0 for o in seen)  # the budget is fresh each time
