"""One readable table from an EvalScope work dir, and the reasons a run should count as failed.

Used by the demo and the end-to-end tests; the bash scorer (``scripts/score_reports.sh``) is the
schema-checked version for suites.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Sequence

from evalscope_phys.suite.results import read_report


def load_reports(work_dir: Path) -> List[Dict[str, Any]]:
    """Every ``reports/<model>/<dataset>.json`` under ``work_dir`` (one run, any depth)."""
    return [read_report(path) for path in sorted(Path(work_dir).rglob('reports/*/*.json'))]


def metric_label(identity: Dict[str, Any]) -> str:
    """``strict_acc``, or ``strict_acc [difficulty=hard]`` for a metric broken down by a dimension."""
    dimensions = identity.get('dimensions') or {}
    if not dimensions:
        return identity['name']
    return f"{identity['name']} [{', '.join(f'{k}={v}' for k, v in sorted(dimensions.items()))}]"


def format_table(reports: Sequence[Dict[str, Any]]) -> str:
    """Markdown: dataset x metric with score and n; the primary metric first and starred, breakdowns last."""
    lines = ['| dataset | metric | score | n |', '|---|---|---:|---:|']
    for report in reports:
        primary = report.get('primary_metric_identity') or {}
        metrics = sorted(report.get('metrics', []),
                         key=lambda m: (m['identity'] != primary, bool(m['identity'].get('dimensions'))))
        for metric in metrics:
            label = metric_label(metric['identity']) + (' *' if metric['identity'] == primary else '')
            lines.append(f"| {report['dataset_name']} | {label} | {metric['score']:.4f} | {metric['num']} |")
    if len(lines) == 2:
        lines.append('| (no reports) | | | |')
    return '\n'.join(lines)


def report_problems(reports: Sequence[Dict[str, Any]], expected: Sequence[str] = ()) -> List[str]:
    """Human-readable reasons why these reports do not describe a complete, error-free run."""
    problems = []
    seen = {report.get('dataset_name') for report in reports}
    problems += [f'no report for {name}' for name in expected if name not in seen]
    for report in reports:
        summary = report.get('execution_summary') or {}
        name = report.get('dataset_name')
        if summary.get('errored'):
            problems.append(f'{name}: {summary["errored"]} of {summary.get("requested")} samples errored')
        if summary.get('incomplete'):
            problems.append(f'{name}: run incomplete')
    return problems
