"""Seeded bootstrap 95% CIs over problems for every accuracy row of the report table.

``scripts/score_reports.sh --ci`` prints these beside the means. A row's CI comes from per-problem
values read back from the reviews: a problem's value is its mean over every seed and repeat of the
row's metric (0/1 for an accuracy; a per-problem pass@k, maj@k, G-Pass@k or mG-Pass@k for the
k-metric rows), and the CI is the percentile bootstrap of the mean over problems
(:func:`evalscope_phys.suite.stats.bootstrap_mean_ci`). Rows broken down by a dimension
(``strict_acc mean_per_difficulty difficulty=hard``) use the problems whose sample metadata has
that value. Which rows get one: every 0/1 metric except ``scored``, ``judged`` and
``cannot_judge``, and every per-problem accuracy that is a share of a problem's answers
(:data:`SHARE_ACCURACIES`: PhysReason's and physics_yale's ``strict_acc``/``lenient_acc`` and their
``_all`` views, ``answer_acc``, ``partial``, OmniPhys's mastery). Graded scores (``eed``, ``seed``, the
process grades) and the judge's cost and failure rows get none. Unscored samples carry no value and drop out, as they do in the means.

Usage: ``python -m evalscope_phys.suite.intervals [--seed N] [--level 0.95] [--resamples N] RUN_DIR...``
prints ``model, benchmark, metric, ci_low, ci_high, problems`` as TSV, one line per row.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Sequence, Tuple

from evalscope_phys.scoring.metrics import METRIC_ENTRIES, PARTIAL

from .passk import G_PASS_AT_K, KMETRICS_DIR, MG_PASS_AT_K, PASS_AT_K, VOTE_AT_K, binary_metrics, problem_k_values
from .results import RunDirError, SampleResult, read_report, read_reviews
from .stats import DEFAULT_RESAMPLES, bootstrap_mean_ci

#: 0/1 per sample but a share of samples, not an accuracy
NOT_ACCURACY = frozenset({'scored', 'judged', 'cannot_judge'})
#: per-problem accuracies that may be a share of the problem's answers (not 0/1), each in [0, 1]
SHARE_ACCURACIES = frozenset(name for name, entry in METRIC_ENTRIES.items()
                             if entry.baseline == 'quality.accuracy.ratio') | {PARTIAL}
#: report metric name -> the score key in the reviews (EvalScope renames ``acc`` in reports)
REVIEW_NAMES = {'accuracy': 'acc'}

RowKey = Tuple[str, str, str]
"""(model, benchmark, metric label) of one table row."""


@dataclass(frozen=True)
class RowInterval:
    """The bootstrap CI of one table row."""

    model: str
    benchmark: str
    label: str
    low: float
    high: float
    problems: int


def row_label(identity: Mapping[str, Any]) -> str:
    """The metric label ``scripts/score_reports.sh`` prints for a metric identity (kept identical)."""
    name, aggregation = identity['name'], identity.get('aggregation')
    dims = identity.get('dimensions') or {}
    if aggregation == 'mean' and not dims:
        return name
    if aggregation == PASS_AT_K:
        return f"{name} pass@{dims['k']}"
    if aggregation == VOTE_AT_K:
        return f"{name} maj@{dims['k']}"
    if aggregation == G_PASS_AT_K:
        return f"{name} G-Pass@{dims['k']}_{dims['tau']}"
    if aggregation == MG_PASS_AT_K:
        return f"{name} mG-Pass@{dims['k']}"
    return f'{name} {aggregation}' + ''.join(f' {k}={_jq_text(v)}' for k, v in dims.items())


def _jq_text(value: Any) -> str:
    """How jq's string interpolation writes a JSON value."""
    return value if isinstance(value, str) else json.dumps(value)


def run_dirs(paths: Iterable[Path]) -> List[Path]:
    """Every EvalScope run under ``paths``: the parents of ``reports/`` directories, as the table finds them."""
    found = set()
    for path in paths:
        path = Path(path)
        if not path.is_dir():
            raise RunDirError(f'{path}: not a directory')
        found.update(p.parent.parent.parent for p in path.glob('**/reports/*/*.json'))
    return sorted(found)


def _shares(samples: Sequence[SampleResult]) -> set:
    """The :data:`SHARE_ACCURACIES` these samples record, when every recorded value lies in [0, 1]."""
    seen: Dict[str, bool] = {}
    for sample in samples:
        for name, value in sample.values.items():
            if name in SHARE_ACCURACIES:
                seen[name] = seen.get(name, True) and 0.0 <= value <= 1.0
    return {name for name, ok in seen.items() if ok}


def _matches(sample: SampleResult, dims: Mapping[str, Any]) -> bool:
    return all(str(sample.metadata.get(k)) == str(v) for k, v in dims.items())


def _collect_run(run: Path, rows: Dict[RowKey, Dict[Tuple[str, str], List[float]]]) -> None:
    """Add the per-problem values of one run's report and kmetrics rows to ``rows``."""
    for report_path in sorted(run.glob('reports/*/*.json')):
        report = read_report(report_path)
        model_dir, dataset = report_path.parent.name, report.get('dataset_name') or report_path.stem
        try:
            samples = list(read_reviews(run, dataset=dataset, model=model_dir))
        except RunDirError:
            continue  # a report without reviews (copied on its own): its rows get no CI
        binary = (set(binary_metrics(samples)) | _shares(samples)) - NOT_ACCURACY
        model = report.get('model_name') or model_dir
        for metric in report.get('metrics') or []:
            identity = metric.get('identity') or {}
            name = REVIEW_NAMES.get(identity.get('name'), identity.get('name'))
            if name not in binary:
                continue
            dims = identity.get('dimensions') or {}
            values = rows[(model, dataset, row_label(identity))]
            for sample in samples:
                if name in sample.values and _matches(sample, dims):
                    values[(sample.subset, sample.problem)].append(sample.values[name])
        kfile = run / KMETRICS_DIR / model_dir / f'{dataset}.json'
        if kfile.is_file():
            repeats = int(json.loads(kfile.read_text(encoding='utf-8')).get('repeats') or 1)
            for (name, aggregation, k, tau), per_problem in problem_k_values(samples, repeats).items():
                if name in NOT_ACCURACY:
                    continue
                dims = {'k': k} if tau is None else {'k': k, 'tau': tau}
                values = rows[(model, dataset, row_label({'name': name, 'aggregation': aggregation,
                                                          'dimensions': dims}))]
                for problem, value in per_problem.items():
                    values[problem].append(value)


def intervals(paths: Sequence[Path], seed: int = 0, level: float = 0.95,
              resamples: int = DEFAULT_RESAMPLES) -> List[RowInterval]:
    """One CI per accuracy row of the runs under ``paths``, problems pooled over seeds."""
    rows: Dict[RowKey, Dict[Tuple[str, str], List[float]]] = defaultdict(lambda: defaultdict(list))
    for run in run_dirs(paths):
        _collect_run(run, rows)
    result = []
    for (model, benchmark, label), per_problem in rows.items():
        if not per_problem:
            continue
        means = [sum(v) / len(v) for v in per_problem.values()]
        low, high = bootstrap_mean_ci(means, seed=seed, level=level, resamples=resamples)
        result.append(RowInterval(model, benchmark, label, low, high, len(means)))
    return result


def main(argv: Sequence[str] = None) -> int:
    parser = argparse.ArgumentParser(prog='python -m evalscope_phys.suite.intervals', description=__doc__.split('\n')[0])
    parser.add_argument('runs', nargs='+', metavar='RUN_DIR', help='suite work dirs or EvalScope output dirs')
    parser.add_argument('--seed', type=int, default=0, help='bootstrap seed (default 0)')
    parser.add_argument('--level', type=float, default=0.95, help='confidence level (default 0.95)')
    parser.add_argument('--resamples', type=int, default=DEFAULT_RESAMPLES, help='bootstrap resamples')
    args = parser.parse_args(argv)
    try:
        found = intervals([Path(p) for p in args.runs], seed=args.seed, level=args.level, resamples=args.resamples)
    except (RunDirError, ValueError) as exc:
        print(f'intervals: {exc}', file=sys.stderr)
        return 1
    for row in found:
        print(f'{row.model}\t{row.benchmark}\t{row.label}\t{row.low:.4f}\t{row.high:.4f}\t{row.problems}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
