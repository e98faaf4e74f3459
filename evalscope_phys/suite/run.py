"""Run a suite: one EvalScope ``run_task`` per seed inside one suite work dir, resumable.

Layout: ``<work_dir>/suite.json`` (what was asked, without keys) and ``<work_dir>/seed_<n>/`` (a
normal EvalScope output dir). A re-run of the same work dir skips seeds whose reports are complete
and hands unfinished ones to EvalScope's own cache (``use_cache``), so finished predictions are
never requested twice.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import yaml

from evalscope_phys.redact import redact

from .config import Suite, sub_run_name
from .passk import write_kmetrics
from .results import read_report

SUITE_MANIFEST = 'suite.json'


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


def resolve_task_configs(configs: Sequence[Tuple[int, Dict[str, Any]]]) -> List[str]:
    """Validate each dict through EvalScope's TaskConfig and render it as YAML (keys masked)."""
    from evalscope.config import TaskConfig

    rendered = []
    for seed, cfg in configs:
        task = TaskConfig.from_dict(cfg)
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


def run_suite(suite: Suite, configs: Sequence[Tuple[int, Dict[str, Any]]], work_dir: Path,
              run_task: Optional[Callable[[Dict[str, Any]], Any]] = None) -> List[SubRunOutcome]:
    """Run (or resume) every seed's sub-run, then write pass@k / maj@k when ``repeats > 1``."""
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
            print(f'[suite {suite.name}] seed {seed} ({index}/{len(configs)}): {status} -> {sub_run}',
                  file=sys.stderr, flush=True)
            try:
                run_task(cfg)
            except Exception as exc:  # one seed's failure must not lose the others; a re-run resumes it
                print(f'[suite {suite.name}] seed {seed} failed: {type(exc).__name__}: {exc}', file=sys.stderr)
                outcomes.append(SubRunOutcome(seed, sub_run, 'failed', f'{type(exc).__name__}: {exc}'))
                continue
            if not _complete(sub_run, cfg['datasets']):
                status = 'incomplete'
        if suite.repeats > 1:
            write_kmetrics(sub_run, suite.repeats)
        outcomes.append(SubRunOutcome(seed, sub_run, status))
    return outcomes
