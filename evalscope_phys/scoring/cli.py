"""``evalscope-phys score``: score (reference, answer) pairs from JSONL.

Input lines carry ``gt`` and ``gen`` and optionally ``tolerance``, ``unit`` and ``multiple``;
output lines are the input lines plus ``eed``, ``strict``, ``lenient``, ``reason``, ``seconds``
(and ``scored``, ``extracted``), and ``needs_judge``/``judge_reason``: whether the adapters would send
this answer to an LLM judge under ``--judge-scope`` (:func:`evalscope_phys.scoring.routing.needs_judge`).
Output is written in input order, one line per input line, so an interrupted run resumes where it
stopped: lines already in OUT are checked against IN and skipped.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import List

from .routing import DEFAULT_SCOPE, JUDGE_SCOPES, needs_judge

ADDED_FIELDS = ('eed', 'strict', 'lenient', 'reason', 'seconds', 'scored', 'extracted', 'needs_judge',
                'judge_reason')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--pairs', required=True, metavar='IN.jsonl', help='lines with gt, gen[, tolerance, unit]')
    parser.add_argument('--out', required=True, metavar='OUT.jsonl', help='scored lines (resumed if present)')
    parser.add_argument('--workers', type=int, default=None,
                        help='scoring worker processes (and calling threads); default: min(2, CPUs)')
    parser.add_argument('--timeout', type=float, default=5.0, help='hard deadline per answer, seconds')
    parser.add_argument('--no-eed', action='store_true', help='skip the EED score (strict/lenient only)')
    parser.add_argument('--quiet', action='store_true', help='no progress bar')
    parser.add_argument('--judge-scope', choices=JUDGE_SCOPES, default=DEFAULT_SCOPE,
                        help='which answers needs_judge marks: undecided (what the rules cannot decide, default), '
                             'rejected (also rule rejections) or all')


def _read_lines(path: str) -> List[dict]:
    rows = []
    with open(path, encoding='utf-8') as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SystemExit(f'{path}:{number}: not JSON ({exc})')
            if not isinstance(row, dict) or 'gt' not in row or 'gen' not in row:
                raise SystemExit(f'{path}:{number}: a line needs "gt" and "gen"')
            rows.append(row)
    return rows


def _done_lines(path: str, rows: List[dict]) -> int:
    """How many input lines OUT already holds; a torn last line is cut off."""
    if not os.path.exists(path):
        return 0
    good, offset = 0, 0
    with open(path, 'rb') as handle:
        for raw in handle:
            try:
                row = json.loads(raw)
            except ValueError:
                break
            if good >= len(rows) or row.get('gt') != rows[good]['gt'] or row.get('gen') != rows[good]['gen']:
                raise SystemExit(f'{path} does not match {len(rows)} input lines at line {good + 1}; '
                                 'remove it or choose another --out')
            good += 1
            offset += len(raw)
    with open(path, 'r+b') as handle:
        handle.truncate(offset)
    return good


def _score(row: dict, timeout: float, eed: bool, scope: str = DEFAULT_SCOPE) -> dict:
    from . import score_answer
    try:
        verdict = score_answer(row['gt'], row['gen'], tolerance=row.get('tolerance'), unit=row.get('unit'),
                               multiple=row.get('multiple'), eed=eed, timeout=timeout)
        data = verdict.to_dict()
    except Exception as exc:  # a bad option in one line must not stop the batch
        data = {'eed': None, 'strict': None, 'lenient': None, 'reason': 'error', 'seconds': 0.0,
                'scored': False, 'extracted': None, 'detail': f'{type(exc).__name__}: {exc}'}
    gt = row['gt']
    reference = gt if isinstance(gt, str) else ' ; '.join(map(str, gt)) if isinstance(gt, list) else str(gt)
    data['needs_judge'], data['judge_reason'] = needs_judge(data, reference, scope)
    out = dict(row)
    for name in ADDED_FIELDS:
        out[name] = data.get(name)
    if data.get('detail'):
        out['detail'] = data['detail']
    return out


def _progress(total: int, initial: int, quiet: bool):
    if quiet:
        return None
    from tqdm import tqdm
    return tqdm(total=total, initial=initial, unit='pair', file=sys.stderr, dynamic_ncols=True)


def run(args: argparse.Namespace) -> int:
    from . import pool as scoring_pool

    rows = _read_lines(args.pairs)
    done = _done_lines(args.out, rows)
    todo = rows[done:]
    workers = args.workers or scoring_pool.default_worker_count()
    if args.workers:
        scoring_pool.configure_pool(args.workers)
    bar = _progress(len(rows), done, args.quiet)
    counts = {'strict': 0, 'scored': 0, 'judge': 0}
    with open(args.out, 'a', encoding='utf-8') as out, ThreadPoolExecutor(max_workers=workers) as pool:
        for result in pool.map(lambda row: _score(row, args.timeout, not args.no_eed, args.judge_scope), todo):
            out.write(json.dumps(result, ensure_ascii=False) + '\n')
            out.flush()
            counts['strict'] += bool(result.get('strict'))
            counts['scored'] += bool(result.get('scored'))
            counts['judge'] += bool(result.get('needs_judge'))
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    print(f'scored {len(todo)} new pairs ({done} already in {args.out}); '
          f'strict {counts["strict"]}/{len(todo)}, unscored {len(todo) - counts["scored"]}, '
          f'needs_judge ({args.judge_scope}) {counts["judge"]}', file=sys.stderr)
    return 0
