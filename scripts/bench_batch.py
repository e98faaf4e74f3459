#!/usr/bin/env python
"""The batch scorer (``evalscope-phys score``) as a whole process: one pair, the labelled pairs, scale.

    python scripts/bench_batch.py one      [--baseline DIR] [--runs N]
    python scripts/bench_batch.py labelled [--baseline DIR] [--runs N]
    python scripts/bench_batch.py yale     [--baseline DIR] [--runs N]
    python scripts/bench_batch.py scale    [--sizes 1000,10000,50000]

Each run is a fresh ``evalscope-phys score`` process, with bytecode caching on (as an installed
package has). ``--baseline DIR`` is another source tree (``git archive <commit> | tar -x -C DIR``):
this tree and DIR then run in turn (A B A B ...) and every ratio is taken pair by pair, so a drifting
load moves both sides alike. Figures: wall seconds, CPU seconds of every process of the run (the
scoring workers and their forkserver included: they are collected as this script's orphans, Linux
only; elsewhere only the waited-for processes count) and peak memory (the CLI process, and the
largest process of the run), each a median, with the load average beside them.

``one`` scores one pair (target: exit within 1.0 s). ``labelled`` scores the 1,155 labelled pairs:
the PHYBench EED dev pairs, Math-Verify's cases and the near-miss examples from ../shared, and the
golden, near-miss and quantity-name tables of tests/scoring (target: 5.2 s). ``yale`` scores Yale
PHYSICS o3-mini's recorded solutions against the references (one line per problem, every part of it:
``gt`` a list when the problem has several answers, ``multiple: unordered``), the real model output the
reading pipeline was rebuilt for (target: no slower than before the rebuild, db9153c). ``scale`` scores
distinct synthetic pairs (numbers with units, right and wrong, each text unique) at each size and
prints seconds per pair and peak memory as ratios to the smallest size (targets: time within 1.1x
of linear, peak memory within 1.2x).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get('EVALSCOPE_PHYS_SHARED', ROOT.parent / 'shared')) / 'data'
ONE_PAIR = {'gt': r'\frac{1}{2} m v^2', 'gen': r'The kinetic energy is $\boxed{\frac{m v^2}{2}}$.'}


def _become_subreaper() -> bool:
    """Orphaned descendants (the forkserver, its workers) are re-parented here, so their CPU is counted."""
    try:
        return ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def labelled_pairs(path: Path) -> int:
    rows = []
    for line in (SHARED / 'eed' / 'eed_dev_pairs.jsonl').read_text(encoding='utf-8').splitlines():
        row = json.loads(line)
        rows.append({'gt': row['gt'], 'gen': row['gen']})
    for name, gt, gen in (('math_verify_cases.jsonl', 'gold', 'pred'), ('near_miss_examples.jsonl', 'gt', 'gen')):
        for line in (SHARED / 'peer' / name).read_text(encoding='utf-8').splitlines():
            row = json.loads(line)
            rows.append({'gt': row[gt], 'gen': row[gen]})
    for name in ('golden_cases.json', 'near_misses.json', 'compare/quantity_name_cases.json'):
        for row in json.loads((ROOT / 'tests' / 'scoring' / name).read_text(encoding='utf-8')):
            rows.append({'gt': row['reference'], 'gen': row['answer']})
    path.write_text(''.join(json.dumps(r) + '\n' for r in rows), encoding='utf-8')
    return len(rows)


def yale_pairs(path: Path) -> int:
    """Yale's o3-mini solutions with their references, as compare_yale.py loads them (../shared)."""
    sys.path.insert(0, str(ROOT / 'scripts'))
    from compare_yale import DEFAULT_DATA, DEFAULT_OUTPUTS, load_questions
    from evalscope_phys.benchmarks.yale_outputs import read_run
    problems = load_questions(DEFAULT_DATA)
    theirs, _ = read_run(DEFAULT_OUTPUTS, {rid: p['answers'] for rid, p in problems.items()})
    rows = []
    for rid in sorted(problems):
        answers, record = problems[rid]['answers'], theirs.get(rid)
        if not answers or not all(a.strip() for a in answers) or record is None or not record.solution:
            continue
        rows.append({'gt': answers[0]} if len(answers) == 1 else {'gt': list(answers), 'multiple': 'unordered'})
        rows[-1]['gen'] = record.solution
    path.write_text(''.join(json.dumps(r) + '\n' for r in rows), encoding='utf-8')
    return len(rows)


def synthetic_pairs(path: Path, count: int) -> None:
    """Distinct pairs of even cost: a value with a unit against a rewrite, a converted unit or a wrong value."""
    with open(path, 'w', encoding='utf-8') as out:
        for i in range(count):
            value = i + 1
            forms = (rf'\boxed{{{value}\,\mathrm{{J}}}}', rf'\boxed{{{value / 1000:g}\,\mathrm{{kJ}}}}',
                     rf'\boxed{{{value + 1}\,\mathrm{{J}}}}', rf'\boxed{{\frac{{{2 * value}}}{{2}}\ \text{{J}}}}')
            out.write(json.dumps({'gt': rf'{value}\,\text{{J}}', 'gen': forms[i % 4]}) + '\n')


def run_once(tree: Path, pairs: Path) -> Dict[str, float]:
    """One CLI process scoring ``pairs``, measured from a fresh process of its own (so that peak
    memory and CPU are this run's alone): wall, CPU of all its processes, peak memory (MiB)."""
    done = subprocess.run([sys.executable, __file__, '_measure', str(tree), str(pairs)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise SystemExit(f'{tree}: {done.stderr[-800:]}')
    return json.loads(done.stdout)


def _measure(tree: Path, pairs: Path) -> Dict[str, float]:
    if not _become_subreaper():
        print('note: not Linux: CPU counts only the processes the CLI waits for', file=sys.stderr)
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONDONTWRITEBYTECODE'}
    env.update(PYTHONPATH=str(tree), HF_HUB_OFFLINE='1')
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / 'out.jsonl'
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, '-m', 'evalscope_phys', 'score', '--pairs', str(pairs),
                                  '--out', str(out), '--quiet'], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        stderr = child.stdout.read().decode(errors='replace')  # EOF: every process holding it has gone
        eof = time.perf_counter() - start
        while True:  # the forkserver and its workers, orphaned at the CLI's exit
            try:
                os.wait()
            except ChildProcessError:
                break
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f'exit {os.waitstatus_to_exitcode(status)}: {stderr[-500:]}')
        lines = sum(1 for _ in open(out, encoding='utf-8'))
    every = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {'wall': wall, 'eof': eof, 'cpu': every.ru_utime + every.ru_stime, 'cli_mib': usage.ru_maxrss / 1024,
            'largest_mib': every.ru_maxrss / 1024, 'lines': lines}


def _median(runs: List[Dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def _load() -> str:
    return ' '.join(f'{x:.2f}' for x in os.getloadavg())


def side_by_side(pairs: Path, baseline: Optional[Path], runs: int) -> None:
    trees = [ROOT] + ([baseline] if baseline else [])
    results: Dict[Path, List[Dict[str, float]]] = {tree: [] for tree in trees}
    for tree in trees:
        run_once(tree, pairs)  # warm-up: bytecode written, files cached
    for _ in range(runs):
        for tree in trees:
            results[tree].append(run_once(tree, pairs))
    for tree in trees:
        r = results[tree]
        print(f'{("this tree" if tree == ROOT else "baseline"):9s} {tree}: wall {_median(r, "wall"):.3f} s '
              f'(min {min(x["wall"] for x in r):.3f}, max {max(x["wall"] for x in r):.3f}), '
              f'output at EOF {_median(r, "eof"):.3f} s, '
              f'CPU all processes {_median(r, "cpu"):.3f} s, peak CLI {_median(r, "cli_mib"):.0f} MiB, '
              f'largest process {_median(r, "largest_mib"):.0f} MiB, {int(r[0]["lines"])} lines')
    if baseline:
        new, old = results[ROOT], results[baseline]
        for key in ('wall', 'eof', 'cpu'):
            ratio = statistics.median(a[key] / b[key] for a, b in zip(new, old))
            print(f'this/baseline {key}: {ratio:.3f} (median of {runs} paired runs)')
    print(f'load average (1, 5, 15 min) at the end: {_load()}')


def scale(sizes: List[int]) -> None:
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for size in sizes:
            pairs = Path(scratch) / f'pairs-{size}.jsonl'
            synthetic_pairs(pairs, size)
            if not rows:
                run_once(ROOT, pairs)  # warm-up
            result = run_once(ROOT, pairs)
            rows.append((size, result, _load()))
            print(f'{size:>6} pairs: wall {result["wall"]:.2f} s, CPU all processes {result["cpu"]:.2f} s, '
                  f'peak CLI {result["cli_mib"]:.0f} MiB, largest process {result["largest_mib"]:.0f} MiB, '
                  f'load {rows[-1][2]}', flush=True)
    base_size, base, _ = rows[0]
    for size, result, _ in rows[1:]:
        per = lambda r, n, key: r[key] / n  # noqa: E731
        print(f'{size} vs {base_size}: CPU per pair {per(result, size, "cpu") / per(base, base_size, "cpu"):.2f}x, '
              f'wall per pair {per(result, size, "wall") / per(base, base_size, "wall"):.2f}x, '
              f'peak CLI {result["cli_mib"] / base["cli_mib"]:.2f}x, '
              f'largest process {result["largest_mib"] / base["largest_mib"]:.2f}x')


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('what', choices=('one', 'labelled', 'yale', 'scale'))
    parser.add_argument('--baseline', type=Path, help='another source tree, run side by side')
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--sizes', default='1000,10000,50000')
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['_measure']:
        print(json.dumps(_measure(Path(argv[1]), Path(argv[2]))))
        return 0
    args = parser.parse_args(argv)
    if args.what == 'scale':
        scale([int(s) for s in args.sizes.split(',')])
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        pairs = Path(scratch) / 'pairs.jsonl'
        if args.what == 'one':
            pairs.write_text(json.dumps(ONE_PAIR) + '\n', encoding='utf-8')
        elif args.what == 'yale':
            print(f'{yale_pairs(pairs)} Yale PHYSICS o3-mini solutions')
        else:
            print(f'{labelled_pairs(pairs)} labelled pairs')
        side_by_side(pairs, args.baseline, args.runs)
    return 0


if __name__ == '__main__':
    sys.exit(main())
