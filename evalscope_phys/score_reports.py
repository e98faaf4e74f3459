"""``evalscope-phys score-reports RUN_DIR...``: the packaged bash scorer, from any install.

Why a wrapper: ``scripts/score_reports.sh`` (bash + jq) is the one schema-checked scorer, but a wheel
install has no ``scripts/`` folder on PATH. This finds the shipped copy (or the checkout's, see
:mod:`evalscope_phys.resources`), checks ``bash`` and ``jq`` first with a message saying how to get
them, and passes every argument through (``--plots`` uses this interpreter).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from typing import List, Optional

from evalscope_phys.resources import resource_file

JQ_HINT = 'jq is required (Debian/Ubuntu: sudo apt-get install jq; macOS: brew install jq; or conda install jq)'


def missing_tool(need_jq: bool = True) -> Optional[str]:
    """Why the scorer cannot run here, or None (``--help`` needs only bash)."""
    if shutil.which('bash') is None:
        return 'bash is required to run the report scorer'
    if need_jq and shutil.which('jq') is None:
        return JQ_HINT
    return None


def score_reports(arguments: List[str], capture: bool = False) -> subprocess.CompletedProcess:
    """Run the bash scorer with ``arguments``; its exit code is the scorer's (2 = usage or missing tool)."""
    problem = missing_tool(need_jq=not {'-h', '--help'} & set(arguments))
    if problem is not None:
        return subprocess.CompletedProcess(arguments, 2, '', f'score-reports: {problem}\n')
    script = resource_file('scripts', 'score_reports.sh')
    env = {**os.environ, 'PYTHON': os.environ.get('PYTHON') or sys.executable,
           'SCORE_REPORTS_PROG': 'evalscope-phys score-reports'}  # its usage names this command, not scripts/
    return subprocess.run(['bash', str(script), *arguments], env=env, text=True, capture_output=capture)


#: cli.py hands every argument through unparsed: the script has its own options and --help
PASSTHROUGH = True


def run_argv(arguments: List[str]) -> int:
    result = score_reports(arguments)
    if result.stderr:  # only set when a tool is missing; otherwise the script wrote to the terminal itself
        sys.stderr.write(result.stderr)
    return result.returncode
