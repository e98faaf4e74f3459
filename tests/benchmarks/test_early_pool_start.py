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
