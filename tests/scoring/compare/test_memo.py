"""Comparisons are remembered within one job, and only there."""
import threading

import pytest

from evalscope_phys.scoring.compare.memo import remembered, remembering


class Counting:
    def __init__(self):
        self.calls = 0

    def __call__(self, reference, answer):
        self.calls += 1
        if answer == 'raise':
            raise ValueError(answer)
        return (reference, answer, self.calls)


def test_a_repeat_within_a_job_is_not_compared_again():
    compare = Counting()
    with remembering():
        first = remembered(compare, 'x', 'y')
        assert remembered(compare, 'x', 'y') is first
        remembered(compare, 'x', 'z')
    assert compare.calls == 2


def test_nothing_is_remembered_outside_a_job_or_across_jobs():
    compare = Counting()
    remembered(compare, 'x', 'y')
    remembered(compare, 'x', 'y')
    with remembering():
        remembered(compare, 'x', 'y')
    with remembering():
        remembered(compare, 'x', 'y')
    assert compare.calls == 4


def test_an_exception_is_raised_again_not_remembered():
    compare = Counting()
    with remembering():
        for _ in range(2):
            with pytest.raises(ValueError):
                remembered(compare, 'x', 'raise')
    assert compare.calls == 2


def test_an_unhashable_key_is_compared_every_time():
    compare = Counting()
    with remembering():
        remembered(compare, 'x', ['y'])
        remembered(compare, 'x', ['y'])
    assert compare.calls == 2


def test_another_thread_does_not_share_the_jobs_memory():
    compare = Counting()
    with remembering():
        remembered(compare, 'x', 'y')
        worker = threading.Thread(target=remembered, args=(compare, 'x', 'y'))
        worker.start()
        worker.join()
    assert compare.calls == 2
