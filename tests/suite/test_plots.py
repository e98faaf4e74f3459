"""Plots: the PNGs exist, are real images and are drawn from the numbers in the run."""
from pathlib import Path

from PIL import Image

from evalscope_phys.suite.plots import domain_scores, eed_values, make_plots

from .synthetic import report, review_line, write_report, write_reviews


def with_subsets(payload, metric, subsets):
    for entry in payload['metrics']:
        if entry['identity']['name'] == metric:
            entry['categories'] = [{'name': ['default'], 'num': 10, 'score': 0.5, 'subsets': [
                {'name': name, 'score': score, 'num': 5, 'is_aggregate': False} for name, score in subsets.items()]}]
    return payload


def make_suite(root: Path) -> Path:
    for seed, (mech, opt) in enumerate([(0.6, 0.2), (0.8, 0.4)]):
        run = root / f'seed_{seed}'
        write_report(run, with_subsets(report('phybench', {'eed': (50.0, 4), 'strict_acc': (0.5, 4)}),
                                       'strict_acc', {'mechanics': mech, 'optics': opt}))
        write_reviews(run, 'phybench', 'mechanics',
                      [review_line(i, {'eed': e, 'strict_acc': float(e == 100.0)}) for i, e in enumerate([0.0, 100.0, 55.0])])
    return root


def test_numbers_behind_the_plots(tmp_path):
    root = make_suite(tmp_path / 'suite')
    assert domain_scores([root], 'strict_acc') == {'phybench': {'mechanics': [0.6, 0.8], 'optics': [0.2, 0.4]}}
    assert sorted(eed_values([root])['phybench']) == [0.0, 0.0, 55.0, 55.0, 100.0, 100.0]


def test_pngs_are_written(tmp_path):
    root = make_suite(tmp_path / 'suite')
    paths = make_plots([root], tmp_path / 'plots')
    names = sorted(p.name for p in paths)
    assert names == ['domain_strict_acc_phybench.png', 'eed_hist_phybench.png']
    for path in paths:
        with Image.open(path) as image:
            assert image.format == 'PNG' and image.size[0] > 300
