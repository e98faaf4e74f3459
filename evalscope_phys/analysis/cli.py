"""For every wrong answer in an EvalScope run, a judge names the first wrong step and its class.

Classes (PHYBench's error analysis): PP (physical perception), RR-semantic and RR-symbolic (robust
reasoning), none (the solution is right: the scorer was wrong), unclear. Wrong = strict false or
EED < 100 in the run's reviews; the judge sees the problem, the record's reference solution (when
it has one), the reference answer, the model's solution as numbered steps and the scorer's verdict.

Outputs in RUN_DIR/error_analysis/: <model>/<dataset>.jsonl (one line per judged sample, an
append-only cache: a rerun makes no call it already made, and asks again only for failed calls),
<dataset>.md (class shares per model, domain and difficulty; `none` answers, unparseable replies
and failures listed), <dataset>.tsv and <dataset>.png (stacked bars by domain).
Exit status: 0 when every sample got an answer, 1 when some judge calls failed (rerun to retry), 2 on bad input.

Example:
  evalscope-phys error-analysis outputs/run1 --judge-model qwen2.5-72b-instruct \\
      --judge-api-url http://127.0.0.1:8000/v1 --dataset phybench
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from evalscope_phys.llm import JsonlCache
from evalscope_phys.safe_paths import UnsafePathError, inside_root, writable_file
from evalscope_phys.suite.results import RunDirError

from .classify import JudgeSettings, Diagnosis, classify
from .contract import PROMPT_PATH
from .plot import plot_domains
from .reviews import scan_reviews
from .tables import markdown_report, share_rows, tsv

OUT_DIR = 'error_analysis'
DEFAULT_KEY_ENV = 'EVALSCOPE_PHYS_JUDGE_API_KEY'


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description, p.formatter_class = __doc__, argparse.RawDescriptionHelpFormatter
    p.add_argument('run_dir', type=Path, metavar='RUN_DIR', help='an EvalScope output dir (holds reviews/)')
    p.add_argument('--judge-model', required=True, help='model name sent to the judge endpoint')
    p.add_argument('--judge-api-url', required=True, metavar='URL', help='OpenAI-compatible base URL (…/v1)')
    p.add_argument('--judge-api-key-env', default=DEFAULT_KEY_ENV, metavar='VAR',
                   help=f'environment variable holding the judge key (default {DEFAULT_KEY_ENV}; keys are never '
                        'read from files)')
    p.add_argument('--dataset', default='phybench', help='dataset in the run to analyse (default phybench)')
    p.add_argument('--model', default=None, help='only this model of the run (default: every model)')
    p.add_argument('--limit', type=int, default=None, metavar='N', help='at most N wrong samples per model')
    p.add_argument('--concurrency', type=int, default=4, help='judge calls in flight (default 4)')
    p.add_argument('--retries', type=int, default=4, help='retries of a failed call on 429/5xx/timeouts (default 4)')
    p.add_argument('--backoff', type=float, default=1.0, help='first retry delay in s, doubling (default 1)')
    p.add_argument('--timeout', type=float, default=120.0, help='seconds per call (default 120)')
    p.add_argument('--max-tokens', type=int, default=1024, help='judge reply budget (default 1024)')
    p.add_argument('--prompt', type=Path, default=PROMPT_PATH,
                   help='prompt file with the placeholders of the bundled error_prompt.txt (default: that file)')


def run(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        print('error-analysis: --limit must be at least 1', file=sys.stderr)
        return 2
    try:
        scan = scan_reviews(args.run_dir, args.dataset, args.model)
    except RunDirError as exc:
        print(f'error-analysis: {exc}', file=sys.stderr)
        return 2
    for where in scan.unreadable:
        print(f'[error-analysis] skipped an unreadable review line: {where}', file=sys.stderr)
    settings = JudgeSettings(base_url=args.judge_api_url, model=args.judge_model,
                             api_key=os.environ.get(args.judge_api_key_env) or None, concurrency=args.concurrency,
                             max_retries=args.retries, backoff=args.backoff, timeout=args.timeout,
                             max_tokens=args.max_tokens, prompt_path=args.prompt)
    out = Path(args.run_dir) / OUT_DIR
    outcomes, calls, failed = [], 0, 0
    for model in scan.models:
        samples = [s for s in scan.wrong if s.model == model][:args.limit]
        if not samples:
            continue
        try:  # a symlinked error_analysis/, model folder or cache file may lead outside the run: refused
            cache = JsonlCache(inside_root(out / model / f'{args.dataset}.jsonl', args.run_dir))
        except UnsafePathError as exc:
            print(f'error-analysis: {exc}', file=sys.stderr)
            return 2
        if cache.dropped:
            print(f'[error-analysis] {cache.path}: dropped {cache.dropped} unreadable line(s) (a torn write); '
                  'those samples are asked again', file=sys.stderr)
        print(f'[error-analysis] {model}: {len(samples)} wrong {args.dataset} sample(s) of {scan.total}; '
              f'{len(cache)} cached answer(s) in {cache.path}', file=sys.stderr, flush=True)
        try:
            found, stats = classify(samples, settings, cache, progress=_progress(len(samples)))
        except (OSError, ValueError) as exc:
            print(f'error-analysis: {exc}', file=sys.stderr)
            return 2
        outcomes += found
        calls += stats.calls
        failed += stats.errors
    rows = share_rows(outcomes)
    try:
        inside_root(out, args.run_dir)
        for suffix in ('md', 'tsv', 'png'):
            writable_file(out / f'{args.dataset}.{suffix}', args.run_dir)
    except UnsafePathError as exc:
        print(f'error-analysis: {exc}', file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    report = markdown_report(scan, outcomes, rows, args.judge_model, args.limit)
    (out / f'{args.dataset}.md').write_text(report, encoding='utf-8')
    (out / f'{args.dataset}.tsv').write_text(tsv(rows), encoding='utf-8')
    plot_domains(rows, out / f'{args.dataset}.png', f'{args.dataset}: first-error class by domain')
    print(report)
    print(f'[error-analysis] {len(outcomes)} sample(s), {calls} judge request(s), '
          f'{sum(o.cached for o in outcomes)} from the cache; outputs in {out}', file=sys.stderr)
    if failed:
        print(f'[error-analysis] {failed} judge call(s) failed; run the same command again to retry them',
              file=sys.stderr)
        return 1
    return 0


def _progress(total: int):
    done = {'n': 0}

    def report(outcome: Diagnosis) -> None:
        done['n'] += 1
        where = 'cached' if outcome.cached else outcome.label
        print(f'[error-analysis] {done["n"]}/{total} {outcome.sample.sample_id}: {where}'
              + (f' ({outcome.reason})' if outcome.label == 'error' else ''), file=sys.stderr, flush=True)
    return report
