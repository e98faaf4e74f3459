"""The TRL reward function without a trainer: completions plain or conversational, the reference
column found or named, unit and tolerance columns, TRL's logging hooks."""
from __future__ import annotations

import pickle

import pytest

from evalscope_phys.reward import score_completion
from evalscope_phys.reward.trl import completion_text, make_physics_reward_func, physics_reward_func

PLAIN = [r'\boxed{2}', r'\boxed{3}']
CONVERSATIONAL = [[{'role': 'assistant', 'content': r'\boxed{2}'}],
                  [{'role': 'assistant', 'content': [{'type': 'text', 'text': r'\boxed{3}'}]}]]


@pytest.mark.parametrize('completions', [PLAIN, CONVERSATIONAL], ids=['plain', 'conversational'])
@pytest.mark.parametrize('column', ['solution', 'ground_truth'])
def test_reference_from_solution_or_ground_truth(completions, column):
    assert physics_reward_func(completions, prompts=['q', 'q'], **{column: ['2', '2']}) == [1.0, 0.0]


def test_completion_text_takes_the_last_assistant_message():
    conversation = [{'role': 'user', 'content': r'is it \boxed{3}?'}, {'role': 'assistant', 'content': 'first'},
                    {'role': 'assistant', 'content': r'\boxed{2}'}]
    assert completion_text(conversation) == r'\boxed{2}'
    assert completion_text({'role': 'assistant', 'content': 'x'}) == 'x'
    assert completion_text(None) == '' and completion_text([]) == ''


def test_a_named_column_mode_and_unit_column():
    reward = make_physics_reward_func('answer', mode='lenient', name='physics_lenient')
    assert reward.__name__ == 'physics_lenient'
    assert reward([r'\boxed{100.5}', r'\boxed{200\,\text{cm}}'], answer=['100', '2'], unit=[None, 'm']) == [1.0, 1.0]
    assert reward([r'\boxed{130}'], answer=['100'], tolerance=[0.5]) == [1.0]


def test_a_missing_reference_column_says_which_columns_there_are():
    with pytest.raises(KeyError, match="no reference column 'solution' or 'ground_truth'.*columns passed: answer"):
        physics_reward_func(PLAIN, prompts=['q', 'q'], answer=['2', '2'], trainer_state=None)


def test_trl_logging_hooks_receive_the_unscored_share_and_reasons():
    metrics, extra = {}, {}
    rewards = physics_reward_func([r'\boxed{2}', r'\boxed{2}'], solution=['2', ''],
                                  log_metric=lambda name, value: metrics.setdefault(name, value),
                                  log_extra=lambda column, values: extra.setdefault(column, values))
    assert rewards == [1.0, 0.0]
    assert metrics == {'physics_reward_func/unscored': 0.5}
    unscored = score_completion(r'\boxed{2}', '').verdict
    assert not unscored.scored
    assert extra['physics_reward_func_reason'][1] == unscored.reason


def test_the_reward_function_pickles():
    reward = pickle.loads(pickle.dumps(make_physics_reward_func('answer', mode='eed')))
    assert reward.mode == 'eed' and reward([r'\boxed{2}'], answer=['2']) == [1.0]
    assert pickle.loads(pickle.dumps(physics_reward_func)) is physics_reward_func


def test_every_keyword_trl_1_16_passes_is_accepted_and_the_rewards_stay_right():
    # GRPOTrainer 1.16 calls reward_func(prompts=, completions=, completion_ids=, trainer_state=, log_extra=,
    # log_metric=, **dataset columns); the trainer's own keywords are not dataset columns
    class State:
        global_step = 3

    metrics = {}
    rewards = physics_reward_func(completions=[r'\boxed{2}', r'\boxed{3}'], prompts=['q', 'q'],
                                  completion_ids=[[1, 2], [3]], trainer_state=State(), solution=['2', '2'],
                                  log_metric=lambda name, value: metrics.setdefault(name, value),
                                  log_extra=lambda column, values: None)
    assert rewards == [1.0, 0.0]
    assert metrics == {'physics_reward_func/unscored': 0.0}
