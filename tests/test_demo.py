"""README command 1: the demo runs end to end, prints the table, and fails loudly when samples fail; ``--print-paths``."""
import ast
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


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


def printed_paths(text: str) -> dict:
    return dict(line.split(': ', 1) for line in text.splitlines())


def test_print_paths_names_existing_files_and_runs_nothing():
    result = demo('--print-paths', timeout=120)
    assert result.returncode == 0, result.stderr
    paths = {what: Path(where.strip()) for what, where in printed_paths(result.stdout).items()}
    assert {'demo data', 'suites', 'report scorer', 'report schema'} <= set(paths)
    assert all(where.exists() for where in paths.values()), paths
    assert (paths['suites'] / 'text.yaml').is_file() and paths['report scorer'].name == 'score_reports.sh'
    assert 'replay server' not in result.stderr


def test_print_paths_in_a_wheel_layout_points_into_the_package(tmp_path, monkeypatch):
    """As a wheel installs it: no checkout, the resource folders copied as setup.py ships them."""
    from evalscope_phys import demo as demo_module, resources

    shipped_spec = next(node.value for node in ast.parse((ROOT / 'setup.py').read_text()).body
                        if isinstance(node, ast.Assign) and getattr(node.targets[0], 'id', '') == 'SHIPPED')
    for name, only in ast.literal_eval(shipped_spec).items():
        if only is None:
            shutil.copytree(ROOT / name, tmp_path / '_shipped' / name)
        else:
            (tmp_path / '_shipped' / name).mkdir(parents=True)
            for file in only:
                shutil.copy(ROOT / name / file, tmp_path / '_shipped' / name / file)
    monkeypatch.setattr(resources, 'checkout_root', lambda: None)
    monkeypatch.setattr(resources, 'SHIPPED_DIR', tmp_path / '_shipped')
    out = io.StringIO()
    demo_module.print_paths(out)
    paths = {what: Path(where.strip()) for what, where in printed_paths(out.getvalue()).items()}
    assert all(where.exists() for where in paths.values()), paths
    for what in ('suites', 'dataset yamls', 'report scorer', 'report schema', 'patches'):
        assert paths[what].is_relative_to(tmp_path / '_shipped'), (what, paths[what])
    assert paths['demo data'] == demo_module.DEMO_DIR
