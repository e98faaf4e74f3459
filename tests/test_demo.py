"""README command 1: the demo runs end to end, prints the table, and fails loudly when samples fail."""
import subprocess
import sys

import pytest


def demo(*args, timeout=900):
    return subprocess.run([sys.executable, '-m', 'evalscope_phys', 'demo', *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.e2e
def test_demo_prints_the_table_for_every_bundled_benchmark(tmp_path):
    import yaml

    from evalscope_phys.demo import DEMO_DIR

    result = demo('--work-dir', str(tmp_path / 'demo'))
    assert result.returncode == 0, result.stderr[-3000:]
    log = tmp_path / 'demo' / 'evalscope.log'
    assert f'EvalScope log: {log}' in result.stderr and 'Running[eval]' in log.read_text()
    assert len(result.stderr.splitlines()) < 20, 'a calm terminal: progress lines only'
    assert result.stdout.rstrip().endswith('|'), 'the table comes last'
    benchmarks = yaml.safe_load((DEMO_DIR / 'demo.yaml').read_text())['benchmarks']
    for name in benchmarks:
        assert f'| {name} |' in result.stdout, name
    assert '| phybench | eed * |' in result.stdout


@pytest.mark.e2e
def test_demo_exits_non_zero_when_the_server_fails_every_request(tmp_path):
    result = demo('--work-dir', str(tmp_path / 'demo'), '--datasets', 'phybench', '--faults', 'every=1:500')
    assert result.returncode == 1
    assert 'FAILED: phybench: 14 of 14 samples errored' in result.stderr
