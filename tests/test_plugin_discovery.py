"""EvalScope sees our benchmarks after one install: through the .pth hook, or the patched entry points."""
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from evalscope_phys import patches
from evalscope_phys.registration import BENCHMARK_MODULES, ENTRY_POINT_GROUP

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str, env_extra=None, warnings_are_errors=True) -> subprocess.CompletedProcess:
    """A fresh interpreter, as a user's ``evalscope`` process would start."""
    env = {**os.environ, **(env_extra or {})}
    flags = ['-W', 'error::UserWarning'] if warnings_are_errors else []
    return subprocess.run([sys.executable, *flags, '-c', code], capture_output=True, text=True, env=env, cwd='/',
                          timeout=120)


RESOLVE_PHYBENCH = '''
import sys
from evalscope.api.registry import BENCHMARK_REGISTRY
assert 'phybench' in BENCHMARK_REGISTRY, 'phybench not visible'
builtins = [m for m in sys.modules if m.startswith('evalscope.benchmarks.') and m.endswith('_adapter')]
print('builtin_adapters_loaded', len(builtins))
import evalscope.benchmarks as b
print('patched', hasattr(b, 'PLUGIN_ENTRY_POINT_GROUP'))
'''


def test_entry_points_declare_exactly_the_registered_benchmarks():
    declared = tomllib.loads((ROOT / 'pyproject.toml').read_text())['project']['entry-points'][ENTRY_POINT_GROUP]
    assert declared == BENCHMARK_MODULES


def test_interpreter_start_does_not_import_evalscope():
    result = run_python('import sys; print("evalscope" in sys.modules, "evalscope_phys._autoload" in sys.modules)')
    assert result.stdout.split() == ['False', 'True'], result.stderr


def test_unpatched_evalscope_resolves_phybench_without_loading_builtins():
    result = run_python(RESOLVE_PHYBENCH)
    assert result.returncode == 0, result.stderr
    assert 'builtin_adapters_loaded 0' in result.stdout
    assert 'patched False' in result.stdout


def test_evalscope_runs_are_hooked_to_start_the_scoring_workers_and_nothing_starts_at_import():
    # the hook only wraps run_single_task; importing evalscope.run starts no process
    code = ('import evalscope.run as r, multiprocessing as m\n'
            'print(getattr(r.run_single_task, "evalscope_phys", False), r.run_single_task.__wrapped__.__module__, '
            'len(m.active_children()), "evalscope_phys.scoring.run.pool" in __import__("sys").modules)')
    result = run_python(code, warnings_are_errors=False)
    assert result.stdout.split() == ['True', 'evalscope.run', '0', 'False'], result.stderr[-2000:]


def test_full_listing_includes_ours_and_builtins():
    code = 'from evalscope.api.registry import BENCHMARK_REGISTRY as R; k = set(R.keys()); print("phybench" in k, "gsm8k" in k)'
    result = run_python(code)
    assert result.stdout.split() == ['True', 'True'], result.stderr


def test_builtin_names_are_never_shadowed():
    result = run_python(
        'import evalscope_phys.registration as r; r.BENCHMARK_MODULES["gsm8k"] = "nowhere.module"\n'
        'from evalscope.api.registry import get_benchmark; print(type(get_benchmark("gsm8k")).__module__)',
        warnings_are_errors=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().startswith('evalscope.benchmarks.gsm8k')
    assert "'gsm8k' is a built-in EvalScope benchmark" in result.stderr


@pytest.fixture()
def patched_site(tmp_path):
    """A copy of the installed evalscope package with our patches applied to it."""
    site = patches.installed_site()
    shutil.copytree(site / 'evalscope', tmp_path / 'evalscope', ignore=shutil.ignore_patterns('__pycache__'))
    return tmp_path


def test_patches_apply_idempotently_and_check(patched_site):
    patch = patches.available_patches()[0]
    assert patches.patch_state(patch, patched_site) == 'applicable'
    assert patches.apply_patch(patch, patched_site) == 'applied'
    before = (patched_site / 'evalscope/benchmarks/__init__.py').read_text()
    assert patches.apply_patch(patch, patched_site) == 'applied'
    assert (patched_site / 'evalscope/benchmarks/__init__.py').read_text() == before


def test_patch_cli_reports_conflict_on_foreign_file(patched_site):
    (patched_site / 'evalscope/benchmarks/__init__.py').write_text('# not evalscope 1.14.1\n')
    result = subprocess.run([sys.executable, '-m', 'evalscope_phys', 'patches', 'check', '--site', str(patched_site)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert 'conflict' in result.stdout and 'evalscope 1.14.1' in result.stderr


def test_with_patch_applied_entry_points_serve_and_hook_steps_aside(patched_site):
    for patch in patches.available_patches():
        assert patches.apply_patch(patch, patched_site) == 'applied'
    result = run_python(RESOLVE_PHYBENCH, env_extra={'PYTHONPATH': str(patched_site)})
    assert result.returncode == 0, result.stderr
    assert 'patched True' in result.stdout and 'builtin_adapters_loaded 0' in result.stdout
    hook = run_python('import evalscope.benchmarks as b\nfrom evalscope.api.registry import BENCHMARK_REGISTRY as R\n'
                      'print(getattr(R, "_evalscope_phys_plugged", False))', env_extra={'PYTHONPATH': str(patched_site)})
    assert hook.stdout.strip() == 'False', hook.stderr


def test_wheel_ships_the_pth_file_and_the_top_level_resources(tmp_path):
    result = subprocess.run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '--no-build-isolation', '-q', '-w',
                             str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    wheel = next(tmp_path.glob('evalscope_phys-*.whl'))
    names = zipfile.ZipFile(wheel).namelist()
    assert 'evalscope_phys_autoload.pth' in names
    shipped = {n[len('evalscope_phys/_shipped/'):] for n in names if n.startswith('evalscope_phys/_shipped/')}
    sources = {str(p.relative_to(ROOT)) for folder in ('yamls', 'patches') for p in (ROOT / folder).rglob('*')
               if p.is_file()} | {'scripts/score_reports.sh', 'scripts/report_schema.json'}
    assert shipped == sources


def test_benchmark_info_cli_describes_our_benchmark():
    result = subprocess.run([sys.executable, '-m', 'evalscope.cli.cli', 'benchmark-info', 'phybench'],
                            capture_output=True, text=True, timeout=120, cwd='/')
    assert result.returncode == 0, result.stderr[-2000:]
    assert 'PHYBench' in result.stdout and 'local_path' in result.stdout
