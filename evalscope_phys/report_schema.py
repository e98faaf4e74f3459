"""The report schema's benchmark entries, derived from the registry: every benchmark a suite can name.

Why: ``scripts/score_reports.sh`` rejects a report whose benchmark has no entry in
``scripts/report_schema.json`` ("no expectations for benchmark 'phyx_oe'"), so an entry must exist for
each of our benchmarks and each upstream one a suite or dataset YAML names. An entry is what EvalScope's
registry says the benchmark reports: its primary metric, and the metrics every report of it carries
(the accuracies, plus ``scored`` for ours), under the names the report JSON uses (``acc`` -> ``accuracy``).
Metrics an adapter emits only for some answers or only with a judge (``eed`` outside PHYBench,
``judged``, ``process_*``) are not required. ``tests/test_report_schema.py`` fails when the file and
the registry disagree; ``python -m evalscope_phys.report_schema --write`` rewrites the entries.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

from evalscope_phys.registration import BENCHMARK_MODULES
from evalscope_phys.resources import resource_dir, resource_file

#: metrics every report of a benchmark carries when its adapter lists them
ALWAYS_REPORTED = frozenset({'strict_acc', 'lenient_acc', 'accuracy'})
#: our adapters report the share of answers the engine could score for every benchmark
OURS_ALSO = frozenset({'scored'})


def schema_file() -> Path:
    return resource_file('scripts', 'report_schema.json')


def nameable_benchmarks() -> List[str]:
    """Ours, every dataset YAML's benchmark and every benchmark a packaged suite lists."""
    from evalscope_phys.safe_yaml import load_limited

    names = set(BENCHMARK_MODULES)
    yamls = resource_dir('yamls')
    if yamls is not None:
        names |= {p.stem for p in (yamls / 'datasets').glob('*.yaml')}
        for suite in (yamls / 'suites').glob('*.yaml'):
            names |= set((load_limited(suite) or {}).get('datasets') or [])
    return sorted(names)


def expected_entry(name: str) -> Dict[str, Any]:
    """``{'metrics': [...], 'primary': ...}`` for one benchmark, from its registered metadata."""
    from evalscope_phys.compat import report_metric_name

    meta = _meta(name)
    listed = [report_metric_name(m if isinstance(m, str) else next(iter(m))) for m in meta.metric_list]
    primary = meta.primary_metric
    primary = getattr(primary, 'name', primary) or (listed[0] if len(listed) == 1 else None)
    primary = report_metric_name(primary) if primary else None
    required = ALWAYS_REPORTED | (OURS_ALSO if name in BENCHMARK_MODULES else frozenset()) | {primary}
    return {'metrics': [m for m in dict.fromkeys(listed) if m in required], 'primary': primary}


def _meta(name: str) -> Any:
    from evalscope.api.registry import BENCHMARK_REGISTRY

    return BENCHMARK_REGISTRY[name]


def disagreements(schema: Dict[str, Any], names: Optional[List[str]] = None) -> List[str]:
    """One line per benchmark whose entry is missing or differs from the registry."""
    problems = []
    for name in names or nameable_benchmarks():
        want, have = expected_entry(name), (schema.get('benchmarks') or {}).get(name)
        if have is None:
            problems.append(f'{name}: no entry (expected {json.dumps(want)})')
        elif set(have.get('metrics') or []) != set(want['metrics']) or have.get('primary') != want['primary']:
            problems.append(f'{name}: entry {json.dumps(have)} differs from the registry {json.dumps(want)}')
    return problems


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog='python -m evalscope_phys.report_schema', description=__doc__.split('\n')[0])
    parser.add_argument('--write', action='store_true', help='rewrite the benchmark entries from the registry')
    args = parser.parse_args(argv)
    path = schema_file()
    schema = json.loads(path.read_text(encoding='utf-8'))
    problems = disagreements(schema)
    if args.write:
        for name in nameable_benchmarks():
            schema['benchmarks'][name] = expected_entry(name)
        path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + '\n', encoding='utf-8')
        print(f'wrote {len(schema["benchmarks"])} entries to {path}')
        return 0
    print('\n'.join(problems) or f'{path}: every nameable benchmark has a matching entry')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
