#!/usr/bin/env python3
"""Benchmark the issue-11 targets, side by side in one run (timings are ratios on a shared box).

1. Wall time of ``evalscope-phys score`` (CLI start-up included) on one pair whose answer is a
   200k-character reply after an unclosed ``\\[`` (and ``\\(``, ``\\begin{equation}``), next to the
   same command on ``2`` vs ``2``: the target is <= 10 s wall.
2. The longest wait of 8 threads calling the scoring pool with 2 workers on jobs that never finish,
   against the deadline: the target is deadline + 1 s.

    python scripts/bench_hostile.py [--size 200000] [--deadline 2.0] [--cli-timeout 600]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli_seconds(gt: str, gen: str, work: Path, name: str, timeout: float) -> str:
    pairs, out = work / f'{name}.in.jsonl', work / f'{name}.out.jsonl'
    pairs.write_text(json.dumps({'gt': gt, 'gen': gen}) + '\n', encoding='utf-8')
    cmd = [sys.executable, '-m', 'evalscope_phys', 'score', '--pairs', str(pairs), '--out', str(out), '--quiet']
    start = time.monotonic()
    try:
        subprocess.run(cmd, capture_output=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return f'> {timeout:.0f} s (killed)'
    seconds = time.monotonic() - start
    reason = json.loads(out.read_text(encoding='utf-8').split('\n')[0])['reason']
    return f'{seconds:.2f} s ({reason})'


def pool_waits(deadline: float, threads: int = 8, workers: int = 2) -> list:
    sys.path.insert(0, str(ROOT / 'tests' / 'scoring'))
    from evalscope_phys.scoring.run.pool import WorkerPool
    from test_pool import busy_loop  # importable by the workers: a module-level function

    pool = WorkerPool(workers)
    try:
        pool.run(pow, (2, 2), 60)  # boot first: the one-time boot is not what is measured
        waits = [0.0] * threads

        def call(index: int) -> None:
            start = time.monotonic()
            pool.run(busy_loop, (60.0,), deadline)
            waits[index] = time.monotonic() - start

        calls = [threading.Thread(target=call, args=(i,)) for i in range(threads)]
        for thread in calls:
            thread.start()
        for thread in calls:
            thread.join()
        return waits
    finally:
        pool.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--size', type=int, default=200_000, help='characters after the unclosed opener')
    parser.add_argument('--deadline', type=float, default=2.0, help='per-call deadline for the pool benchmark')
    parser.add_argument('--cli-timeout', type=float, default=600.0, help='kill one CLI run after this many seconds')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print(f'evalscope-phys score, 2 vs 2 (start-up): {cli_seconds("2", "2", work, "base", args.cli_timeout)}')
        for index, opener in enumerate(('\\[', '\\(', '\\begin{equation}')):
            once = opener + ' x = 2 ' + 'a' * args.size
            repeated = (opener + ' 1 ') * (args.size // (len(opener) + 3))
            for shape, gen in (('after one unclosed', once), ('of it repeated, unclosed', repeated)):
                seconds = cli_seconds('2', gen, work, f'big{index}{shape[:3]}', args.cli_timeout)
                print(f'evalscope-phys score, {len(gen)} chars {shape} {opener}: {seconds}')
    waits = pool_waits(args.deadline)
    print(f'pool, 8 threads / 2 workers, deadline {args.deadline:.1f} s: max wait {max(waits):.2f} s '
          f'(deadline + {max(waits) - args.deadline:.2f} s), all waits {[round(w, 2) for w in sorted(waits)]}')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
