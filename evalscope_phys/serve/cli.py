"""``evalscope-phys serve``: run the replay server in the foreground until SIGINT/SIGTERM.

Prints the ``/v1`` base URL (give it to ``evalscope eval --api-url``) on stdout; ``--port-file``
writes the chosen port for scripts that start the server with ``--port 0``.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from .faults import FAULT_KINDS, FaultSpecError, parse_faults
from .records import ReplayError
from .replay import DEFAULT_SLOW_SECONDS, is_loopback, make_server


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument('--replay', metavar='FILE', help='JSONL file of recorded answers')
    source.add_argument('--demo', action='store_true',
                        help="the demo's recorded answers for the bundled sample problems "
                             "('evalscope-phys demo --print-paths' shows where they are)")
    parser.add_argument('--host', default='127.0.0.1', help='address to bind (default: 127.0.0.1; another than a '
                        'loopback address needs --allow-remote)')
    parser.add_argument('--allow-remote', action='store_true',
                        help='allow a non-loopback --host such as 0.0.0.0: the server has no authentication')
    parser.add_argument('--port', type=int, default=0, help='port to bind; 0 picks a free one (default)')
    parser.add_argument('--port-file', metavar='PATH', help='write the bound port here once listening')
    parser.add_argument('--faults', default=None, metavar='SPEC',
                        help=f'e.g. "3:500,5:slow,every=4:badjson"; kinds: {", ".join(FAULT_KINDS)}')
    parser.add_argument('--slow-seconds', type=float, default=DEFAULT_SLOW_SECONDS,
                        help=f'stall of a "slow" fault; make it exceed the client timeout '
                             f'(default: {DEFAULT_SLOW_SECONDS:g})')
    parser.add_argument('--log-requests', action='store_true', help='log every request on stderr')


def _write_port_file(path: str, port: int) -> None:
    """Write atomically so a script polling the file never reads half a number."""
    target = Path(path)
    tmp = target.with_name(target.name + f'.{os.getpid()}.tmp')
    tmp.write_text(f'{port}\n', encoding='utf-8')
    os.replace(tmp, target)


def run(args: argparse.Namespace) -> int:
    if not is_loopback(args.host) and not args.allow_remote:
        print(f'evalscope-phys serve: --host {args.host} is not a loopback address; the replay server has no '
              'authentication, so pass --allow-remote to expose it', file=sys.stderr)
        return 2
    try:
        records = args.replay
        if args.demo:
            from evalscope_phys.demo import demo_config, demo_records

            records = demo_records(demo_config())
        server = make_server(records, faults=parse_faults(args.faults), host=args.host, port=args.port,
                             slow_seconds=args.slow_seconds, log_requests=args.log_requests)
    except (ReplayError, FaultSpecError) as exc:
        print(f'evalscope-phys serve: {exc}', file=sys.stderr)
        return 2
    except OSError as exc:
        print(f'evalscope-phys serve: cannot listen on {args.host}:{args.port}: {exc}', file=sys.stderr)
        return 2

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    thread = threading.Thread(target=server.serve_forever, args=(0.1,), name='replay-server', daemon=True)
    thread.start()
    if args.port_file:
        _write_port_file(args.port_file, server.server_address[1])
    print(f'replay server: {len(server.book.records)} records, faults: {server.counter.schedule.describe()}',
          file=sys.stderr)
    print(server.base_url, flush=True)
    while not stop.wait(0.1):
        pass
    server.stop()
    thread.join(timeout=5)
    stats = server.counter.snapshot()
    print(f'replay server stopped after {stats["requests"]} chat requests '
          f'({len(stats["faults_fired"])} faults, {server.unmatched} unmatched)', file=sys.stderr)
    return 0
