"""``evalscope-phys compare RUN_A RUN_B`` or ``compare RUN --by-pair``: paired tests on 0/1 outcomes.

One comparison per benchmark: runs holding several benchmarks give one result each (their problems are
not exchangeable, so a pooled test would weigh benchmarks by size). ``--dataset`` picks one; ``--pool``
asks for a single test over all problems.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from .compare import PairedOutcomes, pair_runs, pair_within, select_run
from .results import RunDirError, run_datasets
from .stats import DEFAULT_RESAMPLES, PairedComparison, compare_paired


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('runs', nargs='+', metavar='RUN', help='two run dirs, or one with --by-pair')
    parser.add_argument('--metric', default='strict_acc', help='0/1 per-sample metric (default strict_acc)')
    parser.add_argument('--dataset', help='only this benchmark (default: each benchmark separately)')
    parser.add_argument('--pool', action='store_true', help='one test over the problems of every benchmark')
    parser.add_argument('--seed', type=int, help='which seed_<n>/ of a suite dir to use')
    parser.add_argument('--id-key', default='id', help='sample metadata field that identifies a problem')
    parser.add_argument('--by-pair', action='store_true', help='pair items within one run by --pair-key')
    parser.add_argument('--pair-key', default='pair_id', help='metadata field shared by the two items of a pair')
    parser.add_argument('--side-key', default='lang', help='metadata field telling the two sides apart')
    parser.add_argument('--sides', nargs=2, metavar=('A', 'B'), help='side values to compare (A vs B)')
    parser.add_argument('--bootstrap-seed', type=int, default=0, help='seed of the paired bootstrap')
    parser.add_argument('--resamples', type=int, default=DEFAULT_RESAMPLES)
    parser.add_argument('--table', help='write the per-problem table (TSV) to this file')
    parser.add_argument('--json', action='store_true', help='print the result as JSON')


def format_summary(paired: PairedOutcomes, result: PairedComparison, metric: str) -> str:
    """The human-readable lines a paper's paired comparison needs."""
    c = result.counts
    pct = int(round(result.ci_level * 100))
    return '\n'.join([
        f'metric {metric}: A = {paired.label_a}  B = {paired.label_b}',
        f'paired problems {c.n} (unmatched {paired.unmatched}, unscored {paired.unscored})',
        f'correct: A {c.both + c.a_only} ({result.accuracy_a:.4f})  B {c.both + c.b_only} ({result.accuracy_b:.4f})',
        f'discordant {c.discordant}: A only {c.a_only}, B only {c.b_only}',
        f'sign test p (A > B, one-sided) = {result.sign_test_p_greater:.4g}; two-sided = '
        f'{result.sign_test_p_two_sided:.4g}',
        f'McNemar exact p (two-sided) = {result.mcnemar_exact_p:.4g}',
        f'accuracy difference A - B = {result.diff:+.4f}, paired bootstrap {pct}% CI '
        f'[{result.ci_low:+.4f}, {result.ci_high:+.4f}] (seed {result.seed})',
    ])


def _datasets(args: argparse.Namespace, runs: list) -> list:
    """The benchmarks to compare one by one: ``[None]`` means pooled (or the run holds one benchmark)."""
    if args.dataset:
        return [args.dataset]
    if args.pool:
        return [None]
    names = sorted(set.intersection(*(set(run_datasets(run)) for run in runs)))
    return names if len(names) > 1 else [None]


def _compare(args: argparse.Namespace, runs: list, dataset):
    if args.by_pair:
        paired = pair_within(runs[0], args.metric, args.pair_key, args.side_key, args.sides, dataset)
    else:
        paired = pair_runs(runs[0], runs[1], args.metric, dataset, args.id_key)
    return paired, compare_paired(paired.a, paired.b, seed=args.bootstrap_seed, resamples=args.resamples)


def run(args: argparse.Namespace) -> int:
    results, skipped = {}, {}
    try:
        if args.by_pair and len(args.runs) != 1:
            raise RunDirError('--by-pair takes exactly one run dir')
        if not args.by_pair and len(args.runs) != 2:
            raise RunDirError('compare takes two run dirs (or one with --by-pair)')
        runs = [select_run(Path(p), args.seed) for p in args.runs]
        datasets = _datasets(args, runs)
        for dataset in datasets:
            try:
                results[dataset] = _compare(args, runs, dataset)
            except (RunDirError, ValueError) as exc:
                if len(datasets) == 1:
                    raise
                skipped[dataset] = str(exc)
        if not results:
            raise RunDirError('no benchmark could be compared: ' + '; '.join(f'{d}: {e}' for d, e in skipped.items()))
    except (RunDirError, ValueError) as exc:
        print(f'evalscope-phys compare: {exc}', file=sys.stderr)
        return 2
    if args.table:
        rows = ['problem\tA\tB'] + [f'{k}\t{x}\t{y}' for paired, _ in results.values()
                                   for k, x, y in zip(paired.keys, paired.a, paired.b)]
        Path(args.table).write_text('\n'.join(rows) + '\n', encoding='utf-8')
    documents = {dataset: {'metric': args.metric, 'dataset': dataset or args.dataset, 'a': paired.label_a,
                           'b': paired.label_b, 'unmatched': paired.unmatched, 'unscored': paired.unscored,
                           **asdict(result)}
                 for dataset, (paired, result) in results.items()}
    if args.json:
        # one comparison: the result itself; several: keyed by benchmark, plus those that could not be compared
        single = len(documents) == 1 and not skipped
        print(json.dumps(next(iter(documents.values())) if single else {**documents, **(
            {'skipped': skipped} if skipped else {})}, indent=2))
        return 0
    for dataset, (paired, result) in results.items():
        if dataset is not None:
            print(f'== {dataset}')
        print(format_summary(paired, result, args.metric))
    for dataset, reason in skipped.items():
        print(f'== {dataset}: not compared ({reason})')
    return 0
