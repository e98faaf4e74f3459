"""``evalscope-phys demo``: the bundled sample problems, scored end to end with no network.

It starts the replay server on 127.0.0.1 with recorded answers (right, rewritten, partly wrong,
wrong, unboxed, truncated), runs the real ``evalscope eval`` CLI against it, prints one table of
the report metrics and exits non-zero if any sample failed or any report is missing.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

import yaml

from evalscope_phys.reporting import format_table, load_reports, report_problems
from evalscope_phys.serve.records import write_records
from evalscope_phys.serve.replay import replay_server

DEMO_DIR = Path(__file__).resolve().parent / 'data' / 'demo'


def demo_config(select: List[str] = ()) -> Dict:
    config = yaml.safe_load((DEMO_DIR / 'demo.yaml').read_text(encoding='utf-8'))
    if select:
        unknown = set(select) - set(config['benchmarks'])
        if unknown:
            raise SystemExit(f'no demo data for {sorted(unknown)}; choose from {sorted(config["benchmarks"])}')
        config['benchmarks'] = {k: v for k, v in config['benchmarks'].items() if k in select}
    return config


def eval_command(config: Dict, api_url: str, work_dir: Path) -> List[str]:
    """The plain EvalScope CLI call a user would type, pointed at the bundled files."""
    dataset_args = {name: {'local_path': str(DEMO_DIR / spec['local_path'])} for name, spec in config['benchmarks'].items()}
    return [
        'evalscope', 'eval',
        '--model', config['model'],
        '--api-url', api_url,
        '--api-key', 'EMPTY',
        '--eval-type', 'openai_api',
        '--datasets', *config['benchmarks'],
        '--dataset-args', json.dumps(dataset_args),
        '--generation-config', json.dumps({'temperature': 0.0, 'max_tokens': 2048, 'timeout': 10, 'retries': 1,
                                           'retry_interval': 0}),
        '--model-args', json.dumps({'max_retries': 0}),  # no SDK retries beneath EvalScope's own
        '--ignore-errors',  # a failed sample is counted in the report (and fails the demo), not fatal
        '--eval-batch-size', '4',
        '--work-dir', str(work_dir),
        '--no-timestamp',
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--work-dir', type=Path, default=None, help='where EvalScope writes (default: a temp dir)')
    parser.add_argument('--datasets', nargs='*', default=[], help='only these demo benchmarks')
    parser.add_argument('--faults', default=None, help='inject replay-server faults, e.g. "3:500" (see serve --help)')


def run(args: argparse.Namespace) -> int:
    config = demo_config(args.datasets)
    work_dir = args.work_dir or Path(tempfile.mkdtemp(prefix='evalscope-phys-demo-'))
    work_dir.mkdir(parents=True, exist_ok=True)
    records = []
    for spec in config['benchmarks'].values():
        text = (DEMO_DIR / spec['replay']).read_text(encoding='utf-8')
        records.extend(json.loads(line) for line in text.split('\n') if line.strip())  # not splitlines: U+2028
    # kept in the work dir, so the same answers can be served again with `evalscope-phys serve --replay`
    replay_file = write_records(records, work_dir / 'replay.jsonl')
    with replay_server(replay_file, faults=args.faults) as url:
        print(f'[demo] replay server at {url}; running: evalscope eval --datasets {" ".join(config["benchmarks"])}',
              file=sys.stderr, flush=True)
        result = subprocess.run([sys.executable, '-m', 'evalscope.cli.cli', *eval_command(config, url, work_dir)[1:]])
    reports = load_reports(work_dir)
    print(format_table(reports))
    problems = report_problems(reports, expected=list(config['benchmarks']))
    if result.returncode != 0:
        problems.insert(0, f'evalscope eval exited with {result.returncode}')
    for problem in problems:
        print(f'[demo] FAILED: {problem}', file=sys.stderr)
    print(f'[demo] outputs in {work_dir}', file=sys.stderr)
    return 1 if problems else 0
