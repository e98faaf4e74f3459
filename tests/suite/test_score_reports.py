"""scripts/score_reports.sh: exact tables from known numbers; every schema violation named, exit 1."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .synthetic import report, write_report

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / 'scripts' / 'score_reports.sh'
SCHEMA = REPO / 'scripts' / 'report_schema.json'

pytestmark = pytest.mark.skipif(shutil.which('jq') is None, reason='score_reports.sh needs jq (apt-get install jq)')


def score(*args, env=None):
    return subprocess.run(['bash', str(SCRIPT), *map(str, args)], capture_output=True, text=True, env=env, timeout=60)


def phybench(eed, acc, num=10, **kw):
    return report('phybench', {'eed': (eed, num), 'strict_acc': (acc, num), 'lenient_acc': (acc + 0.1, num),
                               'scored': (1.0, 10)}, **kw)


@pytest.fixture
def suite_dir(tmp_path):
    """Three seeds of phybench and ugphysics with hand-picked scores."""
    for seed, (eed, acc) in enumerate([(40.0, 0.5), (50.0, 0.6), (60.0, 0.7)]):
        run = tmp_path / 'suite' / f'seed_{seed}'
        write_report(run, phybench(eed, acc))
        write_report(run, report('ugphysics', {'strict_acc': (acc / 2, 8 + seed % 2), 'lenient_acc': (acc, 9),
                                               'scored': (0.9, 10)}))
    return tmp_path / 'suite'


EXPECTED_TSV = """\
model\tbenchmark\tmetric\tmean\tstd\tseeds\tn
m\tphybench\teed\t50.0000\t10.0000\t3\t10
m\tphybench\tstrict_acc\t0.6000\t0.1000\t3\t10
m\tphybench\tlenient_acc\t0.7000\t0.1000\t3\t10
m\tphybench\tscored\t1.0000\t0.0000\t3\t10
m\tugphysics\tstrict_acc\t0.3000\t0.0500\t3\t8-9
m\tugphysics\tlenient_acc\t0.6000\t0.1000\t3\t9
m\tugphysics\tscored\t0.9000\t0.0000\t3\t10
"""


def test_exact_tsv_table(suite_dir):
    result = score(suite_dir)
    assert result.returncode == 0, result.stderr
    assert result.stdout == EXPECTED_TSV


def test_markdown_table_and_selection(suite_dir):
    result = score('--format', 'markdown', '--select', 'text', suite_dir)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == '| model | benchmark | metric | mean ± std | seeds | n |'
    assert lines[2] == '| m | phybench | eed | 50.0000 ± 10.0000 | 3 | 10 |'
    assert lines[6] == '| m | ugphysics | strict_acc | 0.3000 ± 0.0500 | 3 | 8-9 |'
    assert len(lines) == 9


def test_selection_without_reports_fails(suite_dir):
    result = score('--select', 'vision', suite_dir)
    assert result.returncode == 1
    assert "no report of selection 'vision'" in result.stderr


def test_unknown_selection_is_a_usage_error(suite_dir):
    result = score('--select', 'nope', suite_dir)
    assert result.returncode == 2 and "no selection 'nope'" in result.stderr


def test_one_seed_has_no_std_and_run_dirs_pool(tmp_path):
    write_report(tmp_path / 'a', phybench(30.0, 0.25))
    assert score(tmp_path / 'a').stdout.splitlines()[1] == 'm\tphybench\teed\t30.0000\t-\t1\t10'
    write_report(tmp_path / 'b', phybench(50.0, 0.75))
    assert score(tmp_path / 'a', tmp_path / 'b').stdout.splitlines()[1] == 'm\tphybench\teed\t40.0000\t14.1421\t2\t10'


def test_kmetrics_rows_beside_means(tmp_path):
    run = tmp_path / 'seed_0'
    write_report(run, phybench(50.0, 0.5))
    kfile = run / 'kmetrics' / 'm' / 'phybench.json'
    kfile.parent.mkdir(parents=True)
    kfile.write_text(json.dumps({'dataset_name': 'phybench', 'model_name': 'm', 'repeats': 4, 'metrics': [
        {'identity': {'name': 'strict_acc', 'aggregation': 'pass_at_k', 'dimensions': {'k': 4}}, 'score': 0.8, 'num': 10},
        {'identity': {'name': 'strict_acc', 'aggregation': 'vote_at_k', 'dimensions': {'k': 4}}, 'score': 0.6, 'num': 10},
    ]}))
    rows = score(tmp_path).stdout.splitlines()
    assert rows[-2:] == ['m\tphybench\tstrict_acc pass@4\t0.8000\t-\t1\t10', 'm\tphybench\tstrict_acc maj@4\t0.6000\t-\t1\t10']


VIOLATIONS = [
    # (report change, expected key in message, expected words)
    (lambda r: r['execution_summary'].update(incomplete=True), 'execution_summary.incomplete', 'expected false'),
    (lambda r: r['execution_summary'].update(errored=3), 'execution_summary.errored', 'is 3, expected 0'),
    (lambda r: r.update(judge_summary={'judge_models': ['j'], 'coverage': 0.5, 'total_observations': 10}),
     'judge_summary.coverage', 'below the threshold 0.95'),
    (lambda r: r['metrics'].pop(0), 'metrics[eed]', 'expected metric missing'),
    (lambda r: r['metrics'][1].update(num=0), 'metrics[strict_acc].num', 'is 0, expected > 0'),
    (lambda r: r.pop('execution_summary'), 'execution_summary', 'required key missing'),
    (lambda r: r.update(schema_version=1), 'schema_version', 'expected 2'),
    (lambda r: r.update(dataset_name='mystery'), 'dataset_name', "no expectations for benchmark 'mystery'"),
    (lambda r: r['primary_metric_identity'].update(name='strict_acc'), 'primary_metric_identity.name', "expected 'eed'"),
]


@pytest.mark.parametrize('change, key, words', VIOLATIONS)
def test_violation_names_file_and_key(tmp_path, change, key, words):
    good = write_report(tmp_path / 'seed_0', phybench(50.0, 0.5))
    bad_report = phybench(50.0, 0.5)
    change(bad_report)
    bad = tmp_path / 'seed_1' / 'reports' / 'm' / 'phybench.json'
    bad.parent.mkdir(parents=True)
    bad.write_text(json.dumps(bad_report))
    result = score(tmp_path)
    assert result.returncode == 1
    assert result.stdout == ''
    assert f'{bad}: {key}: ' in result.stderr and words in result.stderr
    assert str(good) not in result.stderr


def test_judge_coverage_threshold_flag_and_no_judge(tmp_path):
    payload = phybench(50.0, 0.5, judge={'judge_models': ['j'], 'coverage': 0.9, 'total_observations': 10})
    write_report(tmp_path, payload)
    assert score(tmp_path).returncode == 1
    assert score('--min-judge-coverage', '0.85', tmp_path).returncode == 0
    write_report(tmp_path, phybench(50.0, 0.5, judge={'judge_models': [], 'coverage': 0.0, 'total_observations': 0}))
    assert score(tmp_path).returncode == 0  # a summary without any judge call is not a judge run


def test_corrupted_json_is_named(tmp_path):
    bad = tmp_path / 'reports' / 'm' / 'phybench.json'
    bad.parent.mkdir(parents=True)
    bad.write_text('{"schema_version": 2, ')
    result = score(tmp_path)
    assert result.returncode == 1 and f'{bad}: (file): not valid JSON' in result.stderr


def test_no_reports_and_bad_arguments(tmp_path):
    assert score(tmp_path).returncode == 1
    assert score('--format', 'html', tmp_path).returncode == 2
    assert score(tmp_path / 'missing').returncode == 2


def test_missing_jq_says_how_to_install(tmp_path):
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    for tool in ('dirname', 'sed'):
        os.symlink(shutil.which(tool), bin_dir / tool)
    result = subprocess.run([shutil.which('bash'), str(SCRIPT), str(tmp_path)], capture_output=True, text=True,
                            env={'PATH': str(bin_dir)}, timeout=30)
    assert result.returncode == 2 and 'apt-get install jq' in result.stderr


def test_schema_selections_match_suite_yamls():
    import yaml

    schema = json.loads(SCHEMA.read_text())
    for name, datasets in schema['selections'].items():
        suite = yaml.safe_load((REPO / 'yamls' / 'suites' / f'{name}.yaml').read_text())
        assert suite['datasets'] == datasets, name
        assert set(datasets) <= set(schema['benchmarks'])


def test_judge_cost_rows_are_run_totals_with_prompt_plus_completion_as_judge_tokens(tmp_path):
    # per-answer means as a report holds them: 10 answers, 0.3 calls, 120.5 + 4.5 tokens each, ...
    for seed, (calls, prompt, completion) in enumerate([(0.3, 120.5, 4.5), (0.5, 200.0, 7.0)]):
        write_report(tmp_path / f'seed_{seed}', report('physolym', {
            'strict_acc': (0.5, 10), 'lenient_acc': (0.6, 10), 'scored': (1.0, 10), 'judged': (calls, 10),
            'judge_calls': (calls, 10), 'judge_failed_calls': (0.1, 10), 'judge_prompt_tokens': (prompt, 10),
            'judge_completion_tokens': (completion, 10)}))
    result = score(tmp_path)
    assert result.returncode == 0, result.stderr
    rows = {line.split('\t')[2]: line.split('\t')[3:] for line in result.stdout.splitlines()[1:]}
    assert rows['judged'] == ['0.4000', '0.1414', '2', '10']  # a share stays a mean
    assert rows['judge_calls'] == ['4.0000', '1.4142', '2', '10']  # 3 and 5 calls
    assert rows['judge_failed_calls'] == ['1.0000', '0.0000', '2', '10']
    assert rows['judge_prompt_tokens'] == ['1602.5000', '562.1499', '2', '10']  # 1205 and 2000
    assert rows['judge_tokens'] == ['1660.0000', '579.8276', '2', '10']  # 1250 and 2070
