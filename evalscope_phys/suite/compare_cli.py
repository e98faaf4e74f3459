"""``evalscope-phys compare RUN_A RUN_B`` or ``compare RUN --by-pair``: paired tests on 0/1 outcomes."""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from .compare import PairedOutcomes, pair_runs, pair_within, select_run
from .results import RunDirError
from .stats import DEFAULT_RESAMPLES, PairedComparison, compare_paired


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('runs', nargs='+', metavar='RUN', help='two run dirs, or one with --by-pair')
    parser.add_argument('--metric', default='strict_acc', help='0/1 per-sample metric (default strict_acc)')
    parser.add_argument('--dataset', help='only this benchmark')
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


def run(args: argparse.Namespace) -> int:
    try:
        if args.by_pair:
            if len(args.runs) != 1:
                raise RunDirError('--by-pair takes exactly one run dir')
            paired = pair_within(select_run(Path(args.runs[0]), args.seed), args.metric, args.pair_key,
                                 args.side_key, args.sides, args.dataset)
        else:
            if len(args.runs) != 2:
                raise RunDirError('compare takes two run dirs (or one with --by-pair)')
            run_a, run_b = (select_run(Path(p), args.seed) for p in args.runs)
            paired = pair_runs(run_a, run_b, args.metric, args.dataset, args.id_key)
        result = compare_paired(paired.a, paired.b, seed=args.bootstrap_seed, resamples=args.resamples)
    except (RunDirError, ValueError) as exc:
        print(f'evalscope-phys compare: {exc}', file=sys.stderr)
        return 2
    if args.table:
        rows = ['problem\tA\tB'] + [f'{k}\t{x}\t{y}' for k, x, y in zip(paired.keys, paired.a, paired.b)]
        Path(args.table).write_text('\n'.join(rows) + '\n', encoding='utf-8')
    if args.json:
        print(json.dumps({'metric': args.metric, 'a': paired.label_a, 'b': paired.label_b,
                          'unmatched': paired.unmatched, 'unscored': paired.unscored, **asdict(result)}, indent=2))
    else:
        print(format_summary(paired, result, args.metric))
    return 0
