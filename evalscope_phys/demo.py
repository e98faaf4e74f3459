"""``evalscope-phys demo``: the bundled sample problems, scored end to end with no network.

It starts the replay server on 127.0.0.1 with recorded answers (right, rewritten, partly wrong,
wrong, unboxed, truncated), runs the real ``evalscope eval`` CLI against it, prints one table of
the report metrics and exits non-zero if any sample failed or any report is missing. EvalScope's
own output (some 3,000 lines) goes to ``<work dir>/evalscope.log``; the terminal shows one line per
finished benchmark, then the table (``--verbose`` streams everything).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any, Dict, List, Tuple

from evalscope_phys.jsonl import parse_lines
from evalscope_phys.reporting import format_table, load_reports, report_problems
from evalscope_phys.safe_yaml import load_limited
from evalscope_phys.serve.records import write_records
from evalscope_phys.serve.replay import replay_server

DEMO_DIR = Path(__file__).resolve().parent / 'data' / 'demo'


def demo_config(select: List[str] = ()) -> Dict:
    config = load_limited(DEMO_DIR / 'demo.yaml')
    if select:
        unknown = set(select) - set(config['benchmarks'])
        if unknown:
            raise SystemExit(f'no demo data for {sorted(unknown)}; choose from {sorted(config["benchmarks"])}')
        config['benchmarks'] = {k: v for k, v in config['benchmarks'].items() if k in select}
    return config


def demo_records(config: Dict) -> List[Dict[str, Any]]:
    """The recorded answers of every benchmark in ``config`` (what ``serve --demo`` plays back)."""
    records = []
    for spec in config['benchmarks'].values():
        text = (DEMO_DIR / spec['replay']).read_text(encoding='utf-8')
        records.extend(parse_lines(text)[0])
    return records


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
    parser.add_argument('--verbose', action='store_true', help="stream EvalScope's log to the terminal too")
    parser.add_argument('--print-paths', action='store_true',
                        help='print where this install keeps the demo data, suites and report scorer, and exit')


def installed_paths(config: Dict) -> List[Tuple[str, Path]]:
    """(what, where) for the files a user of any install points commands at; a wheel has no checkout to browse."""
    from evalscope_phys.resources import resource_dir, resource_file

    yamls, patches = resource_dir('yamls'), resource_dir('patches')
    paths = [('demo data', DEMO_DIR), ('demo config', DEMO_DIR / 'demo.yaml')]
    paths += [(f'demo sample {name}', DEMO_DIR / spec['local_path']) for name, spec in config['benchmarks'].items()]
    paths += [('suites', yamls / 'suites'), ('dataset yamls', yamls / 'datasets'),
              ('report scorer', resource_file('scripts', 'score_reports.sh')),
              ('report schema', resource_file('scripts', 'report_schema.json')), ('patches', patches)]
    return paths


def print_paths(out: IO[str] = sys.stdout) -> None:
    """One ``what: path`` line each (the report scorer runs as ``evalscope-phys score-reports RUN_DIR``)."""
    paths = installed_paths(demo_config())
    width = max(len(what) for what, _ in paths) + 1
    for what, where in paths:
        print(f'{what + ":":<{width}} {where}', file=out)


#: EvalScope log lines worth a terminal line: a benchmark finished, or our one-line errors
FINISHED = 'evaluation finished.'


def run_logged(command: List[str], log_path: Path, verbose: bool, total: int, out: IO[str] = sys.stderr) -> int:
    """Run ``command`` with its output in ``log_path``; echo progress (or everything with ``verbose``)."""
    done = 0
    with open(log_path, 'w', encoding='utf-8', errors='replace') as log, \
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors='replace') as process:
        for line in process.stdout:
            log.write(line)
            if verbose:
                out.write(line)
            elif FINISHED in line and 'Benchmark ' in line:
                done += 1
                name = line.split('Benchmark ', 1)[1].split(' ', 1)[0]
                print(f'[demo] {done}/{total} {name} done', file=out, flush=True)
            elif line.startswith('evalscope-phys: '):
                out.write('[demo] ' + line)
    return process.returncode


def run(args: argparse.Namespace) -> int:
    if args.print_paths:
        print_paths()
        return 0
    config = demo_config(args.datasets)
    work_dir = args.work_dir or Path(tempfile.mkdtemp(prefix='evalscope-phys-demo-'))
    work_dir.mkdir(parents=True, exist_ok=True)
    # kept in the work dir, so the same answers can be served again with `evalscope-phys serve --replay`
    replay_file = write_records(demo_records(config), work_dir / 'replay.jsonl')
    log_path = work_dir / 'evalscope.log'
    with replay_server(replay_file, faults=args.faults) as url:
        print(f'[demo] replay server at {url}; running: evalscope eval --datasets {" ".join(config["benchmarks"])}'
              f'\n[demo] EvalScope log: {log_path}', file=sys.stderr, flush=True)
        command = [sys.executable, '-m', 'evalscope.cli.cli', *eval_command(config, url, work_dir)[1:]]
        returncode = run_logged(command, log_path, args.verbose, len(config['benchmarks']))
    reports = load_reports(work_dir)
    problems = report_problems(reports, expected=list(config['benchmarks']))
    if returncode != 0:
        problems.insert(0, f'evalscope eval exited with {returncode} (see {log_path})')
    for problem in problems:
        print(f'[demo] FAILED: {problem}', file=sys.stderr)
    print(f'[demo] outputs in {work_dir}; EvalScope log: {log_path}', file=sys.stderr, flush=True)
    print(format_table(reports), flush=True)
    return 1 if problems else 0
