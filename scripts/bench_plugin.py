#!/usr/bin/env python
"""Plugin overhead: ``phybench`` against upstream ``general_qa`` on the same generations and server.

    python scripts/bench_plugin.py [--repeats 5] [--runs 3] [--baseline DIR]

Both runs are the real ``evalscope eval`` CLI against one replay server (:mod:`evalscope_phys.serve`)
started here on 127.0.0.1: the 100 PHYBench problems with public answers (``../shared/data/phybench``)
asked ``--repeats`` times (500 generations by default), answered with the dev pairs' recorded
replies to the same problem (``../shared/data/eed``; the reference itself where a problem has none).
``general_qa`` gets the same questions and references as its ``query``/``response`` JSONL and scores
with Rouge; ``phybench`` scores with our engine. They run in turn (A B A B ...), each a fresh
process tree whose CPU is counted in full (the scoring workers and their forkserver included, as
orphans collected here: Linux only), and the ratio phybench/general_qa is taken pair by pair, with
the load average beside every figure. ``--baseline DIR`` adds ``phybench`` from another source tree
(``git archive <commit> | tar -x -C DIR``) to each round, so old and new plugin are compared in the
same run. Target: wall ratio <= 1.15.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'scripts'))

from bench_batch import _become_subreaper  # noqa: E402
from evalscope_phys.serve import build_records, replay_server, write_records  # noqa: E402

SHARED = Path(os.environ.get('EVALSCOPE_PHYS_SHARED', ROOT.parent / 'shared')) / 'data'
MODEL = 'replay-model'
FLAGS = ['--generation-config', json.dumps({'temperature': 0.0, 'timeout': 30, 'retries': 1, 'retry_interval': 0}),
         '--model-args', json.dumps({'max_retries': 0}), '--ignore-errors', '--no-timestamp']


def prepare(scratch: Path) -> Dict[str, Path]:
    """The PHYBench file, the same rows as ``general_qa`` JSONL, and the replay records."""
    problems = json.loads((SHARED / 'phybench' / 'PHYBench-fullques_v1.json').read_text(encoding='utf-8'))
    problems = [p for p in problems if str(p.get('answer') or '').strip()]
    replies: Dict[str, List[str]] = {}
    for line in (SHARED / 'eed' / 'eed_dev_pairs.jsonl').read_text(encoding='utf-8').splitlines():
        row = json.loads(line)
        found = re.search(r'id=(\d+)', row.get('source', ''))
        if found:
            replies.setdefault(found.group(1), []).append(f"The final answer is {row['gen'].strip()}")
    phybench = scratch / 'phybench'
    phybench.mkdir()
    (phybench / 'PHYBench-fullques_v1.json').write_text(json.dumps(problems), encoding='utf-8')
    general = scratch / 'general_qa'
    general.mkdir()
    write_records([{'query': p['content'], 'response': p['answer']} for p in problems], general / 'default.jsonl')
    records = build_records([(p['content'], replies.get(str(p['id'])) or [f"The answer is {p['answer']}"])
                             for p in problems])
    return {'phybench': phybench, 'general_qa': general, 'replay': write_records(records, scratch / 'replay.jsonl')}


def command(dataset: str, data: Path, url: str, work: Path, repeats: int) -> List[str]:
    args = {dataset: {'local_path': str(data)}}
    if dataset == 'general_qa':
        args[dataset]['metric_list'] = ['Rouge']
    return [sys.executable, '-m', 'evalscope.cli.cli', 'eval', '--model', MODEL, '--eval-type', 'openai_api',
            '--api-url', url, '--api-key', 'EMPTY', '--datasets', dataset, '--dataset-args', json.dumps(args),
            '--repeats', str(repeats), '--work-dir', str(work), *FLAGS]


def measure(argv: List[str], tree: Path) -> Dict[str, float]:
    """One run in a fresh measuring process, so its CPU and memory are this run's alone."""
    done = subprocess.run([sys.executable, __file__, '_measure', str(tree), json.dumps(argv)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-1500:])
    return json.loads(done.stdout)


def _measure(tree: Path, argv: List[str]) -> Dict[str, float]:
    _become_subreaper()
    env = dict(os.environ, PYTHONPATH=str(tree), HF_HUB_OFFLINE='1', TRANSFORMERS_OFFLINE='1')
    with tempfile.TemporaryFile() as log:  # a file, not a pipe: EvalScope logs far more than a pipe holds
        start = time.perf_counter()
        child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=log)
        _, status, _ = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        log.seek(0)
        stderr = log.read().decode(errors='replace')
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f'exit {os.waitstatus_to_exitcode(status)}: {stderr[-1500:]}')
    every = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {'wall': wall, 'cpu': every.ru_utime + every.ru_stime, 'load': os.getloadavg()[0]}


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['_measure']:
        print(json.dumps(_measure(Path(argv[1]), json.loads(argv[2]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--repeats', type=int, default=5, help='generations per problem (100 problems)')
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--baseline', type=Path, help='another source tree: its phybench runs in each round too')
    args = parser.parse_args(argv)
    sides = [('phybench', ROOT), ('general_qa', ROOT)] + ([('phybench', args.baseline)] if args.baseline else [])
    names = ['phybench', 'general_qa'] + (['phybench (baseline)'] if args.baseline else [])
    results: Dict[str, List[Dict[str, float]]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory() as scratch:
        paths = prepare(Path(scratch))
        with replay_server(paths['replay']) as url:
            for round_ in range(args.runs + 1):  # round 0 warms up (bytecode, page cache)
                for name, (dataset, tree) in zip(names, sides):
                    work = Path(scratch) / f'run-{round_}-{len(results[name])}-{dataset}'
                    result = measure(command(dataset, paths[dataset], url, work, args.repeats), tree)
                    if round_:
                        results[name].append(result)
                        print(f'round {round_} {name:20s} wall {result["wall"]:6.2f} s  CPU {result["cpu"]:6.2f} s  '
                              f'load {result["load"]:.2f}', flush=True)
    generations = 100 * args.repeats
    for name in names:
        rows = results[name]
        print(f'{name:20s} ({generations} generations): wall median {statistics.median(r["wall"] for r in rows):.2f} s, '
              f'CPU median {statistics.median(r["cpu"] for r in rows):.2f} s')
    base = results['general_qa']
    for name in names:
        if name == 'general_qa':
            continue
        for key in ('wall', 'cpu'):
            ratios = [a[key] / b[key] for a, b in zip(results[name], base)]
            print(f'{name}/general_qa {key}: median {statistics.median(ratios):.3f} '
                  f'(min {min(ratios):.3f}, max {max(ratios):.3f}, {len(ratios)} paired runs)')
    if args.baseline:  # old and new plugin, pair by pair (the same round's runs)
        for key in ('wall', 'cpu'):
            ratios = [a[key] / b[key] for a, b in zip(results['phybench'], results['phybench (baseline)'])]
            print(f'phybench/phybench (baseline) {key}: median {statistics.median(ratios):.3f} '
                  f'(min {min(ratios):.3f}, max {max(ratios):.3f}, {len(ratios)} paired runs)')
    print(f'load average (1, 5, 15 min) at the end: {" ".join(f"{x:.2f}" for x in os.getloadavg())}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
