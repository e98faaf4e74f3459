"""``evalscope-phys score-reports``: the packaged bash scorer from any install, with jq checked first."""
import os
import shutil
import subprocess
import sys

import pytest

from suite.synthetic import report, write_report


def score_reports(*args, env=None):
    return subprocess.run([sys.executable, '-m', 'evalscope_phys', 'score-reports', *map(str, args)],
                          capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.skipif(shutil.which('jq') is None, reason='the scorer itself needs jq')
def test_a_phyx_oe_run_is_scored_with_the_packaged_schema(tmp_path):
    write_report(tmp_path / 'run', report('phyx_oe', {'accuracy': (0.625, 8), 'scored': (1.0, 8)}, requested=8))
    result = score_reports('--format', 'tsv', tmp_path / 'run')
    assert result.returncode == 0, result.stderr
    assert 'm\tphyx_oe\taccuracy\t0.6250\t-\t1\t8' in result.stdout.splitlines()


def test_a_missing_jq_is_named_with_how_to_install_it(tmp_path):
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    (bin_dir / 'bash').symlink_to(shutil.which('bash'))
    result = score_reports(tmp_path, env={**os.environ, 'PATH': str(bin_dir)})
    assert result.returncode == 2
    assert result.stderr.startswith('score-reports: jq is required (Debian/Ubuntu: sudo apt-get install jq')
    assert 'Traceback' not in result.stderr


def test_help_is_the_scripts_usage():
    result = score_reports('--help')
    assert result.returncode == 0 and '--min-judge-coverage' in result.stdout
