"""Every benchmark finds its data the same way: a missing `local_path` or an unreachable hub is one
quick error that says what to do, never minutes of retries or an empty run."""
import time

import pytest
from conftest import benchmark_adapter, load_subsets, run_evalscope_eval

from evalscope_phys.benchmarks.base import DatasetArgsError, DatasetUnavailableError
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


@pytest.mark.parametrize('name', sorted(BENCHMARK_MODULES))
def test_a_misspelt_dataset_args_key_is_refused_naming_the_closest_one(name, tmp_path):
    """``localpath`` used to be dropped by EvalScope, and the run fell back to the hub copy."""
    with pytest.raises(DatasetArgsError, match=rf"dataset_args\.{name}: 'localpath' \(did you mean local_path\?\)"):
        benchmark_adapter(name, {'localpath': str(tmp_path)}).load_dataset()


def test_evalscope_eval_refuses_a_misspelt_key_in_one_line(tmp_path):
    """Through the user's own command: one line, exit non-zero, no hub probe, no evaluation."""
    work = tmp_path / 'run'
    done = run_evalscope_eval('http://127.0.0.1:9/v1', ['phybench'], {'phybench': {'localpath': str(tmp_path)}}, work,
                              timeout=300)
    assert done.process.returncode != 0
    assert ("evalscope-phys: unknown key(s) in dataset_args.phybench: 'localpath' (did you mean local_path?)"
            in done.process.stderr)
    assert 'Traceback' not in done.process.stderr


def test_evalscope_own_dataset_args_keys_stay_valid(tmp_path):
    sample = tmp_path / 'p.json'
    sample.write_text('[]')
    with pytest.raises(DatasetUnavailableError):  # past the key check: the file has no problems to evaluate
        benchmark_adapter('phybench', {'local_path': str(sample), 'subset_list': ['mechanics'], 'few_shot_num': 0,
                                       'filters': {}, 'system_prompt': 's', 'shuffle': False}).load_dataset()
