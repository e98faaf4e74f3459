"""Paired comparison from run dirs: across two runs and across pairs inside one run."""
import json
import subprocess
import sys

import pytest

from evalscope_phys.suite.compare import pair_runs, pair_within, select_run
from evalscope_phys.suite.results import RunDirError

from .synthetic import review_line, write_reviews


def write_run(run, outcomes, unscored=()):
    """``outcomes``: problem id -> 0/1; ids in ``unscored`` carry no strict_acc."""
    lines = []
    for i, (pid, ok) in enumerate(outcomes.items()):
        values = {'scored': 0.0} if pid in unscored else {'strict_acc': float(ok), 'scored': 1.0}
        lines.append(review_line(i, values, metadata={'id': pid}))
    write_reviews(run, 'phybench', 'mechanics', lines)


def paper_runs(tmp_path):
    ids = [f'p{i:02d}' for i in range(59)]
    a = [1] * 18 + [0] * 41
    b = [1] * 5 + [0] * 13 + [1] * 3 + [0] * 38
    write_run(tmp_path / 'A', dict(zip(ids, a)))
    write_run(tmp_path / 'B', dict(reversed(list(zip(ids, b)))))  # order differs: alignment is by id
    return tmp_path / 'A', tmp_path / 'B'


def test_pair_runs_aligns_by_problem_id(tmp_path):
    run_a, run_b = paper_runs(tmp_path)
    paired = pair_runs(run_a, run_b, 'strict_acc')
    assert len(paired.keys) == 59 and sum(paired.a) == 18 and sum(paired.b) == 8
    assert paired.keys[0] == 'phybench/mechanics/p00'


def test_unscored_and_unmatched_are_counted_not_scored_wrong(tmp_path):
    write_run(tmp_path / 'A', {'x': 1, 'y': 1, 'z': 0}, unscored={'y'})
    write_run(tmp_path / 'B', {'x': 0, 'y': 1, 'w': 1})
    paired = pair_runs(tmp_path / 'A', tmp_path / 'B', 'strict_acc')
    assert paired.keys == ('phybench/mechanics/x', ) and (paired.a, paired.b) == ((1, ), (0, ))
    assert paired.unscored == 1 and paired.unmatched == 2


def test_non_binary_metric_is_refused(tmp_path):
    write_reviews(tmp_path / 'A', 'phybench', 'mechanics', [review_line(0, {'eed': 37.0}, metadata={'id': 'x'})])
    write_reviews(tmp_path / 'B', 'phybench', 'mechanics', [review_line(0, {'eed': 50.0}, metadata={'id': 'x'})])
    with pytest.raises(ValueError, match='0/1 metric'):
        pair_runs(tmp_path / 'A', tmp_path / 'B', 'eed')


def test_by_pair_within_one_run(tmp_path):
    lines = []
    for i, (pair, lang, ok) in enumerate([('q1', 'en', 1), ('q1', 'et', 0), ('q2', 'en', 1), ('q2', 'et', 1),
                                          ('q3', 'et', 0), ('q3', 'en', 0), ('q4', 'en', 1)]):
        lines.append(review_line(i, {'strict_acc': float(ok)}, metadata={'id': f'{pair}-{lang}', 'pair_id': pair,
                                                                         'lang': lang}))
    write_reviews(tmp_path, 'phybench', 'mechanics', lines)
    paired = pair_within(tmp_path, 'strict_acc', sides=['en', 'et'])
    assert paired.keys == ('q1', 'q2', 'q3') and paired.a == (1, 1, 0) and paired.b == (0, 1, 0)
    assert paired.unmatched == 1 and paired.label_a == 'lang=en'


def test_suite_dir_with_several_seeds_needs_a_seed(tmp_path):
    write_run(tmp_path / 'seed_0', {'x': 1})
    write_run(tmp_path / 'seed_1', {'x': 0})
    with pytest.raises(RunDirError, match='--seed'):
        select_run(tmp_path)
    assert select_run(tmp_path, 1) == tmp_path / 'seed_1'


def test_compare_cli_prints_the_paper_figures(tmp_path):
    run_a, run_b = paper_runs(tmp_path)
    cmd = [sys.executable, '-m', 'evalscope_phys.cli', 'compare', str(run_a), str(run_b), '--resamples', '2000',
           '--table', str(tmp_path / 'table.tsv')]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert 'paired problems 59' in result.stdout
    assert 'discordant 16: A only 13, B only 3' in result.stdout
    assert 'sign test p (A > B, one-sided) = 0.01064' in result.stdout
    assert 'McNemar exact p (two-sided) = 0.02127' in result.stdout
    assert (tmp_path / 'table.tsv').read_text().splitlines()[1] == 'phybench/mechanics/p00\t1\t1'
    again = subprocess.run(cmd + ['--json'], capture_output=True, text=True, timeout=120)
    data = json.loads(again.stdout)
    ci = [line for line in result.stdout.splitlines() if 'bootstrap' in line][0]
    assert f"[{data['ci_low']:+.4f}, {data['ci_high']:+.4f}]" in ci  # same seed, same interval
    bad = subprocess.run([sys.executable, '-m', 'evalscope_phys.cli', 'compare', str(run_a)], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and 'two run dirs' in bad.stderr


def two_benchmark_runs(tmp_path):
    """phybench: A right on 2 of 2 where B is wrong; ugphysics: B right on 1 where A is wrong."""
    for run, phy, ug in (('A', [1, 1], [0]), ('B', [0, 0], [1])):
        for dataset, outcomes in (('phybench', phy), ('ugphysics', ug)):
            lines = [review_line(i, {'strict_acc': float(ok)}, metadata={'id': f'p{i}'}) for i, ok in enumerate(outcomes)]
            write_reviews(tmp_path / run, dataset, 'all', lines, datasets=['phybench', 'ugphysics'])
    return [str(tmp_path / 'A'), str(tmp_path / 'B')]


def compare_cli(*args):
    return subprocess.run([sys.executable, '-m', 'evalscope_phys.cli', 'compare', *args, '--resamples', '200'],
                          capture_output=True, text=True, timeout=120)


def test_compare_is_per_benchmark_unless_told_to_pool(tmp_path):
    runs = two_benchmark_runs(tmp_path)
    per = compare_cli(*runs)
    assert per.returncode == 0, per.stderr
    assert '== phybench' in per.stdout and '== ugphysics' in per.stdout
    assert per.stdout.count('paired problems 2 ') == 1 and per.stdout.count('paired problems 1 ') == 1
    data = json.loads(compare_cli(*runs, '--json').stdout)
    assert set(data) == {'phybench', 'ugphysics'} and data['ugphysics']['counts']['b_only'] == 1
    pooled = compare_cli(*runs, '--pool')
    assert pooled.returncode == 0 and '==' not in pooled.stdout and 'paired problems 3 ' in pooled.stdout
    one = compare_cli(*runs, '--dataset', 'ugphysics')
    assert 'paired problems 1 ' in one.stdout and '== phybench' not in one.stdout


def test_a_run_dir_whose_task_config_is_an_alias_bomb_is_refused_in_one_line(tmp_path):
    from .test_config import BOMB
    runs = two_benchmark_runs(tmp_path)
    config = tmp_path / 'B' / 'configs' / 'task_config.yaml'
    config.write_text('datasets: [phybench, ugphysics]\nextra:\n  ' + BOMB.replace('\n', '\n  '), encoding='utf-8')
    assert len(config.read_bytes()) < 1000
    result = compare_cli(*runs)
    assert result.returncode != 0 and 'task_config.yaml: refused: more than' in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and 'Traceback' not in result.stderr
