"""``evalscope-phys``: one entry point whose sub-commands live next to the code they drive.

Each sub-command module exposes ``add_arguments(parser)`` and ``run(args) -> int`` (or, with
``PASSTHROUGH = True``, ``run_argv(argv) -> int`` for a command with its own option parser); modules are
imported only when their command runs, so ``evalscope-phys --help`` stays fast.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import List, Optional

# name -> (module, one-line help)
COMMANDS = {
    'score': ('evalscope_phys.scoring.cli', 'score (reference, answer) pairs from JSONL: EED, strict, lenient'),
    'serve': ('evalscope_phys.serve.cli', 'run a local OpenAI-compatible server that replays recorded answers'),
    'demo': ('evalscope_phys.demo', 'run the bundled demo suite against the local replay server'),
    'suite': ('evalscope_phys.suite.cli', 'run a YAML suite of benchmarks over seeds'),
    'compare': ('evalscope_phys.suite.compare_cli', 'paired comparison of two runs (or of pairs within one run)'),
    'error-analysis': ('evalscope_phys.analysis.cli',
                       'where each wrong solution in a run first goes wrong (PP / RR), by an LLM judge'),
    'judge-selftest': ('evalscope_phys.judge.cli', 'ask a judge about known-verdict pairs before trusting it'),
    'audit': ('evalscope_phys.audit.cli', 'three-stage train/test contamination audit (n-gram, embedding, judge)'),
    'score-reports': ('evalscope_phys.score_reports',
                      'check run reports against the schema and print benchmark x metric mean +- std over seeds'),
    'patches': ('evalscope_phys.patches', 'apply, check or revert our patches to the installed EvalScope'),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog='evalscope-phys', description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest='command', metavar='COMMAND')
    for name, (_, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        build_parser().print_help(sys.stderr if argv else sys.stdout)
        return 0 if not argv or argv[0] in ('-h', '--help') else 2
    name = argv[0]
    module = importlib.import_module(COMMANDS[name][0])
    if getattr(module, 'PASSTHROUGH', False):
        return int(module.run_argv(argv[1:]) or 0)
    parser = argparse.ArgumentParser(prog=f'evalscope-phys {name}', description=COMMANDS[name][1])
    module.add_arguments(parser)
    return int(module.run(parser.parse_args(argv[1:])) or 0)


if __name__ == '__main__':
    sys.exit(main())
