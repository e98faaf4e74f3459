"""verl's contract: the file is loaded by path as ``custom_module`` and called with keywords, once
per response (``compute_score``) or once per batch (``compute_score_batch``, reward_manager=batch),
with ``reward_kwargs`` merged in; a dict result has the same keys and types for every response."""
from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

import evalscope_phys.reward.verl as verl_entry


@pytest.fixture(scope='module')
def custom_module():
    """The module as verl's get_custom_reward_fn loads it (by path, under another name)."""
    spec = importlib.util.spec_from_file_location('custom_module', verl_entry.__file__)
    module = importlib.util.module_from_spec(spec)
    sys.modules['custom_module'] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop('custom_module', None)


def test_compute_score_as_the_naive_manager_calls_it(custom_module):
    right = custom_module.compute_score(data_source='phybench', solution_str=r'so \boxed{2}', ground_truth='2',
                                        extra_info={'index': 0, 'num_turns': None})
    wrong = custom_module.compute_score(data_source='phybench', solution_str=r'\boxed{3}', ground_truth='2',
                                        extra_info=None)
    assert right['score'] == 1.0 and right['strict'] is True and right['scored'] is True
    assert wrong['score'] == 0.0 and wrong['strict'] is False
    assert set(right) == set(wrong) == {'score', 'strict', 'lenient', 'scored', 'reason'}


def test_reward_kwargs_and_unknown_keywords_are_accepted(custom_module):
    def wrapped(*args, **kwargs):  # what verl's _call_with_kwargs does with reward_kwargs
        return custom_module.compute_score(*args, **{**kwargs, 'mode': 'lenient', 'future_option': 1})

    result = wrapped(data_source='x', solution_str=r'\boxed{100.5}', ground_truth='100', extra_info={})
    assert result['score'] == 1.0 and result['strict'] is False and result['lenient'] is True


def test_extra_info_carries_the_row_unit_and_tolerance(custom_module):
    assert custom_module.compute_score('x', r'\boxed{200\,\text{cm}}', '2', {'unit': 'm'})['score'] == 1.0
    assert custom_module.compute_score('x', r'\boxed{130}', '100', {'tolerance': 0.5}, mode='lenient')['score'] == 1.0
    assert custom_module.compute_score('x', r'\boxed{130}', '100', {'tolerance': 'n/a'}, mode='lenient')['score'] == 0.0


def test_compute_score_batch_as_the_batch_manager_calls_it(custom_module):
    n = 5
    results = custom_module.compute_score_batch(
        data_sources=np.array(['phybench'] * n, dtype=object),
        solution_strs=[r'\boxed{2}', r'\boxed{3}', r'\boxed{2}', '', r'\boxed{2\,\text{m}}'],
        ground_truths=np.array(['2', '2', '2', '2', '2'], dtype=object),
        extra_infos=np.array([None, {}, {'index': 2}, None, {'unit': 'm'}], dtype=object),
        mode='binary')
    assert [r['score'] for r in results] == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert all(set(r) == {'score', 'strict', 'lenient', 'scored', 'reason'} for r in results)


def test_a_list_answer_arriving_as_a_numpy_array(custom_module):
    results = custom_module.compute_score_batch(['x'], [r'\boxed{2}, \boxed{3}'], [np.array(['2', '3'])], None)
    assert results[0]['score'] == 1.0


def test_compute_score_async_as_the_reward_loop_awaits_it(custom_module):
    import asyncio
    import inspect

    assert inspect.iscoroutinefunction(custom_module.compute_score_async)  # how the loop tells async apart

    async def step():
        return await asyncio.gather(*(
            custom_module.compute_score_async(data_source='phybench', solution_str=text, ground_truth='2',
                                              extra_info={'unit': None}, reward_router_address=None,
                                              reward_model_tokenizer=None, mode='binary')
            for text in (r'\boxed{2}', r'\boxed{3}')))

    right, wrong = asyncio.run(step())
    assert (right['score'], wrong['score']) == (1.0, 0.0)
    assert set(right) == set(wrong) == {'score', 'strict', 'lenient', 'scored', 'reason'}
