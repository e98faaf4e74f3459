"""PNG figures beside the score table: EED histograms and per-domain accuracy with seed error bars.

``python -m evalscope_phys.suite.plots --out DIR RUN_DIR...`` (``score_reports.sh --plots DIR`` calls
it). Domain accuracies come from the reports' subset scores; EED values from the reviews, so the
histogram shows the spread a mean hides (PHYBench answers cluster at 0 and 100).
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Sequence

import matplotlib

matplotlib.use('Agg')  # files only; never needs a display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .results import RunDirError, read_report, read_reviews, sub_runs  # noqa: E402

EED_BINS = np.linspace(0, 100, 11)  # 10-point bins: the resolution the EED score is read at


def eed_values(run_dirs: Sequence[Path]) -> Dict[str, List[float]]:
    """``{benchmark: [eed, ...]}`` over every seed and generation of the given runs."""
    values: Dict[str, List[float]] = defaultdict(list)
    for run_dir in run_dirs:
        for _, run in sub_runs(run_dir):
            if not (run / 'reviews').is_dir():
                continue
            for sample in read_reviews(run):
                if 'eed' in sample.values:
                    values[sample.dataset].append(sample.values['eed'])
    return dict(values)


def domain_scores(run_dirs: Sequence[Path], metric: str) -> Dict[str, Dict[str, List[float]]]:
    """``{benchmark: {subset: [score per seed]}}`` for ``metric`` (mean aggregation) from the reports."""
    scores: Dict[str, Dict[str, List[float]]] = defaultdict(lambda: defaultdict(list))
    for run_dir in run_dirs:
        for path in sorted(Path(run_dir).glob('**/reports/*/*.json')):
            report = read_report(path)
            for entry in report.get('metrics') or []:
                identity = entry.get('identity') or {}
                if identity.get('name') != metric or identity.get('aggregation') != 'mean':
                    continue
                for category in entry.get('categories') or []:
                    for subset in category.get('subsets') or []:
                        if subset.get('num', 0) > 0 and not subset.get('is_aggregate'):
                            scores[report['dataset_name']][subset['name']].append(float(subset['score']))
    return {bench: dict(subsets) for bench, subsets in scores.items()}


def plot_eed_histogram(benchmark: str, values: Sequence[float], out: Path) -> Path:
    """One histogram of per-answer EED scores."""
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=120)
    ax.hist(values, bins=EED_BINS, color='#4C72B0', edgecolor='white')
    ax.set_xlabel('EED score (0-100)')
    ax.set_ylabel('answers')
    ax.set_xlim(0, 100)
    ax.set_title(f'{benchmark}: EED per answer, all seeds (n = {len(values)}, mean {np.mean(values):.1f})')
    fig.tight_layout()
    path = out / f'eed_hist_{benchmark}.png'
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_domain_bars(benchmark: str, subsets: Dict[str, List[float]], metric: str, out: Path) -> Path:
    """Bars of the per-domain mean over seeds, with the seed standard deviation as error bars."""
    names = sorted(subsets)
    means = [float(np.mean(subsets[n])) for n in names]
    stds = [float(np.std(subsets[n], ddof=1)) if len(subsets[n]) > 1 else 0.0 for n in names]
    seeds = max(len(v) for v in subsets.values())
    fig, ax = plt.subplots(figsize=(max(4.0, 1.0 + 0.9 * len(names)), 3.6), dpi=120)
    ax.bar(names, means, yerr=stds, capsize=4, color='#55A868', edgecolor='black', linewidth=0.5)
    ax.set_ylabel(metric)
    ax.set_ylim(0, max(1.0, max(m + s for m, s in zip(means, stds))))
    ax.set_title(f'{benchmark}: {metric} by domain (mean ± std over {seeds} seed{"s" if seeds > 1 else ""})')
    plt.setp(ax.get_xticklabels(), rotation=30, ha='right')
    fig.tight_layout()
    path = out / f'domain_{metric}_{benchmark}.png'
    fig.savefig(path)
    plt.close(fig)
    return path


def make_plots(run_dirs: Sequence[Path], out: Path, metric: str = 'strict_acc') -> List[Path]:
    """Write every figure for the given runs into ``out`` and return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [plot_eed_histogram(b, v, out) for b, v in sorted(eed_values(run_dirs).items()) if v]
    paths += [plot_domain_bars(b, s, metric, out) for b, s in sorted(domain_scores(run_dirs, metric).items()) if s]
    return paths


def main(argv: Sequence[str] = None) -> int:
    parser = argparse.ArgumentParser(prog='python -m evalscope_phys.suite.plots', description=__doc__.splitlines()[0])
    parser.add_argument('runs', nargs='+', help='suite or EvalScope run dirs')
    parser.add_argument('--out', required=True, help='directory for the PNG files')
    parser.add_argument('--metric', default='strict_acc', help='metric of the domain bars')
    args = parser.parse_args(argv)
    try:
        paths = make_plots([Path(r) for r in args.runs], Path(args.out), args.metric)
    except RunDirError as exc:
        print(f'plots: {exc}', file=sys.stderr)
        return 2
    for path in paths:
        print(path)
    return 0


if __name__ == '__main__':
    sys.exit(main())
