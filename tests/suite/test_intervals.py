"""Bootstrap CIs per table row: per-problem values pooled over seeds, breakdown rows, k-metric rows,
non-accuracies left out; and the same CIs as columns of `score_reports.sh --ci`."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from evalscope_phys.suite.intervals import intervals, main, row_label
from evalscope_phys.suite.stats import bootstrap_mean_ci

from .synthetic import report, review_line, write_report, write_reviews
from .test_score_reports import SCRIPT


def physolym_seed(run, strict):
    """Four problems (p1, p2 easy; p3, p4 hard), one generation each; ``strict`` their 0/1 outcomes."""
    levels = ['easy', 'easy', 'hard', 'hard']
    lines = [review_line(i, {'strict_acc': v, 'lenient_acc': 1.0, 'eed': 50.0, 'scored': 1.0, 'substring_strict': 0.0},
                         metadata={'id': f'p{i + 1}', 'difficulty': levels[i]}) for i, v in enumerate(strict)]
    write_reviews(run, 'physolym', 'en', lines)
    payload = report('physolym', {'strict_acc': (sum(strict) / 4, 4), 'lenient_acc': (1.0, 4), 'eed': (50.0, 4),
                                  'scored': (1.0, 4), 'substring_strict': (0.0, 4)})
    easy = sum(strict[:2]) / 2
    payload['metrics'].append({'identity': {'name': 'strict_acc', 'aggregation': 'mean_per_difficulty',
                                            'dimensions': {'difficulty': 'easy'}}, 'num': 2, 'score': easy})
    write_report(run, payload)


@pytest.fixture
def two_seeds(tmp_path):
    suite = tmp_path / 'suite'
    physolym_seed(suite / 'seed_0', [1.0, 0.0, 1.0, 1.0])
    physolym_seed(suite / 'seed_1', [1.0, 1.0, 0.0, 1.0])
    return suite


def test_rows_pool_problems_over_seeds_and_skip_non_accuracies(two_seeds):
    rows = {row.label: row for row in intervals([two_seeds])}
    assert set(rows) == {'strict_acc', 'lenient_acc', 'substring_strict',
                         'strict_acc mean_per_difficulty difficulty=easy'}  # no eed, no scored
    # per-problem means over the two seeds: p1 1, p2 1/2, p3 1/2, p4 1. A resample of 4 is all-1 with P 1/16 > 2.5%
    # and all-1/2 with P 1/16 too, so the 95% CI is [1/2, 1] by hand, and exactly the bootstrap of those 4 values.
    strict = rows['strict_acc']
    assert (strict.low, strict.high, strict.problems) == (0.5, 1.0, 4)
    assert (strict.low, strict.high) == bootstrap_mean_ci([1.0, 0.5, 0.5, 1.0], seed=0)
    easy = rows['strict_acc mean_per_difficulty difficulty=easy']  # p1 (1) and p2 (1/2) only
    assert (easy.low, easy.high, easy.problems) == (0.5, 1.0, 2)
    assert (rows['lenient_acc'].low, rows['lenient_acc'].high) == (1.0, 1.0)


def test_k_metric_rows_get_intervals_from_the_same_reviews(tmp_path):
    run = tmp_path / 'seed_0'
    # problem A: 2 attempts, 1 right; problem B: 2 attempts, none right
    lines = [review_line(0, {'strict_acc': 1.0}, 'x', group=0, generation=0, metadata={'id': 'A'}),
             review_line(1, {'strict_acc': 0.0}, 'y', group=0, generation=1, metadata={'id': 'A'}),
             review_line(2, {'strict_acc': 0.0}, 'z', group=1, generation=0, metadata={'id': 'B'}),
             review_line(3, {'strict_acc': 0.0}, 'z', group=1, generation=1, metadata={'id': 'B'})]
    write_reviews(run, 'phybench', 'mechanics', lines)
    write_report(run, report('phybench', {'strict_acc': (0.25, 4)}))
    (run / 'kmetrics' / 'm').mkdir(parents=True)
    (run / 'kmetrics' / 'm' / 'phybench.json').write_text(json.dumps({'dataset_name': 'phybench', 'model_name': 'm',
                                                                       'repeats': 2, 'metrics': []}))
    rows = {row.label: (row.low, row.high) for row in intervals([tmp_path])}
    # pass@1 per problem: A 1/2, B 0 -> resample means 0, 1/4, 1/2 (P 1/4, 1/2, 1/4) -> [0, 1/2]
    assert rows['strict_acc pass@1'] == (0.0, 0.5)
    # pass@2: A 1, B 0 -> [0, 1]; G-Pass@2_1.0 (2 of 2 right): 0 for both -> [0, 0]
    assert rows['strict_acc pass@2'] == (0.0, 1.0)
    assert rows['strict_acc G-Pass@2_1.0'] == (0.0, 0.0)
    assert rows['strict_acc'] == (0.0, 0.5)  # the plain mean: A 1/2, B 0


def test_upstream_acc_is_read_under_its_report_name(tmp_path):
    lines = [review_line(i, {'acc': v}, metadata={'index': i}) for i, v in enumerate([1.0, 0.0])]
    write_reviews(tmp_path, 'phyx_oe', 'mechanics', lines)
    write_report(tmp_path, report('phyx_oe', {'accuracy': (0.5, 2)}))
    [row] = intervals([tmp_path])
    assert (row.label, row.low, row.high, row.problems) == ('accuracy', 0.0, 1.0, 2)


@pytest.mark.parametrize('identity, label', [
    ({'name': 'eed', 'aggregation': 'mean', 'dimensions': {}}, 'eed'),
    ({'name': 'strict_acc', 'aggregation': 'pass_at_k', 'dimensions': {'k': 4}}, 'strict_acc pass@4'),
    ({'name': 'strict_acc', 'aggregation': 'vote_at_k', 'dimensions': {'k': 4}}, 'strict_acc maj@4'),
    ({'name': 'strict_acc', 'aggregation': 'g_pass_at_k', 'dimensions': {'k': 4, 'tau': '0.75'}},
     'strict_acc G-Pass@4_0.75'),
    ({'name': 'strict_acc', 'aggregation': 'mg_pass_at_k', 'dimensions': {'k': 4}}, 'strict_acc mG-Pass@4'),
    ({'name': 'strict_acc', 'aggregation': 'mean_per_difficulty', 'dimensions': {'difficulty': 'hard'}},
     'strict_acc mean_per_difficulty difficulty=hard'),
])
def test_labels_are_the_tables(identity, label):
    assert row_label(identity) == label


def test_module_cli_prints_tsv_and_names_a_bad_dir(two_seeds, tmp_path, capsys):
    assert main([str(two_seeds)]) == 0
    assert 'm\tphysolym\tstrict_acc\t0.5000\t1.0000\t4' in capsys.readouterr().out.splitlines()
    assert main([str(tmp_path / 'nowhere')]) == 1
    assert 'not a directory' in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(['--help'])
    assert exit_info.value.code == 0


needs_jq = pytest.mark.skipif(shutil.which('jq') is None, reason='score_reports.sh needs jq')


def score(*args):
    return subprocess.run(['bash', str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, 'PYTHON': sys.executable})


@needs_jq
def test_score_reports_ci_column_tsv_and_markdown(two_seeds):
    result = score('--ci', two_seeds)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == 'model\tbenchmark\tmetric\tmean\tstd\tseeds\tn\tci_low\tci_high'
    assert 'm\tphysolym\tstrict_acc\t0.7500\t0.0000\t2\t4\t0.5000\t1.0000' in lines
    assert 'm\tphysolym\teed\t50.0000\t0.0000\t2\t4\t-\t-' in lines  # a graded score, not an accuracy
    assert 'm\tphysolym\tstrict_acc mean_per_difficulty difficulty=easy\t0.7500\t0.3536\t2\t2\t0.5000\t1.0000' in lines
    markdown = score('--ci', '--format', 'markdown', two_seeds).stdout.splitlines()
    assert markdown[0] == '| model | benchmark | metric | mean ± std | seeds | n | 95% CI |'
    assert markdown[1] == '|---|---|---|---|---|---|---|'
    assert '| m | physolym | strict_acc | 0.7500 ± 0.0000 | 2 | 4 | [0.5000, 1.0000] |' in markdown
    assert '| m | physolym | scored | 1.0000 ± 0.0000 | 2 | 4 | - |' in markdown


@needs_jq
def test_score_reports_ci_seed_is_checked_and_without_ci_the_table_is_unchanged(two_seeds):
    assert score('--ci', '--ci-seed', 'x', two_seeds).returncode == 2
    plain = score(two_seeds).stdout.splitlines()
    assert plain[0] == 'model\tbenchmark\tmetric\tmean\tstd\tseeds\tn'
    assert 'm\tphysolym\tstrict_acc\t0.7500\t0.0000\t2\t4' in plain


@needs_jq
def test_physreason_shares_of_sub_answers_get_an_interval_and_graded_scores_do_not(tmp_path):
    """PhysReason's strict_acc is a share of a problem's sub-answers (0.5, 1/3): before, it got no CI."""
    run = tmp_path / 'seed_0'
    strict = [0.5, 1.0, 1 / 3, 0.0]
    lines = [review_line(i, {'strict_acc': v, 'lenient_acc': v, 'all_correct': float(v == 1.0), 'eed': 40.0,
                             'scored': 1.0}, metadata={'id': f'r{i}'}) for i, v in enumerate(strict)]
    write_reviews(run, 'physreason', 'full', lines)
    write_report(run, report('physreason', {'strict_acc': (sum(strict) / 4, 4), 'lenient_acc': (sum(strict) / 4, 4),
                                            'all_correct': (0.25, 4), 'eed': (40.0, 4), 'scored': (1.0, 4)}))
    result = score('--ci', run)
    assert result.returncode == 0, result.stderr
    rows = {line.split('\t')[2]: line.split('\t')[7:] for line in result.stdout.splitlines()[1:]}
    low, high = bootstrap_mean_ci(strict, seed=0)
    assert rows['strict_acc'] == rows['lenient_acc'] == [f'{low:.4f}', f'{high:.4f}'] and low < high
    assert rows['all_correct'] != ['-', '-']
    assert rows['eed'] == rows['scored'] == ['-', '-']
