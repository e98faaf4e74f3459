"""EED's tree edit distance: today's engines against the cell-by-cell loop they replaced, same trees.

    python scripts/bench_ted.py [--pairs PATH] [--rounds 3]

Scores the dev pairs (``../shared/data/eed/eed_dev_pairs.jsonl``) with the engine in this process,
collecting every tree pair EED compares, then times, interleaved per round, ``tree_edit_distance``
(numpy anti-diagonals for large trees, the loop for small ones) and the pre-numpy loop kept in
``tests/scoring/eed/eed_oracle.py``, in CPU seconds. Prints the ratio, whether every distance is
bit-equal, and the load average.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalscope_phys.scoring.eed import eed  # noqa: E402
from evalscope_phys.scoring.engine import clear_cache, score_answer  # noqa: E402
from tests.scoring.eed.eed_oracle import oracle_distance  # noqa: E402

DEFAULT_PAIRS = ROOT / '..' / 'shared' / 'data' / 'eed' / 'eed_dev_pairs.jsonl'


def collect(path: Path) -> list:
    seen = []
    real = eed.tree_distance

    def recording(a, b, whole_cost):
        seen.append((a, b))
        return real(a, b, whole_cost)

    eed.tree_distance = recording
    try:
        for line in path.open(encoding='utf-8'):
            row = json.loads(line)
            score_answer(row['gt'], row['gen'], timeout=None)
    finally:
        eed.tree_distance = real
        clear_cache()
    return seen


def cpu(fn, pairs) -> float:
    start = time.process_time()
    for a, b in pairs:
        fn(a, b)
    return time.process_time() - start


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--pairs', type=Path, default=DEFAULT_PAIRS)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args(argv)
    pairs = collect(args.pairs)
    equal = sum(eed.tree_edit_distance(a, b) == oracle_distance(a, b) for a, b in pairs)
    print(f'{len(pairs)} tree pairs from {args.pairs.name}; bit-equal distances: {equal}/{len(pairs)}; '
          f'load average {os.getloadavg()[0]:.2f}')
    ratios = []
    for round_ in range(args.rounds):
        new = cpu(eed.tree_edit_distance, pairs)
        old = cpu(oracle_distance, pairs)
        ratios.append(old / new)
        print(f'round {round_ + 1}: now {new * 1e3 / len(pairs):.2f} ms, before {old * 1e3 / len(pairs):.2f} ms '
              f'CPU per tree pair; before/now {old / new:.2f}x; load {os.getloadavg()[0]:.2f}')
    print(f'median before/now: {statistics.median(ratios):.2f}x')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
