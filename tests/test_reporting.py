"""The demo's table and its failure reasons, on hand-made reports."""
from evalscope_phys.reporting import format_table, report_problems


def report(name, errored=0, incomplete=False):
    primary = {'name': 'eed', 'aggregation': 'mean', 'dimensions': {}}
    return {
        'dataset_name': name,
        'primary_metric_identity': primary,
        'metrics': [
            {'identity': {'name': 'strict_acc', 'aggregation': 'mean_per_difficulty', 'dimensions': {'difficulty': 'hard'}},
             'score': 0.25, 'num': 4},
            {'identity': {'name': 'strict_acc', 'aggregation': 'mean', 'dimensions': {}}, 'score': 0.5, 'num': 8},
            {'identity': primary, 'score': 61.25, 'num': 8},
        ],
        'execution_summary': {'requested': 8, 'succeeded': 8 - errored, 'errored': errored, 'incomplete': incomplete},
    }


def test_table_puts_the_primary_metric_first_and_labels_breakdowns():
    assert format_table([report('phybench')]).splitlines()[2:] == [
        '| phybench | eed * | 61.2500 | 8 |',
        '| phybench | strict_acc | 0.5000 | 8 |',
        '| phybench | strict_acc [difficulty=hard] | 0.2500 | 4 |',
    ]


def test_problems_name_missing_reports_errors_and_incomplete_runs():
    problems = report_problems([report('phybench', errored=2), report('physolym', incomplete=True)],
                               expected=['phybench', 'physolym', 'ugphysics'])
    assert problems == ['no report for ugphysics', 'phybench: 2 of 8 samples errored', 'physolym: run incomplete']


def test_a_clean_run_has_no_problems():
    assert report_problems([report('phybench')], expected=['phybench']) == []
