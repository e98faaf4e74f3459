"""``evalscope-phys suite run SUITE --model M --api-url U [--seeds N] [--limit N] [--dry-run]``.

SUITE is a YAML path or a packaged suite's name (``text``, ``vision``, ``all``). EvalScope's own output
goes to ``<work dir>/evalscope.log`` (``--verbose``: to the terminal too); the command ends with the
report table (``score-reports``; per-seed tables when jq is missing).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from datetime import datetime
from pathlib import Path

from evalscope_phys.llm.endpoint import JudgeEndpoint
from evalscope_phys.llm.flags import add_judge_arguments, judge_values
from evalscope_phys.llm.gate import DEFAULT_MAX_FAILURES

from .config import (SuiteConfigError, build_task_configs, check_suite_dataset_args, endpoint_from, load_suite,
                     pick_seeds)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest='action', metavar='ACTION', required=True)
    run = sub.add_parser('run', help='run a suite YAML over seeds (resumable)')
    run.add_argument('suite', help='suite YAML, or a packaged suite by name: text, vision, all')
    run.add_argument('--model', help='model name sent to the endpoint (or EVALSCOPE_PHYS_MODEL)')
    run.add_argument('--model-id', help='name used in output paths (default: derived from --model)')
    run.add_argument('--api-url', help='OpenAI-compatible base URL (or EVALSCOPE_PHYS_API_URL)')
    run.add_argument('--api-key', help='API key (prefer EVALSCOPE_PHYS_API_KEY; never put it in the YAML)')
    add_judge_arguments(run, JudgeEndpoint(base_url='', model=''), optional=(), env_fallback=True,
                        title='judge endpoint (also set by the suite YAML\'s judge: block)')
    run.add_argument('--seeds', type=int, help='number of seeds (first N of the suite list)')
    run.add_argument('--limit', type=float, help='samples per subset (int) or fraction (<1)')
    run.add_argument('--datasets', nargs='+', help='run only these datasets of the suite')
    run.add_argument('--datasets-dir', help='where <name>.yaml dataset files are looked for first (then next to the '
                     'suite, its ../datasets, and the package)')
    run.add_argument('--dataset-args', help='JSON merged over the resolved dataset_args, keyed by dataset')
    run.add_argument('--work-dir', help='suite output dir; an existing one is resumed '
                     '(default: outputs/suite_<name>_<timestamp>)')
    run.add_argument('--dry-run', action='store_true', help='print the resolved TaskConfigs and exit')
    run.add_argument('--verbose', action='store_true', help="show EvalScope's log on the terminal too")


#: the model name a dry run shows when none is given
DRY_RUN_MODEL = 'MODEL'


def print_table(work_dir: Path) -> None:
    """The schema-checked mean +- std table; without jq, one table per seed from the reports."""
    from evalscope_phys.reporting import format_table, load_reports
    from evalscope_phys.score_reports import missing_tool, score_reports

    if missing_tool() is None:
        result = score_reports(['--format', 'markdown', str(work_dir)], capture=True)
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        return
    print(f'({missing_tool()}; per-seed tables without the schema check)', file=sys.stderr)
    for seed_dir in sorted(p for p in work_dir.iterdir() if p.is_dir() and p.name.startswith('seed_')):
        print(f'\n{seed_dir.name}\n{format_table(load_reports(seed_dir))}')


def run(args: argparse.Namespace) -> int:
    from .config import deep_merge
    from .run import CONSOLE_LOG, console_to, resolve_task_configs, run_suite

    try:
        suite = load_suite(args.suite, args.datasets_dir)
        if args.dataset_args:
            extra = json.loads(args.dataset_args)
            unknown = set(extra) - set(suite.datasets)
            if unknown:
                raise SuiteConfigError(f'--dataset-args names datasets outside the suite: {sorted(unknown)}')
            merged = {n: deep_merge(suite.dataset_args[n], extra.get(n, {})) for n in suite.datasets}
            for n in extra:
                check_suite_dataset_args(n, merged[n], '--dataset-args')
            suite = dataclasses.replace(suite, dataset_args=merged)
        model = endpoint_from(args.model, args.api_url, args.api_key, args.model_id)
        if model is None and args.dry_run:
            model = endpoint_from(DRY_RUN_MODEL, args.api_url, args.api_key, args.model_id)
        if model is None:
            raise SuiteConfigError('no model: pass --model or set EVALSCOPE_PHYS_MODEL')
        judge_flags = judge_values(args)
        judge = endpoint_from(judge_flags['model'], judge_flags['base_url'], judge_flags['api_key'], judge=True)
        work_dir = Path(args.work_dir or f'outputs/suite_{suite.name}_{datetime.now():%Y%m%d_%H%M%S}')
        limit = None if args.limit is None else (int(args.limit) if args.limit >= 1 else args.limit)
        configs = build_task_configs(suite, model, work_dir, pick_seeds(suite, args.seeds), limit=limit,
                                     judge=judge, datasets=args.datasets)
    except (SuiteConfigError, json.JSONDecodeError) as exc:
        print(f'evalscope-phys suite: {exc}', file=sys.stderr)
        return 2
    if args.dry_run:
        for text in resolve_task_configs(configs):
            print(text)
        return 0
    stop = judge_selftest_gate(suite, configs, args.max_judge_failures)
    if stop:
        print(f'evalscope-phys suite: {stop}', file=sys.stderr)
        return 1
    log_path = None if args.verbose else work_dir / CONSOLE_LOG
    if log_path is not None:
        print(f'[suite {suite.name}] EvalScope log: {log_path}', file=sys.stderr, flush=True)
    with console_to(log_path) as terminal:
        outcomes = run_suite(suite, configs, work_dir, progress=terminal)
    for outcome in outcomes:
        print(f'seed {outcome.seed}: {outcome.status} {outcome.path} {outcome.error}'.rstrip())
    print(f'suite output: {work_dir}\nscore it: evalscope-phys score-reports --ci {work_dir}'
          f'{"  (baselines: add --compare-upstream)" if suite.name == "baselines" else ""}', flush=True)
    note = upstream_scoring_note(suite)
    if note:
        print(note, file=sys.stderr)
    print_table(work_dir)
    judge_errors = judge_call_failures(work_dir, configs, args.max_judge_failures)
    for error in judge_errors:
        print(f'evalscope-phys suite: {error}', file=sys.stderr)
    unfinished = [o.seed for o in outcomes if o.status in ('failed', 'incomplete')]
    if unfinished:
        print(f'seeds {unfinished} did not finish cleanly; run the same command again to resume them',
              file=sys.stderr)
        return 1
    return 1 if judge_errors else 0


def judge_call_failures(work_dir: Path, configs, max_failures: float = DEFAULT_MAX_FAILURES) -> list:
    """One gate error per seed x benchmark whose failed judge calls (``judge_summary.failures``) exceed the bar.

    The reports and the EvalScope cache are kept: the same command resumes, and ``--use-cache`` asks again.
    """
    from evalscope_phys.llm.gate import failure
    from .config import sub_run_name
    from .results import RunDirError, read_report
    errors = []
    for seed, cfg in configs:
        urls = sorted({str(m.get('api_url') or '?') for m in (cfg.get('judge') or {}).get('models') or []})
        for path in sorted((work_dir / sub_run_name(seed)).glob('reports/*/*.json')):
            try:
                summary = read_report(path).get('judge_summary') or {}
            except RunDirError:
                continue  # score-reports names unreadable reports
            failed = sum(v for v in (summary.get('failures') or {}).values() if isinstance(v, (int, float)))
            error = failure(f'suite run seed {seed} {path.stem}', int(failed),
                            int(summary.get('total_observations') or failed), ', '.join(urls) or '?', max_failures)
            if error is not None:
                errors.append(error)
    return errors


def upstream_scoring_note(suite) -> str:
    """Why ``--compare-upstream`` will refuse this run's phyx_oe, or '' (upstream's own scoring was used)."""
    if 'phyx_oe' not in suite.datasets:
        return ''
    from evalscope_phys import compat
    if compat.phyx_oe_fix_wanted() is not None:
        return ''
    return (f'note: phyx_oe was scored by evalscope-phys\'s runtime fix, so --compare-upstream refuses it (it would '
            f'compare us with ourselves); for EvalScope\'s own scoring run again with {compat.NO_PHYX_FIX_ENV}=1 '
            'and a fresh --work-dir')


def judge_selftest_gate(suite, configs, max_failures: float = DEFAULT_MAX_FAILURES) -> str:
    """Run the judge self-test a suite asks for (``judge.selftest_min``); '' when it passes, else why to stop.

    Why before anything else: a judge that fails known-verdict pairs would be paid for every judged
    answer of every seed, and its verdicts would still be wrong.
    """
    bar = (suite.judge or {}).get('selftest_min')
    if bar is None:
        return ''
    judge = configs[0][1].get('judge') if configs else None
    if not judge or not judge.get('models'):
        return 'judge.selftest_min needs a judge: pass --judge-model and --judge-api-url'
    from evalscope_phys.judge.cli import selftest, selftest_failure
    from evalscope_phys.judge.selftest import SelfTestError, format_result
    try:
        result = selftest(judge)
    except SelfTestError as exc:
        return f'judge self-test could not run: {exc}'
    print(format_result(result), file=sys.stderr)
    error = selftest_failure(result, judge, max_failures)
    if error is not None:
        return f'{error}; nothing was run'
    if result.score < bar:
        return (f'the judge scored {result.score:.3f} on the self-test, below judge.selftest_min {bar}; '
                'nothing was run (fix or replace the judge, or lower the bar)')
    print(f'judge self-test passed: {result.score:.3f} >= {bar}', file=sys.stderr)
    return ''
