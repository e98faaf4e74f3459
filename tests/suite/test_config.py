"""Suite YAML -> TaskConfig dicts: dataset_args resolution, seeds, secrets kept out, dry run."""
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalscope_phys.suite.config import (
    Endpoint, SuiteConfigError, build_task_configs, endpoint_from, load_suite, pick_seeds,
)

REPO = Path(__file__).resolve().parents[2]


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data), encoding='utf-8')
    return path


@pytest.fixture
def yamls(tmp_path):
    write(tmp_path / 'datasets' / 'phybench.yaml', {'phybench': {'local_path': '/data/p.json', 'subset_list': ['optics']}})
    write(tmp_path / 'datasets' / 'ugphysics.yaml', {'ugphysics': {'local_path': '/data/ug'}})
    return tmp_path


def suite_file(root: Path, **data) -> Path:
    base = {'name': 's', 'datasets': ['phybench', 'ugphysics'], 'generation': {'temperature': 0.6},
            'seeds': [0, 1, 2], 'judge': {'strategy': 'rule'}}
    base.update(data)
    return write(root / 'suites' / 's.yaml', base)


def test_dataset_args_come_from_dataset_yamls_with_suite_overrides(yamls):
    suite = load_suite(suite_file(yamls, dataset_args={'phybench': {'subset_list': ['mechanics']}}))
    assert suite.dataset_args == {'phybench': {'local_path': '/data/p.json', 'subset_list': ['mechanics']},
                                  'ugphysics': {'local_path': '/data/ug'}}
    assert suite.seeds == (0, 1, 2)


def test_one_task_config_per_seed_with_seed_in_generation(yamls, tmp_path):
    suite = load_suite(suite_file(yamls, model_args={'max_retries': 0}))
    model = Endpoint(model='qwen', api_url='http://127.0.0.1:1/v1', api_key='k')
    configs = build_task_configs(suite, model, tmp_path / 'out', pick_seeds(suite, 2), limit=5)
    assert [seed for seed, _ in configs] == [0, 1]
    seed, cfg = configs[1]
    assert cfg['generation_config'] == {'temperature': 0.6, 'seed': 1}
    assert cfg['seed'] == 1 and cfg['limit'] == 5 and cfg['no_timestamp'] is True
    assert cfg['work_dir'] == str(tmp_path / 'out' / 'seed_1')
    assert cfg['datasets'] == ['phybench', 'ugphysics']
    assert cfg['api_url'] == 'http://127.0.0.1:1/v1' and cfg['eval_type'] == 'openai_api'
    assert cfg['judge'] == {'strategy': 'rule'}
    assert cfg['model_args'] == {'max_retries': 0}


def test_pick_seeds_extends_a_short_list():
    suite = type('S', (), {'seeds': (5, 7)})()
    assert pick_seeds(suite, None) == (5, 7)
    assert pick_seeds(suite, 1) == (5, )
    assert pick_seeds(suite, 4) == (5, 7, 0, 1)


@pytest.mark.parametrize('extra, message', [
    ({'api_key': 'sk-1'}, 'api_key is not allowed'),
    ({'model': 'gpt'}, 'model is not allowed'),
    ({'judge': {'strategy': 'llm', 'models': [{'model_id': 'j'}]}}, 'judge.models is not allowed'),
    ({'judge': {'strategy': 'llm', 'contract': {}}}, 'judge may only set'),
    ({'generation': {'api_url': 'http://x'}}, 'generation.api_url is not allowed'),
    ({'datsets': ['x']}, 'unknown key'),
    ({'datasets': ['phybench', 'phybench']}, 'twice'),
    ({'datasets': ['nobench']}, "unknown benchmark 'nobench'"),
    ({'datasets': ['phybenchh']}, "unknown benchmark 'phybenchh'; did you mean 'phybench'"),
    ({'seeds': [1, 1]}, 'seeds repeat'),
    ({'dataset_args': {'other': {}}}, 'keyed by listed datasets'),
    ({'judge': {'scope': 'most'}}, 'judge.scope must be one of undecided, rejected, all'),
    ({'judge': {'selftest_min': 95}}, 'selftest_min must be a number from 0 to 1'),
])
def test_bad_suites_are_rejected_with_the_file_named(yamls, extra, message):
    path = suite_file(yamls, **extra)
    with pytest.raises(SuiteConfigError, match=message) as info:
        load_suite(path)
    assert str(yamls) in str(info.value)


def test_llm_judge_needs_a_judge_endpoint(yamls, tmp_path):
    suite = load_suite(suite_file(yamls, judge={'strategy': 'llm', 'generation_config': {'temperature': 0}}))
    model = Endpoint(model='m')
    with pytest.raises(SuiteConfigError, match='--judge-model'):
        build_task_configs(suite, model, tmp_path, (0, ))
    judge = Endpoint(model='judge', api_url='http://127.0.0.1:2/v1', api_key='jk')
    [(_, cfg)] = build_task_configs(suite, model, tmp_path, (0, ), judge=judge)
    assert cfg['judge'] == {'strategy': 'llm', 'models': [
        {'model_id': 'judge', 'api_url': 'http://127.0.0.1:2/v1', 'api_key': 'jk', 'generation_config': {'temperature': 0}}]}


def test_endpoint_falls_back_to_environment(monkeypatch):
    monkeypatch.setenv('EVALSCOPE_PHYS_MODEL', 'env-model')
    monkeypatch.setenv('EVALSCOPE_PHYS_API_KEY', 'env-key')
    assert endpoint_from(None, None, None) == Endpoint(model='env-model', api_url=None, api_key='env-key')
    assert endpoint_from('flag', 'http://u', 'k').model == 'flag'
    monkeypatch.delenv('EVALSCOPE_PHYS_MODEL')
    assert endpoint_from(None, None, None) is None


def test_repo_suites_resolve_against_the_repo_dataset_yamls(tmp_path):
    paths = sorted((REPO / 'yamls' / 'suites').glob('*.yaml'))
    assert [p.stem for p in paths] == ['all', 'baselines', 'text', 'vision']
    for path in paths:
        suite = load_suite(path)
        configs = build_task_configs(suite, Endpoint('m', 'http://127.0.0.1:1/v1'), tmp_path, pick_seeds(suite, None))
        assert [seed for seed, _ in configs] == [0, 1, 2], path
        assert set(configs[0][1]['dataset_args']) == set(suite.datasets)
    everything = load_suite(REPO / 'yamls' / 'suites' / 'all.yaml')
    assert everything.dataset_args['olympiadbench_physics']['subset_list'] == ['text_only', 'with_images']


def test_dry_run_prints_validated_task_configs_without_secrets(yamls, tmp_path):
    path = suite_file(yamls)
    out = tmp_path / 'never_created'
    result = subprocess.run(
        [sys.executable, '-m', 'evalscope_phys.cli', 'suite', 'run', str(path), '--model', 'qwen', '--api-url',
         'http://127.0.0.1:9/v1', '--seeds', '2', '--limit', '3', '--work-dir', str(out), '--dry-run'],
        capture_output=True, text=True, timeout=120, env={**__import__('os').environ, 'EVALSCOPE_PHYS_API_KEY': 'sekrit'})
    assert result.returncode == 0, result.stderr
    docs = list(yaml.safe_load_all(result.stdout))
    assert [d['seed'] for d in docs] == [0, 1]
    assert docs[1]['generation_config']['seed'] == 1 and docs[1]['limit'] == 3
    assert docs[0]['dataset_args']['phybench']['subset_list'] == ['optics']
    assert docs[0]['work_dir'] == str(out / 'seed_0')
    assert 'sekrit' not in result.stdout
    assert not out.exists()


def test_cli_reports_config_errors(yamls):
    result = subprocess.run([sys.executable, '-m', 'evalscope_phys.cli', 'suite', 'run',
                             str(suite_file(yamls, api_key='x')), '--model', 'm', '--dry-run'],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and 'api_key is not allowed' in result.stderr


def test_repeats_leave_the_sampling_seed_out(yamls, tmp_path):
    """With a fixed sampling seed every repeat of a problem would get the same answer."""
    suite = load_suite(suite_file(yamls, repeats=4))
    [(_, cfg)] = build_task_configs(suite, Endpoint('m'), tmp_path, (3, ))
    assert cfg['repeats'] == 4 and cfg['seed'] == 3
    assert cfg['generation_config'] == {'temperature': 0.6}


def test_a_packaged_suite_is_found_by_name():
    from evalscope_phys.resources import resource_dir

    suite = load_suite('text')
    assert Path(suite.source) == resource_dir('yamls') / 'suites' / 'text.yaml'
    assert suite.datasets == ('phybench', 'physolym', 'olympiadbench_physics', 'ugphysics', 'physreason')
    with pytest.raises(SuiteConfigError, match='not the name of a packaged suite .*all, baselines, text, vision'):
        load_suite('txet')


def test_dataset_yamls_next_to_the_suite_in_datasets_dir_or_from_the_package(tmp_path):
    alone = write(tmp_path / 'anywhere' / 'mine.yaml', {'datasets': ['phybench', 'ugphysics']})
    write(tmp_path / 'anywhere' / 'phybench.yaml', {'phybench': {'local_path': '/next/to/suite.json'}})
    suite = load_suite(alone)
    assert suite.dataset_args['phybench'] == {'local_path': '/next/to/suite.json'}
    packaged = yaml.safe_load((REPO / 'yamls' / 'datasets' / 'ugphysics.yaml').read_text())['ugphysics']
    assert suite.dataset_args['ugphysics'] == packaged, 'no YAML beside the suite: the packaged one'
    write(tmp_path / 'mine' / 'phybench.yaml', {'phybench': {'local_path': '/from/datasets_dir.json'}})
    assert load_suite(alone, tmp_path / 'mine').dataset_args['phybench'] == {'local_path': '/from/datasets_dir.json'}
    with pytest.raises(SuiteConfigError, match='not a directory'):
        load_suite(alone, tmp_path / 'missing')


def test_an_upstream_benchmark_without_a_dataset_yaml_runs_with_defaults(tmp_path):
    suite = load_suite(write(tmp_path / 's.yaml', {'datasets': ['gsm8k']}))
    assert suite.dataset_args == {'gsm8k': {}}


def test_dry_run_needs_no_model_and_stays_quiet(tmp_path):
    result = subprocess.run([sys.executable, '-m', 'evalscope_phys.cli', 'suite', 'run', 'text', '--dry-run'],
                            capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    docs = list(yaml.safe_load_all(result.stdout))
    assert [d['model'] for d in docs] == ['MODEL'] * 3
    assert result.stderr == ''
def test_judge_scope_goes_to_every_dataset_unless_it_sets_its_own_and_stays_out_of_the_judge_config(yamls, tmp_path):
    suite = load_suite(suite_file(yamls, judge={'strategy': 'auto', 'scope': 'rejected', 'selftest_min': 0.95},
                                  dataset_args={'ugphysics': {'judge': {'scope': 'all'}}}))
    judge = Endpoint(model='judge', api_url='http://127.0.0.1:2/v1')
    [(_, cfg)] = build_task_configs(suite, Endpoint(model='m'), tmp_path, (0, ), judge=judge)
    assert cfg['dataset_args']['phybench']['judge'] == {'scope': 'rejected'}
    assert cfg['dataset_args']['ugphysics']['judge'] == {'scope': 'all'}
    assert set(cfg['judge']) == {'strategy', 'models'}
    assert suite.dataset_args['phybench'].get('judge') is None  # the suite itself is not changed


@pytest.mark.parametrize('flags, message', [
    (['--model-id', '../../../../x'], "--model-id '../../../../x' is not a safe name"),
    (['--model-id', 'a/b'], "--model-id 'a/b' is not a safe name"),
])
def test_a_model_id_that_is_not_a_file_name_is_refused_in_one_line(yamls, tmp_path, flags, message):
    result = subprocess.run([sys.executable, '-m', 'evalscope_phys.cli', 'suite', 'run', str(suite_file(yamls)),
                             '--model', 'm', '--work-dir', str(tmp_path / 'w'), *flags, '--dry-run'],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and message in result.stderr and 'Traceback' not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize('name, ok', [('../../x', False), ('a/b', False), ('.hidden', False), ('x' * 129, False),
                                      ('my-suite_2.v1', True), ('text', True)])
def test_suite_names_are_file_names(yamls, name, ok):
    path = suite_file(yamls, name=name)
    if ok:
        assert load_suite(path).name == name
    else:
        with pytest.raises(SuiteConfigError, match='suite name .* is not a safe name'):
            load_suite(path)


def test_a_safe_model_id_runs_and_the_dry_run_masks_url_credentials(yamls, tmp_path):
    result = subprocess.run(
        [sys.executable, '-m', 'evalscope_phys.cli', 'suite', 'run', str(suite_file(yamls)), '--model', 'm',
         '--model-id', 'qwen2.5-7b', '--api-url', 'http://user:SEKRET1@127.0.0.1:9/v1?key=SEKRET2',
         '--work-dir', str(tmp_path / 'w'), '--dry-run'], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    doc = next(yaml.safe_load_all(result.stdout))
    assert doc['model_id'] == 'qwen2.5-7b' and doc['api_url'] == 'http://***@127.0.0.1:9/v1?key=***'
    assert 'SEKRET' not in result.stdout + result.stderr


BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + ''.join(
    f'{c}: &{c} [{",".join(["*" + p] * 9)}]\n' for p, c in zip('abcdefgh', 'bcdefghi'))


def test_a_yaml_alias_bomb_is_refused_in_one_line(yamls, tmp_path):
    suite = yamls / 'suites' / 'bomb.yaml'
    suite.parent.mkdir(parents=True, exist_ok=True)
    suite.write_text('name: bomb\ndatasets: [phybench]\ngeneration:\n  extra_body:\n    ' +
                     BOMB.replace('\n', '\n    '), encoding='utf-8')
    assert len(suite.read_bytes()) < 1000
    result = subprocess.run([sys.executable, '-m', 'evalscope_phys.cli', 'suite', 'run', str(suite), '--model', 'm',
                             '--work-dir', str(tmp_path / 'w'), '--dry-run'], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and 'alias bomb' in result.stderr and len(result.stdout) < 1000
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_dataset_yaml_bomb_and_a_recursive_alias_are_refused(yamls):
    (yamls / 'datasets' / 'phybench.yaml').write_text('phybench:\n  extra:\n    ' + BOMB.replace('\n', '\n    '))
    with pytest.raises(SuiteConfigError, match='phybench.yaml: refused: more than'):
        load_suite(suite_file(yamls))
    (yamls / 'datasets' / 'phybench.yaml').write_text('phybench: &a\n  self: *a\n')
    with pytest.raises(SuiteConfigError, match='refers to itself'):
        load_suite(suite_file(yamls))


def test_ordinary_anchors_still_load(yamls):
    (yamls / 'datasets' / 'phybench.yaml').write_text('phybench:\n  a: &g {x: 1}\n  b: *g\n')
    assert load_suite(suite_file(yamls)).dataset_args['phybench']['b'] == {'x': 1}
