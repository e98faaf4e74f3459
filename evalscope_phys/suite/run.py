"""Run a suite: one EvalScope ``run_task`` per seed inside one suite work dir, resumable.

Layout: ``<work_dir>/suite.json`` (what was asked, without keys) and ``<work_dir>/seed_<n>/`` (a
normal EvalScope output dir). A re-run of the same work dir skips seeds whose reports are complete
and hands unfinished ones to EvalScope's own cache (``use_cache``), so finished predictions are
never requested twice.

Before a seed is resumed, a torn last line in its cache files (``predictions/`` and ``reviews/``,
left by a run killed mid-write) is repaired (:func:`evalscope_phys.jsonl.repair_torn_tail`):
EvalScope skips an unparseable line and appends after it without checking for the newline, so the
re-asked record would be glued to the fragment, lost again, and asked again on every resume.
"""
from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import yaml

from evalscope_phys.jsonl import TailRepair, repair_torn_tail
from evalscope_phys.safe_paths import UnsafePathError, inside_root
from evalscope_phys.redact import redact

from .config import Suite, sub_run_name
from .passk import write_kmetrics
from .results import read_report

SUITE_MANIFEST = 'suite.json'
#: everything EvalScope prints during a suite run (logs, progress bars), unless --verbose
CONSOLE_LOG = 'evalscope.log'


@dataclass(frozen=True)
class SubRunOutcome:
    """What happened to one seed's sub-run."""

    seed: int
    path: Path
    status: str  # 'skipped' (already complete), 'resumed', 'ran', 'incomplete' (errored samples), 'failed'
    error: str = ''


def _complete(run: Path, datasets: Sequence[str]) -> bool:
    """True when every dataset has a report that says all requested samples finished without error."""
    for dataset in datasets:
        reports = list(run.glob(f'reports/*/{dataset}.json'))
        if not reports:
            return False
        for path in reports:
            try:
                summary = read_report(path).get('execution_summary') or {}
            except ValueError:
                return False
            if summary.get('incomplete', True) or summary.get('errored', 1):
                return False
    return True


def repair_cache_files(run: Path) -> List[Tuple[Path, TailRepair]]:
    """Repair torn last lines in a run's EvalScope cache files; (file, what was done) for each changed."""
    repaired = []
    for path in sorted(run.glob('predictions/*/*.jsonl')) + sorted(run.glob('reviews/*/*.jsonl')):
        inside_root(path, run)  # a symlinked file or model folder may lead outside the run: refused
        repair = repair_torn_tail(path)
        if repair.action != 'none':
            repaired.append((path, repair))
    return repaired


def resolve_task_configs(configs: Sequence[Tuple[int, Dict[str, Any]]]) -> List[str]:
    """Validate each dict through EvalScope's TaskConfig and render it as YAML (keys masked)."""
    import logging

    from evalscope.config import TaskConfig

    rendered = []
    evalscope_logger = logging.getLogger('evalscope')
    level = evalscope_logger.level
    for seed, cfg in configs:
        evalscope_logger.setLevel(logging.WARNING)  # its INFO notes on defaults are not the dry run's output
        try:
            task = TaskConfig.from_dict(cfg)
        finally:
            evalscope_logger.setLevel(level)
        text = yaml.safe_dump(redact(task.to_dict()), sort_keys=True, allow_unicode=True)
        rendered.append(f'--- # seed {seed}\n{text}')
    return rendered


def _write_manifest(work_dir: Path, suite: Suite, configs: Sequence[Tuple[int, Dict[str, Any]]]) -> None:
    work_dir.mkdir(parents=True, exist_ok=True)
    manifest = {'suite': suite.name, 'source': suite.source, 'datasets': list(configs[0][1]['datasets']),
                'seeds': [seed for seed, _ in configs], 'repeats': suite.repeats,
                'task_configs': {sub_run_name(seed): redact(cfg) for seed, cfg in configs}}
    tmp = work_dir / (SUITE_MANIFEST + '.tmp')
    tmp.write_text(json.dumps(manifest, indent=2, default=str), encoding='utf-8')
    tmp.replace(work_dir / SUITE_MANIFEST)


@contextmanager
def console_to(log_path: Optional[Path]) -> Iterator[IO[str]]:
    """Send everything written to file descriptors 1 and 2 to ``log_path``; yield a stream to the terminal.

    Why descriptors, not ``sys.stdout``: EvalScope's log handlers and progress bars hold their own
    references to the streams. ``None`` leaves the terminal as it is (``--verbose``).
    """
    if log_path is None:
        yield sys.stderr
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    terminal = os.fdopen(os.dup(2), 'w', buffering=1, encoding='utf-8', errors='replace')
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, 'ab') as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            yield terminal
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            terminal.close()


def run_suite(suite: Suite, configs: Sequence[Tuple[int, Dict[str, Any]]], work_dir: Path,
              run_task: Optional[Callable[[Dict[str, Any]], Any]] = None,
              progress: Optional[IO[str]] = None) -> List[SubRunOutcome]:
    """Run (or resume) every seed's sub-run, then write pass@k / maj@k when ``repeats > 1``.

    ``progress`` gets one line per seed (default: stderr).
    """
    progress = progress or sys.stderr
    if run_task is None:
        import evalscope_phys  # noqa: F401  registers our benchmarks with EvalScope
        from evalscope.run import run_task
    work_dir = Path(work_dir)
    _write_manifest(work_dir, suite, configs)
    outcomes = []
    for index, (seed, cfg) in enumerate(configs, 1):
        sub_run = work_dir / sub_run_name(seed)
        if _complete(sub_run, cfg['datasets']):
            status = 'skipped'
        else:
            status = 'ran'
            cfg = dict(cfg)
            if (sub_run / 'configs' / 'task_config.yaml').is_file():
                cfg['use_cache'] = str(sub_run)
                status = 'resumed'
                try:
                    repaired = repair_cache_files(sub_run)
                except UnsafePathError as exc:  # EvalScope would append through the link too: do not run
                    print(f'[suite {suite.name}] seed {seed} failed: {exc}', file=progress, flush=True)
                    outcomes.append(SubRunOutcome(seed, sub_run, 'failed', str(exc)))
                    continue
                for path, repair in repaired:
                    what = (f'dropped a torn last line ({len(repair.dropped)} bytes; that record is asked again)'
                            if repair.action == 'dropped' else 'added the missing final newline')
                    print(f'[suite {suite.name}] seed {seed}: {path}: {what}', file=progress, flush=True)
            print(f'[suite {suite.name}] seed {seed} ({index}/{len(configs)}): {status} -> {sub_run}',
                  file=progress, flush=True)
            try:
                run_task(cfg)
            except Exception as exc:  # one seed's failure must not lose the others; a re-run resumes it
                print(f'[suite {suite.name}] seed {seed} failed: {type(exc).__name__}: {exc}', file=progress,
                      flush=True)
                outcomes.append(SubRunOutcome(seed, sub_run, 'failed', f'{type(exc).__name__}: {exc}'))
                continue
            if not _complete(sub_run, cfg['datasets']):
                status = 'incomplete'
        if suite.repeats > 1:
            write_kmetrics(sub_run, suite.repeats)
        outcomes.append(SubRunOutcome(seed, sub_run, status))
    return outcomes
