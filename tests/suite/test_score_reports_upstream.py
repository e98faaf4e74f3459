"""`score_reports.sh --compare-upstream`: ours vs upstream EvalScope per benchmark pair, on report JSONs."""
import json

import pytest

from .synthetic import report, write_report
from .test_score_reports import SCHEMA, pytestmark, score  # noqa: F401  (pytestmark: skip without jq)


@pytest.fixture
def baselines(tmp_path):
    """Two seeds of phyx_oe_rules next to upstream phyx_oe, plus upstream hle (no counterpart of ours)."""
    for seed, (lenient, strict, upstream) in enumerate([(0.6, 0.4, 0.3), (0.7, 0.5, 0.4)]):
        run = tmp_path / f'seed_{seed}'
        write_report(run, report('phyx_oe_rules', {'strict_acc': (strict, 8), 'lenient_acc': (lenient, 8),
                                                   'scored': (1.0, 8)}))
        write_report(run, report('phyx_oe', {'accuracy': (upstream, 8)}))
        write_report(run, report('hle', {'accuracy': (0.1, 5)}))
    return tmp_path


EXPECTED = """\
model\tours\tmetric\tmean\tupstream\tmetric\tmean\tdiff\tn_ours\tn_upstream
m\tphyx_oe_rules\tlenient_acc\t0.6500\tphyx_oe\taccuracy\t0.3500\t+0.3000\t8\t8
m\tphyx_oe_rules\tstrict_acc\t0.4500\tphyx_oe\taccuracy\t0.3500\t+0.1000\t8\t8
m\t-\t-\t-\thle\taccuracy\t0.1000\t-\t-\t5
"""


def test_pairs_print_means_over_seeds_and_the_difference(baselines):
    result = score('--compare-upstream', baselines)
    assert result.returncode == 0, result.stderr
    assert result.stdout == EXPECTED  # olympiad_bench and hipho have no reports here: no rows


def test_markdown_and_a_missing_side(baselines):
    for seed in (0, 1):
        (baselines / f'seed_{seed}' / 'reports' / 'm' / 'phyx_oe.json').unlink()
    lines = score('--compare-upstream', '--format', 'markdown', baselines).stdout.splitlines()
    assert lines[0] == ('| model | ours | metric | mean | upstream | metric | mean | ours - upstream '
                        '| n ours | n upstream |')
    assert lines[2] == '| m | phyx_oe_rules | lenient_acc | 0.6500 | phyx_oe | accuracy | - | - | 8 | - |'


def test_no_paired_benchmark_in_the_reports_is_an_error(tmp_path):
    write_report(tmp_path, report('phybench', {'eed': (50.0, 4), 'strict_acc': (0.5, 4), 'lenient_acc': (0.5, 4),
                                               'scored': (1.0, 4)}))
    result = score('--compare-upstream', tmp_path)
    assert result.returncode == 1 and 'no benchmark of upstream_pairs' in result.stderr


def test_every_pair_names_benchmarks_the_schema_knows():
    schema = json.loads(SCHEMA.read_text())
    for upstream, pair in schema['upstream_pairs'].items():
        assert upstream in schema['benchmarks']
        assert pair['ours'] is None or pair['ours'] in schema['benchmarks']
        if pair['ours']:
            assert set(pair['ours_metrics']) <= set(schema['benchmarks'][pair['ours']]['metrics'])


def test_help_exits_0_and_names_the_new_options():
    result = score('--help')
    assert result.returncode == 0
    assert '--compare-upstream' in result.stdout and '--ci' in result.stdout


def test_an_upstream_side_scored_by_our_runtime_fix_is_refused(baselines):
    """With the plugin installed, upstream phyx_oe carries our `scored` metric: 0.625 vs 0.625 was us vs us."""
    run = baselines / 'seed_0'
    write_report(run, report('phyx_oe', {'accuracy': (0.625, 8), 'scored': (1.0, 8)}))
    result = score('--compare-upstream', baselines)
    assert result.returncode == 1 and result.stdout == ''
    assert f'{run}/reports/m/phyx_oe.json: upstream phyx_oe was scored by evalscope-phys' in result.stderr
    assert 'EVALSCOPE_PHYS_NO_PHYX_OE_FIX=1' in result.stderr
