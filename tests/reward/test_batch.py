"""``batch_rewards``: the same rewards as one at a time, repeats scored once, work spread over threads."""
from __future__ import annotations

import threading

import pytest

import evalscope_phys.reward.batch as batch_module
from evalscope_phys.reward import (batch_rewards, batch_scores, physics_reward, reset_unscored_counts,
                                   unscored_counts)

RESPONSES = [r'\boxed{2}', r'\boxed{3}', r'\boxed{2}', 'no idea', r'x = \boxed{4}', r'\boxed{3}', r'\boxed{2}', r'\boxed{5}']
REFERENCES = ['2', '2', '2', '2', '4', '2', '2', '4']


def test_batch_rewards_equal_one_at_a_time_rewards_in_order():
    expected = [physics_reward(r, g) for r, g in zip(RESPONSES, REFERENCES)]
    assert expected == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert batch_rewards(RESPONSES, REFERENCES) == expected
    assert batch_rewards(RESPONSES, REFERENCES, threads=1) == expected


def test_identical_items_are_scored_once(monkeypatch):
    calls = []
    real = batch_module.score_completion

    def counting(response, reference, **options):
        calls.append((response, reference))
        return real(response, reference, **options)

    monkeypatch.setattr(batch_module, 'score_completion', counting)
    rewards = batch_rewards(RESPONSES, REFERENCES)
    assert len(rewards) == len(RESPONSES)
    assert sorted(calls) == sorted(set(zip(RESPONSES, REFERENCES)))  # 5 distinct of 8


def test_the_same_response_against_another_reference_or_unit_is_another_item():
    rewards = batch_rewards([r'\boxed{2}'] * 3, ['2', '3', '2'], units=[None, None, 'm'])
    assert rewards == [1.0, 0.0, 1.0]


def test_distinct_items_are_scored_concurrently(monkeypatch):
    # Two items must be in flight at once: each waits for the other at a barrier (which breaks,
    # failing the test, if the batch scored them one after the other).
    barrier = threading.Barrier(2, timeout=60)
    real = batch_module.score_completion

    def meeting(response, reference, **options):
        barrier.wait()
        return real(response, reference, **options)

    monkeypatch.setattr(batch_module, 'score_completion', meeting)
    assert batch_rewards([r'\boxed{2}', r'\boxed{3}'], ['2', '2'], threads=2) == [1.0, 0.0]


def test_list_references_and_unhashable_responses_are_accepted():
    scores = batch_scores([r'\boxed{2}, \boxed{3}', {'odd': 'object'}], [['2', '3'], '2'])
    assert [s.score for s in scores] == [1.0, 0.0]


@pytest.mark.parametrize('kwargs, message', [
    ({'references': ['2']}, 'references has 1 items for 2 responses'),
    ({'references': ['2', '2'], 'units': 'm'}, 'units must be a sequence'),
    ({'references': ['2', '2'], 'tolerances': [0.1]}, 'tolerances has 1 items'),
    ({'references': ['2', '2'], 'threads': 0}, 'threads'),
])
def test_mismatched_inputs_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        batch_rewards([r'\boxed{2}', r'\boxed{3}'], **kwargs)


def test_every_unscored_completion_is_counted_repeats_too():
    reset_unscored_counts()
    assert batch_rewards([r'\boxed{2}'] * 3 + [r'\boxed{2}'], ['', '', '', '2']) == [0.0, 0.0, 0.0, 1.0]
    assert sum(unscored_counts().values()) == 3


def test_an_empty_batch_is_empty():
    assert batch_rewards([], []) == []


def test_the_batch_reports_its_unscored_share():
    rewards = batch_scores([r'\boxed{2}', r'\boxed{2}', r'\boxed{2}', r'\boxed{3}'], ['2', '', '2', '2'])
    assert [r.score for r in rewards] == [1.0, 0.0, 1.0, 0.0]
    assert rewards.unscored == 1 and rewards.unscored_share == 0.25
    assert batch_scores([], []).unscored_share == 0.0
