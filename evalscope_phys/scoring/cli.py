"""``evalscope-phys score``: score (reference, answer) pairs from JSONL.

Input lines carry ``gt`` and ``gen`` and optionally ``tolerance``, ``unit`` and ``multiple``;
output lines are the input lines plus ``eed``, ``strict``, ``lenient``, ``reason``, ``seconds``
(and ``scored``, ``extracted``, ``detail`` when there is one), and ``needs_judge``/``judge_reason``:
whether the adapters would send this answer to an LLM judge under ``--judge-scope``
(:func:`evalscope_phys.judge.routing.needs_judge`; an answer that instructs its grader is
``needs_judge: false``, ``judge_reason: "addresses_grader"``, as in the adapters). Output is written in
input order, one line per input line, so an interrupted run resumes where it stopped: lines already in
OUT are checked against IN and skipped; a torn last line (the run was killed mid-write) is dropped and
that pair scored again.

Any bytes: a line that is not UTF-8, not JSON, not an object or has no ``gt``/``gen`` still gets
its output line, with ``reason: "unreadable_input"``, ``scored: false``, ``line`` (its number in
IN) and a ``detail`` saying what is wrong; the batch goes on. Blank lines are skipped and counted.
Strings that are not valid Unicode (a lone surrogate ``"\\ud800"``) are written as JSON escapes.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Dict, Iterator, Optional

from evalscope_phys.jsonl import JsonlAppender, iter_lines, repair_torn_tail

from .run.limits import ANSWER_DEADLINE
from evalscope_phys.judge.routing import DEFAULT_SCOPE, JUDGE_SCOPES, judged_answer, needs_judge

ADDED_FIELDS = ('eed', 'strict', 'lenient', 'reason', 'seconds', 'scored', 'extracted', 'needs_judge',
                'judge_reason')
UNREADABLE = 'unreadable_input'
"""The reason of an input line the CLI could not read (not an engine verdict; never scored)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--pairs', required=True, metavar='IN.jsonl', help='lines with gt, gen[, tolerance, unit]')
    parser.add_argument('--out', required=True, metavar='OUT.jsonl', help='scored lines (resumed if present)')
    parser.add_argument('--workers', type=int, default=None,
                        help='scoring worker processes (and calling threads); default: min(2, CPUs)')
    parser.add_argument('--timeout', type=float, default=ANSWER_DEADLINE, help='hard deadline per answer, seconds')
    parser.add_argument('--no-eed', action='store_true', help='skip the EED score (strict/lenient only)')
    parser.add_argument('--quiet', action='store_true', help='no progress bar')
    parser.add_argument('--judge-scope', choices=JUDGE_SCOPES, default=DEFAULT_SCOPE,
                        help='which answers needs_judge marks: undecided (what the rules cannot decide, default), '
                             'rejected (also rule rejections) or all')


@dataclass(frozen=True)
class InputLine:
    """One non-blank line of IN: a row to score, or why it cannot be read."""

    number: int
    row: Optional[Dict[str, Any]]
    problem: str = ''
    size: int = 0
    """The line's length in bytes (what holding it costs)."""


def parse_line(number: int, raw: bytes) -> InputLine:
    """Read one line; never raises (``problem`` says what is wrong with an unreadable one)."""
    line = _parsed(number, raw)
    return replace(line, size=len(raw))


def _parsed(number: int, raw: bytes) -> InputLine:
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as exc:
        return InputLine(number, None, f'line {number}: not UTF-8 ({exc.reason} at byte {exc.start}: '
                                       f'{raw[exc.start:exc.start + 8]!r})')
    try:
        row = json.loads(text, strict=False)  # strict=False: raw control characters (NUL) inside strings
    except (ValueError, RecursionError) as exc:
        return InputLine(number, None, f'line {number}: not JSON ({str(exc)[:200]})')
    if not isinstance(row, dict):
        return InputLine(number, None, f'line {number}: a JSON {type(row).__name__}, not an object')
    missing = [key for key in ('gt', 'gen') if key not in row]
    if missing:
        return InputLine(number, None, f'line {number}: no {" or ".join(repr(k) for k in missing)}')
    try:
        json.dumps(row)  # what cannot be written back (nesting at the recursion limit) is refused here
    except (ValueError, RecursionError) as exc:
        return InputLine(number, None, f'line {number}: cannot be written back ({type(exc).__name__})')
    return InputLine(number, row)


class InputFile:
    """The non-blank lines of IN, read as they are consumed: a file of any length is never held whole."""

    def __init__(self, path: str):
        if not os.path.isfile(path):
            raise SystemExit(f'{path}: no such file')
        self.path = path
        self.blank = 0
        """Blank lines skipped so far."""

    def __iter__(self) -> Iterator[InputLine]:
        self.blank = 0
        for number, raw in enumerate(iter_lines(self.path), 1):
            raw = raw[:-1] if raw.endswith(b'\r') else raw
            if not raw.strip():
                self.blank += 1
                continue
            yield parse_line(number, raw)

    def count(self) -> int:
        """How many non-blank lines (one pass over the bytes; nothing parsed)."""
        return sum(1 for raw in iter_lines(self.path) if raw.strip())


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON (NaN equals NaN; 1 and 1.0 do not)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _matches(out: Dict[str, Any], line: InputLine) -> bool:
    if line.row is None:
        return out.get('reason') == UNREADABLE and out.get('line') == line.number
    return _same(out.get('gt'), line.row['gt']) and _same(out.get('gen'), line.row['gen'])


def done_lines(path: str, lines: Iterator[InputLine], total: Optional[int] = None) -> int:
    """How many input lines OUT already holds, taking that many from ``lines`` (the rest are to do).

    A torn last line is dropped; any other mismatch stops. Both files are read line by line.
    """
    repair = repair_torn_tail(path)
    if repair.action == 'dropped':
        print(f'{path}: dropped a torn last line ({len(repair.dropped)} bytes; the run was killed mid-write); '
              'that pair is scored again', file=sys.stderr)
    if not os.path.exists(path):
        return 0
    count = 0
    of = f' {total}' if total is not None else ''
    for index, raw in enumerate(iter_lines(path)):
        try:
            out = json.loads(raw)
        except ValueError:
            raise SystemExit(f'{path}:{index + 1}: not a JSON line; remove the file or choose another --out')
        line = next(lines, None)
        if line is None or not isinstance(out, dict) or not _matches(out, line):
            raise SystemExit(f'{path} does not match the{of} input lines at line {index + 1}; '
                             'remove it or choose another --out')
        count += 1
    return count


def unreadable_result(line: InputLine) -> Dict[str, Any]:
    return {'line': line.number, 'gt': None, 'gen': None, 'eed': None, 'strict': None, 'lenient': None,
            'reason': UNREADABLE, 'seconds': 0.0, 'scored': False, 'extracted': None, 'needs_judge': False,
            'judge_reason': UNREADABLE, 'detail': line.problem}


def score_line(line: InputLine, timeout: float, eed: bool, scope: str = DEFAULT_SCOPE) -> Dict[str, Any]:
    """The output line for one input line; never raises."""
    if line.row is None:
        return unreadable_result(line)
    from . import score_answer

    row = line.row
    try:
        verdict = score_answer(row['gt'], row['gen'], tolerance=row.get('tolerance'), unit=row.get('unit'),
                               multiple=row.get('multiple'), eed=eed, timeout=timeout)
        data = verdict.to_dict()
    except Exception as exc:  # a bad option in one line must not stop the batch
        data = {'eed': None, 'strict': None, 'lenient': None, 'reason': 'error', 'seconds': 0.0,
                'scored': False, 'extracted': None, 'detail': f'{type(exc).__name__}: {str(exc)[:300]}'}
    gt = row['gt']
    reference = gt if isinstance(gt, str) else ' ; '.join(map(str, gt)) if isinstance(gt, list) else str(gt)
    # the adapters' routing: an answer that instructs its grader is refused by rule, never sent to be accepted
    answer = judged_answer(data, row['gen'] if isinstance(row['gen'], str) else None)
    data['needs_judge'], data['judge_reason'] = needs_judge(data, reference, scope, answer)
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


CACHE_BYTES = 2 * 1024 * 1024
"""The CLI's verdict cache: repeats close together in IN (pass@k samples) are scored once, and a
file of distinct pairs does not grow the process (the engine's default bound is 64 MiB)."""
IN_FLIGHT_PER_WORKER = 32
"""Pairs handed to the scoring threads ahead of the one being written, per worker. Why this many: OUT
is written in IN's order, so one slow answer holds back the writing of those after it, and once the
other workers have scored every pair handed out they wait for it. Real model output has such a long
tail (on Yale's 999 o3-mini solutions, 4 per worker left the two workers idle for ~0.3 s of a 7 s
run). Memory stays bounded: at most this many lines per worker, and :data:`IN_FLIGHT_BYTES`."""
IN_FLIGHT_BYTES = 8 * 1024 * 1024
"""Bytes of input lines held ahead of the one being written (always at least one line)."""


def run(args: argparse.Namespace) -> int:
    from . import engine  # registers the engine for the forkserver's preload before the boot
    from .run import pool as scoring_pool

    workers = args.workers or scoring_pool.default_worker_count()
    if args.workers:
        scoring_pool.configure_pool(args.workers)
    scoring_pool.start_pool(workers=1)  # one worker boots while the input is read
    engine.set_cache_limit(CACHE_BYTES)
    source = InputFile(args.pairs)
    total = source.count()
    lines = iter(source)
    done = done_lines(args.out, lines, total)
    todo = total - done
    workers = max(1, min(workers, todo))  # a few pairs do not wait for (or compete with) a full pool
    problem = scoring_pool.start_pool(wait=True, workers=workers)  # the boot is not any answer's time
    if problem:
        print(f'scoring workers did not start: {problem}', file=sys.stderr)
    bar = _progress(total, done, args.quiet)
    counts = {'strict': 0, 'scored': 0, 'unreadable': 0, 'judge': 0, 'new': 0}

    def write(result: Dict[str, Any]) -> None:
        out.append(result)
        counts['new'] += 1
        counts['strict'] += bool(result.get('strict'))
        counts['scored'] += bool(result.get('scored'))
        counts['unreadable'] += result.get('reason') == UNREADABLE
        counts['judge'] += bool(result.get('needs_judge'))
        if bar is not None:
            bar.update(1)

    with JsonlAppender(args.out) as out, ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque = deque()
        held = 0
        for line in lines:
            pending.append((pool.submit(score_line, line, args.timeout, not args.no_eed, args.judge_scope), line.size))
            held += line.size
            while pending and (len(pending) >= workers * IN_FLIGHT_PER_WORKER or held > IN_FLIGHT_BYTES):
                future, size = pending.popleft()
                held -= size
                write(future.result())
        while pending:
            write(pending.popleft()[0].result())
    if bar is not None:
        bar.close()
    new = counts['new']
    notes = f', {counts["unreadable"]} unreadable input lines' if counts['unreadable'] else ''
    notes += f', {source.blank} blank lines skipped' if source.blank else ''
    print(f'scored {new} new pairs ({done} already in {args.out}); '
          f'strict {counts["strict"]}/{new}, unscored {new - counts["scored"]}, '
          f'needs_judge ({args.judge_scope}) {counts["judge"]}{notes}', file=sys.stderr)
    return 0
