"""Every script and every ``evalscope-phys`` command answers ``--help`` with exit 0 and a usage text."""
import subprocess
import sys
from pathlib import Path

import pytest

from evalscope_phys.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p.name for p in (ROOT / 'scripts').iterdir() if p.suffix in ('.py', '.sh'))


def command_for(script: str) -> list:
    path = str(ROOT / 'scripts' / script)
    return ['bash', path] if script.endswith('.sh') else [sys.executable, path]


@pytest.mark.parametrize('script', SCRIPTS)
def test_every_script_answers_help(script):
    result = subprocess.run([*command_for(script), '--help'], capture_output=True, text=True, timeout=120, cwd='/')
    assert result.returncode == 0, result.stderr[-2000:]
    assert 'usage' in result.stdout.lower() or 'scripts/' in result.stdout, result.stdout[:500]


@pytest.mark.parametrize('command', sorted(COMMANDS))
def test_every_command_answers_help(command):
    result = subprocess.run([sys.executable, '-m', 'evalscope_phys', command, '--help'], capture_output=True, text=True,
                            timeout=120, cwd='/')
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip()
