"""Tests that need ../shared/data skip where it is absent, but fail under CI's EVALSCOPE_PHYS_REQUIRE_SHARED."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_a_test_that_needs_shared_data(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    (tmp_path / 'conftest.py').write_text(textwrap.dedent(f'''
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location('phys_conftest', {str(ROOT / 'tests' / 'conftest.py')!r})
        module = sys.modules['phys_conftest'] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        shared_data = module.shared_data
    '''))
    (tmp_path / 'test_needs_data.py').write_text('def test_needs_data(shared_data):\n    assert shared_data.is_dir()\n')
    clean = {k: v for k, v in os.environ.items() if k != 'EVALSCOPE_PHYS_REQUIRE_SHARED'}
    return subprocess.run([sys.executable, '-m', 'pytest', '-q', '-rs', '-p', 'no:cacheprovider', '-p', 'no:randomly',
                           str(tmp_path / 'test_needs_data.py')], capture_output=True, text=True, timeout=120,
                          cwd=str(tmp_path), env={**clean, 'EVALSCOPE_PHYS_SHARED_DATA': str(tmp_path / 'nowhere'),
                                                  **env})


def test_missing_shared_data_skips_by_default(tmp_path):
    done = run_a_test_that_needs_shared_data(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert '1 skipped' in done.stdout and 'nowhere' in done.stdout


@pytest.mark.parametrize('value', ['1', 'yes'])
def test_missing_shared_data_fails_when_ci_requires_it(tmp_path, value):
    done = run_a_test_that_needs_shared_data(tmp_path, EVALSCOPE_PHYS_REQUIRE_SHARED=value)
    assert done.returncode == 1, done.stdout + done.stderr
    assert '1 error' in done.stdout or '1 failed' in done.stdout, done.stdout
    assert 'EVALSCOPE_PHYS_REQUIRE_SHARED is set' in done.stdout


def test_ci_sets_the_variable_and_runs_only_the_readme_test_command():
    script = (ROOT / '.ci' / 'run').read_text()
    commands = [line for line in script.splitlines() if line.strip() and not line.lstrip().startswith('#')]
    assert commands[-1] == 'exec bash scripts/dev.sh test'
    assert 'export EVALSCOPE_PHYS_REQUIRE_SHARED=1' in commands
    assert 'scripts/dev.sh test' in (ROOT / 'README.md').read_text()
