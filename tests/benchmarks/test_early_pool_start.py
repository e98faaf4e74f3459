"""Every adapter's ``load()`` starts booting the scoring workers, so no answer waits for them."""
import pytest

from conftest import BenchmarkSetup
from evalscope_phys.scoring.run import pool

NAMES = ['phybench', 'olympiadbench_physics', 'physics_yale', 'ugphysics', 'cmphysbench', 'physreason']


@pytest.mark.parametrize('name', NAMES)
def test_loading_the_dataset_starts_the_scoring_workers(name):
    pool.configure_pool(1)  # a fresh pool that has not started
    assert not pool.get_pool().boot_started.is_set()
    bench = BenchmarkSetup(name)
    subsets = bench.load(bench.sample)
    assert any(subsets.values())
    assert pool.get_pool().boot_started.is_set()  # the boot began while the dataset was read
    assert pool.start_pool(wait=True) is None  # and it boots


# --- as the run begins, before EvalScope's own set-up -------------------------------------------

def test_a_native_run_of_our_benchmark_starts_the_boot_as_it_begins():
    from types import SimpleNamespace

    from evalscope_phys.benchmarks.scoring_start import start_for_run

    pool.configure_pool(1)
    assert start_for_run(SimpleNamespace(datasets=['gsm8k', 'phybench'], eval_backend='Native')) is True
    assert pool.get_pool().boot_started.is_set()
    assert pool.start_pool(wait=True) is None


@pytest.mark.parametrize('datasets, backend', [(['gsm8k'], 'Native'), ([], 'Native'), (None, 'Native'),
                                               (['phybench'], 'OpenCompass'), ('gsm8k', None)])
def test_a_run_without_our_benchmarks_or_not_native_starts_nothing(datasets, backend):
    from types import SimpleNamespace

    from evalscope_phys.benchmarks.scoring_start import start_for_run

    pool.configure_pool(1)
    assert start_for_run(SimpleNamespace(datasets=datasets, eval_backend=backend)) is False
    assert not pool.get_pool().boot_started.is_set()


def test_the_run_hook_calls_ours_first_never_twice_and_a_failure_never_stops_the_run():
    from types import ModuleType

    from evalscope_phys import compat

    calls = []
    module = ModuleType('fake_evalscope_run')

    def run_single_task(task_cfg):
        calls.append(('run', task_cfg))
        return 'report'

    module.run_single_task = run_single_task
    compat.before_each_run(module, lambda cfg: calls.append(('before', cfg)))
    compat.before_each_run(module, lambda cfg: calls.append(('again', cfg)))  # already wrapped: nothing
    assert module.run_single_task('cfg') == 'report'
    assert calls == [('before', 'cfg'), ('run', 'cfg')]

    def broken(cfg):
        raise RuntimeError('no pool today')

    failing = ModuleType('fake_evalscope_run_2')
    failing.run_single_task = run_single_task
    compat.before_each_run(failing, broken)
    calls.clear()
    with pytest.warns(UserWarning, match='no pool today'):
        assert failing.run_single_task('cfg') == 'report'
    assert calls == [('run', 'cfg')]
