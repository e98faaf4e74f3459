"""Benchmark EED on real trees and the scoring pool's round-trip overhead.

Parses the dev pairs (``../shared/data/eed/eed_dev_pairs.jsonl``) with latex2sympy2_extended after
simple preprocessing (this script's, not the engine's), simplifies both sides in the worker pool,
then times ``eed_score`` alone in this process, and ``run_limited`` round trips.

    .venv/bin/python scripts/bench_eed.py [--pairs PATH] [--repeat 3] [--limit N] [--timeout 5]
                                          [--baseline DIR [--rounds 3]]

Preparing all 655 pairs takes minutes (SymPy's simplify, not EED); --limit 150 gives a quick look.

``--baseline DIR`` is another source tree (``git worktree`` or ``git archive | tar -x``): the pairs
are prepared once here, then this tree and DIR each time the same SymPy pairs in a fresh process
(``PYTHONPATH`` set to the tree), in turn (A B A B ...), and the script prints each figure for both
with the ratio baseline/this and the load average of every round.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

from evalscope_phys.scoring.eed.eed import eed_score
from evalscope_phys.scoring.run.limits import ANSWER_DEADLINE, check_expr_limits, check_text_limits
from evalscope_phys.scoring.run.pool import get_pool, run_limited
from evalscope_phys.scoring.eed.tree import expression_tree

DEFAULT_PAIRS = Path(__file__).resolve().parents[1] / '..' / 'shared' / 'data' / 'eed' / 'eed_dev_pairs.jsonl'


def simple_preprocess(text: str) -> str:
    """Enough to parse most dev pairs; the engine's own extraction is far more careful."""
    text = text.strip()
    for wrapper in (r'\[', r'\]', '$$', '$'):
        text = text.replace(wrapper, '')
    boxed = text.rfind(r'\boxed{')
    if boxed >= 0:
        text = text[boxed + len(r'\boxed{'):].rstrip().rstrip('}')
    text = text.split('=')[-1]
    text = re.sub(r'\\(left|right)\b', '', text)
    return text.replace(r'\dfrac', r'\frac').replace(r'\tfrac', r'\frac').strip()


def parse_and_simplify(gt: str, gen: str) -> Tuple[Any, Any]:
    """Runs in a pool worker: LaTeX -> SymPy -> simplify (posify so sqrt(x^2) folds)."""
    import sympy
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig

    config = ConversionConfig(lowercase_symbols=False)
    out = []
    for text in (gt, gen):
        expr = latex2sympy(simple_preprocess(text), conversion_config=config)
        reason = check_expr_limits(expr)
        if reason:
            raise ValueError(reason)
        positive, back = sympy.posify(expr)
        out.append(sympy.simplify(positive).subs(back))
    return out[0], out[1]


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def describe(name: str, seconds: List[float]) -> str:
    return (f'{name}: n={len(seconds)} median={statistics.median(seconds) * 1e3:.2f} ms '
            f'p99={percentile(seconds, 0.99) * 1e3:.2f} ms max={max(seconds) * 1e3:.2f} ms '
            f'-> {len(seconds) / sum(seconds):,.0f} calls/s')


def prepare(rows: List[dict], workers: int, timeout: float) -> Tuple[List[Tuple[dict, Any, Any]], Counter]:
    """Parse and simplify every pair in the pool; count why the others were skipped."""
    skipped: Counter = Counter()

    def one(row: dict) -> Optional[Tuple[dict, Any, Any]]:
        reason = check_text_limits(row['gt']) or check_text_limits(row['gen'])
        if reason:
            skipped[reason] += 1
            return None
        result = run_limited(parse_and_simplify, row['gt'], row['gen'], timeout=timeout)
        if not result.ok:
            skipped[result.reason.split(':')[0] if result.reason.startswith('error') else result.reason] += 1
            return None
        return (row, *result.value)

    with ThreadPoolExecutor(workers) as executor:
        return [item for item in executor.map(one, rows) if item is not None], skipped


def measure(prepared: List[Tuple[dict, Any, Any]], repeat: int) -> dict:
    """The figures one tree gives on already prepared pairs: EED in process and through the pool."""
    in_process: List[float] = []
    for _ in range(repeat):
        for _, ref, ans in prepared:
            t0 = time.perf_counter()
            eed_score(ref, ans)
            in_process.append(time.perf_counter() - t0)
    run_limited(pow, 2, 2)  # make sure a worker is up
    pooled = []
    for _, ref, ans in prepared:
        t0 = time.perf_counter()
        run_limited(eed_score, ref, ans)
        pooled.append(time.perf_counter() - t0)
    scores = [eed_score(ref, ans).score for _, ref, ans in prepared]
    return {'in_process_mean': statistics.mean(in_process), 'in_process_p99': percentile(in_process, 0.99),
            'pool_mean': statistics.mean(pooled), 'pool_p99': percentile(pooled, 0.99), 'scores': scores}


def side_by_side(prepared: List[Tuple[dict, Any, Any]], baseline: Path, rounds: int, repeat: int) -> None:
    """This tree and ``baseline`` in turn, each in a fresh process on the same pickled pairs."""
    here = Path(__file__).resolve().parents[1]
    with tempfile.NamedTemporaryFile(suffix='.pickle', delete=False) as handle:
        pickle.dump([(ref, ans) for _, ref, ans in prepared], handle)
    figures: dict = {here: [], baseline: []}
    try:
        for round_ in range(rounds):
            for tree in (here, baseline):
                env = dict(os.environ, PYTHONPATH=str(tree))
                done = subprocess.run([sys.executable, __file__, '_measure', handle.name, str(repeat)], env=env,
                                      capture_output=True, text=True, check=True)
                figures[tree].append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(f'round {round_ + 1}: load average {os.getloadavg()[0]:.2f}')
    finally:
        os.unlink(handle.name)
    new, old = figures[here], figures[baseline]
    equal = all(n['scores'] == o['scores'] for n, o in zip(new, old))
    print(f'EED scores bit-equal between the trees on all {len(prepared)} pairs: {equal}')
    for key in ('in_process_mean', 'in_process_p99', 'pool_mean', 'pool_p99'):
        ratios = [o[key] / n[key] for n, o in zip(new, old)]
        print(f'{key:16s} this {statistics.median([n[key] for n in new]) * 1e3:8.2f} ms  baseline '
              f'{statistics.median([o[key] for o in old]) * 1e3:8.2f} ms  baseline/this '
              f'{statistics.median(ratios):.2f}x (median of {rounds} paired rounds)')


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['_measure']:  # a side-by-side child: the figures of this process's tree, as JSON
        with open(argv[1], 'rb') as handle:
            pairs = pickle.load(handle)
        print(json.dumps(measure([({}, ref, ans) for ref, ans in pairs], int(argv[2]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--pairs', type=Path, default=DEFAULT_PAIRS)
    parser.add_argument('--repeat', type=int, default=3, help='timed passes over the parsed pairs')
    parser.add_argument('--limit', type=int, default=0, help='use only the first N pairs (0: all)')
    parser.add_argument('--timeout', type=float, default=ANSWER_DEADLINE, help='seconds to parse+simplify one pair')
    parser.add_argument('--baseline', type=Path, help='another source tree, timed in turn with this one')
    parser.add_argument('--rounds', type=int, default=3, help='paired rounds with --baseline')
    args = parser.parse_args(argv)
    if not args.pairs.is_file():
        print(f'pairs file not found: {args.pairs}', file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in args.pairs.open(encoding='utf-8')]
    if args.limit:
        rows = rows[:args.limit]

    start = time.perf_counter()
    prepared, skipped = prepare(rows, get_pool().size, args.timeout)
    print(f'parsed+simplified {len(prepared)}/{len(rows)} pairs in {time.perf_counter() - start:.1f} s; '
          f'skipped (naive preprocessing, limits, timeouts): {dict(skipped)}; load {os.getloadavg()[0]:.2f}')
    if args.baseline:
        side_by_side(prepared, args.baseline.resolve(), args.rounds, args.repeat)
        return 0
    sizes = sorted(expression_tree(ref).size() + expression_tree(ans).size() for _, ref, ans in prepared)
    print(f'tree sizes (reference + answer nodes): median={statistics.median(sizes):.0f} '
          f'p90={percentile(sizes, 0.9):.0f} max={sizes[-1]}')

    eed_times: List[float] = []
    worst = (0.0, '')
    for _ in range(args.repeat):
        for row, ref, ans in prepared:
            t0 = time.perf_counter()
            eed_score(ref, ans)
            elapsed = time.perf_counter() - t0
            eed_times.append(elapsed)
            worst = max(worst, (elapsed, row['id']))
    print(describe('eed_score (in process)', eed_times) + f'; slowest pair {worst[1]}')

    fair = [(row, ref, ans) for row, ref, ans in prepared if not row['official_defects']
            and not row['zero_reason'] and 0 < row['official_score'] < 100]
    same = sum(abs(eed_score(ref, ans).distance - row['official_distance']) < 1e-9 for row, ref, ans in fair)
    within = sum(abs(eed_score(ref, ans).score - row['official_score']) <= 5 for row, ref, ans in fair)
    print(f'fair partial-credit pairs: distance equal to official {same}/{len(fair)}, '
          f'score within 5 points {within}/{len(fair)}')

    run_limited(pow, 2, 2)  # make sure a worker is up
    trivial = []
    for i in range(500):
        t0 = time.perf_counter()
        run_limited(pow, 2, i)
        trivial.append(time.perf_counter() - t0)
    print(describe('pool round trip, trivial call', trivial))
    pooled = []
    for row, ref, ans in prepared:
        t0 = time.perf_counter()
        run_limited(eed_score, ref, ans)
        pooled.append(time.perf_counter() - t0)
    print(describe('eed_score through the pool', pooled))
    overhead = statistics.median(pooled) - statistics.median(eed_times)
    print(f'pool overhead per EED call (median difference, pickling the trees included): {overhead * 1e3:.2f} ms')
    return 0


if __name__ == '__main__':
    # Pool workers resolve ``parse_and_simplify`` by module name, and ``__main__`` is not this file in
    # a worker: run the script as the importable module ``bench_eed`` (its folder on the workers' path).
    HERE = str(Path(__file__).resolve().parent)
    os.environ['PYTHONPATH'] = os.pathsep.join(p for p in (HERE, os.environ.get('PYTHONPATH')) if p)
    sys.path.insert(0, HERE)
    from bench_eed import main as module_main
    sys.exit(module_main())
