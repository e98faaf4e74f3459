"""Every benchmark finds its data the same way: a missing `local_path` or an unreachable hub is one
quick error that says what to do, never minutes of retries or an empty run."""
import time

import pytest
from conftest import benchmark_adapter, load_subsets

from evalscope_phys.benchmarks.base import DatasetUnavailableError
from evalscope_phys.registration import BENCHMARK_MODULES

#: released only to their authors: no hub copy, so `local_path` is the only way in
LOCAL_ONLY = {'omniphys'}
HUB_BACKED = sorted(set(BENCHMARK_MODULES) - LOCAL_ONLY)


@pytest.mark.parametrize('name', sorted(BENCHMARK_MODULES))
def test_a_local_path_that_does_not_exist_is_named_in_the_error(name, tmp_path):
    with pytest.raises(DatasetUnavailableError, match='local_path'):
        load_subsets(name, tmp_path / 'nowhere')


@pytest.mark.parametrize('name', HUB_BACKED)
def test_an_unreachable_hub_fails_fast_naming_local_path(name, monkeypatch):
    monkeypatch.setenv('MODELSCOPE_DOMAIN', 'http://127.0.0.1:9')  # nothing listens on the discard port
    start = time.monotonic()
    with pytest.raises(DatasetUnavailableError, match=rf'unreachable.*dataset_args\.{name}\.local_path'):
        benchmark_adapter(name).load_dataset()
    assert time.monotonic() - start < 10


@pytest.mark.parametrize('name', sorted(LOCAL_ONLY))
def test_without_local_path_a_local_only_benchmark_fails_at_once(name):
    start = time.monotonic()
    with pytest.raises(DatasetUnavailableError, match=rf'not public.*dataset_args\.{name}\.local_path'):
        benchmark_adapter(name).load_dataset()
    assert time.monotonic() - start < 2  # no hub probe: there is no hub copy
