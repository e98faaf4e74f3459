"""``evalscope-phys judge-selftest``: ask a judge about known-verdict pairs before trusting it with a run.

    evalscope-phys judge-selftest --judge-model M --judge-api-url U [--n 100] [--min 0.95]
    evalscope-phys judge-selftest --judge '{"models": [{...}, {...}], "aggregation": "majority_vote"}'

Prints accuracy by pair class, the score (mean per-class accuracy) and the pairs the judge got
wrong; exits 1 when the score is below ``--min``. References default to the package's own sample
problems; ``--references FILE`` (JSON/JSONL rows with question/problem and answer/answers [, unit])
uses yours, e.g. a benchmark's test file.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, Dict, Optional

from evalscope_phys.suite.config import ENV_JUDGE_API_KEY, ENV_JUDGE_API_URL, ENV_JUDGE_MODEL

from .selftest import DEFAULT_PAIRS, DEFAULT_REFERENCE_FILES, SelfTestError

#: what a judge request may take here before it counts as failed (the self-test must not hang)
REQUEST_TIMEOUT = 120.0
#: the whole self-test's bound (seconds): a hanging judge costs this, not a request timeout per pair
DEFAULT_DEADLINE = 600.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--judge-model', help=f'judge model (or {ENV_JUDGE_MODEL})')
    parser.add_argument('--judge-api-url', help=f'judge base URL (or {ENV_JUDGE_API_URL})')
    parser.add_argument('--judge-api-key', help=f'judge key (prefer {ENV_JUDGE_API_KEY})')
    parser.add_argument('--judge', metavar='JSON', help="a full EvalScope judge config (a panel: several models, "
                        "repeats, aggregation, min_valid_judges); overrides --judge-model")
    parser.add_argument('--n', type=int, default=DEFAULT_PAIRS, help=f'pairs to ask (default {DEFAULT_PAIRS})')
    parser.add_argument('--references', nargs='+', metavar='FILE', help='JSON/JSONL problems with their answers '
                        '(default: the package sample problems)')
    parser.add_argument('--seed', type=int, default=0, help='which references make which pairs')
    parser.add_argument('--workers', type=int, default=4, help='judge requests in flight')
    parser.add_argument('--deadline', type=float, default=DEFAULT_DEADLINE, metavar='SECONDS',
                        help=f'bound on the whole self-test; pairs not judged by then count as failed calls '
                             f'(default {DEFAULT_DEADLINE:g})')
    parser.add_argument('--min', type=float, default=None, help='exit 1 when the score is below this (e.g. 0.95)')
    parser.add_argument('--json', metavar='OUT', help='write the result (with every wrong pair) here')


def judge_from_args(args: argparse.Namespace) -> Dict[str, Any]:
    """The EvalScope judge config the flags (or environment) describe; a clear error when there is none."""
    from .panel import judge_config
    if args.judge:
        config = json.loads(args.judge)
        if not isinstance(config, dict):
            raise SelfTestError('--judge must be a JSON object (an EvalScope judge config)')
        return config
    model = args.judge_model or os.environ.get(ENV_JUDGE_MODEL)
    if not model:
        raise SelfTestError(f'no judge: pass --judge-model and --judge-api-url (or set {ENV_JUDGE_MODEL})')
    return judge_config(model, args.judge_api_url or os.environ.get(ENV_JUDGE_API_URL),
                        args.judge_api_key or os.environ.get(ENV_JUDGE_API_KEY),
                        generation_config={'temperature': 0.0, 'timeout': REQUEST_TIMEOUT, 'retries': 1})


def selftest(config: Dict[str, Any], n: int = DEFAULT_PAIRS, references=None, seed: int = 0, workers: int = 4,
             progress: bool = True, deadline: Optional[float] = DEFAULT_DEADLINE):
    """Build the pairs and ask the panel of ``config``; returns a :class:`~.selftest.SelfTestResult`."""
    from .panel import build_panel
    from .selftest import build_pairs, read_references, run_selftest
    refs = read_references([Path(p) for p in (references or DEFAULT_REFERENCE_FILES)])
    pairs = build_pairs(refs, n, seed)
    logging.getLogger('httpx').setLevel(logging.WARNING)
    logging.getLogger('httpx2').setLevel(logging.WARNING)
    return run_selftest(build_panel(config), pairs, workers=workers, progress=progress, deadline=deadline)


def run(args: argparse.Namespace) -> int:
    from .selftest import format_result
    try:
        config = judge_from_args(args)
        if args.deadline is not None and not args.deadline > 0:
            raise SelfTestError('--deadline must be a positive number of seconds')
        result = selftest(config, args.n, args.references, args.seed, args.workers, deadline=args.deadline)
    except (SelfTestError, ValueError) as exc:
        print(f'evalscope-phys judge-selftest: {exc}', file=sys.stderr)
        return 2
    print(format_result(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result.to_dict(), indent=1, ensure_ascii=False), encoding='utf-8')
    if args.min is not None and result.score < args.min:
        print(f'judge-selftest: score {result.score:.3f} is below {args.min}; do not trust this judge',
              file=sys.stderr)
        return 1
    return 0
