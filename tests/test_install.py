"""Every way of installing carries the plugin: a wheel, ``pip install .`` and ``pip install -e .``, each in a
fresh venv, then ``evalscope eval --datasets phybench`` against the replay server and
``evalscope-phys suite run text --dry-run`` there.

How the fresh venvs get their dependencies, and why that still proves the package installs and works:
installing evalscope, SymPy, pint... into each venv would download or unpack ~1 GB three times (and
must never pull plain ``torch``). So each venv is created empty (``venv --without-pip``) and gets one
``.pth`` line naming the development venv's site-packages. A plain path line only appends that folder
to ``sys.path``; unlike a site directory, the ``.pth`` files *inside* it are not executed, so neither
the development venv's editable finder nor its copy of our autoload hook is active there. The package
itself is installed into the fresh venv by pip (``--no-deps --ignore-installed``, built with the
setuptools already present, no network), from a copy of the checkout; the plugin can therefore only
work through what that install put in the fresh site-packages. The ``evalscope`` command is the same
console-script shim pip writes for EvalScope (``run_cmd()``), since EvalScope itself is not
reinstalled.
"""
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from evalscope_phys.serve.replay import replay_server

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / 'tests' / 'suite' / 'fixtures' / 'phybench_mini.json'
REPLAY = ROOT / 'tests' / 'suite' / 'fixtures' / 'replay_mini.jsonl'
DEV_SITE = sysconfig.get_paths()['purelib']
SKIP = shutil.ignore_patterns('.venv', '.git', 'build', 'dist', 'outputs', '__pycache__', '*.egg-info', '_shipped',
                              '.pytest_cache')
#: what pip writes for EvalScope's ``evalscope`` entry point
EVALSCOPE_SHIM = '''#!{python}
import re
import sys
from evalscope.cli.cli import run_cmd
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(run_cmd())
'''


@pytest.fixture(scope='module')
def checkout(tmp_path_factory):
    """A copy of the working tree (so builds never write into the real checkout)."""
    copy = tmp_path_factory.mktemp('checkout') / 'evalscope-phys'
    shutil.copytree(ROOT, copy, ignore=SKIP)
    return copy


def pip(*args, python: Path, cwd: Path) -> None:
    result = subprocess.run([sys.executable, '-m', 'pip', '--python', str(python), '--disable-pip-version-check',
                             *args], capture_output=True, text=True, timeout=600, cwd=str(cwd))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]


def fresh_venv(where: Path) -> Path:
    """An empty venv whose dependencies resolve from the development venv (see the module docstring)."""
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / 'bin' / 'python'
    site = subprocess.run([str(python), '-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, 'zz_dependencies_from_dev_venv.pth').write_text(DEV_SITE + '\n')
    shim = where / 'bin' / 'evalscope'
    shim.write_text(EVALSCOPE_SHIM.format(python=python))
    shim.chmod(0o755)
    return python


def install(mode: str, checkout: Path, where: Path) -> Path:
    python = fresh_venv(where)
    if mode == 'wheel':
        wheels = where / 'wheels'
        pip('wheel', '--no-deps', '--no-build-isolation', '-q', '-w', str(wheels), '.', python=python, cwd=checkout)
        target = [str(next(wheels.glob('evalscope_phys-*.whl')))]
    elif mode == 'dir':
        target = ['.']
    else:
        target = ['-e', '.']
    pip('install', '--no-deps', '--ignore-installed', '--no-build-isolation', '-q', *target, python=python,
        cwd=checkout)
    return python


def run(python: Path, *args, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'VIRTUAL_ENV')}
    env.update(HF_HUB_OFFLINE='1', PATH=f'{python.parent}{os.pathsep}{env.get("PATH", "")}')
    return subprocess.run([str(python.parent / args[0]), *args[1:]], capture_output=True, text=True, timeout=600,
                          cwd=str(cwd), env=env)


@pytest.mark.parametrize('mode', ['wheel', 'dir', 'editable'])
def test_a_fresh_install_carries_the_plugin(mode, checkout, tmp_path):
    python = install(mode, checkout, tmp_path / 'venv')
    where = run(python, 'python', '-c', 'import evalscope_phys, evalscope_phys.resources as r; '
                'print(evalscope_phys.__file__); print(r.resource_dir("yamls"))', cwd=tmp_path)
    package, yamls = where.stdout.split()
    expected_home = checkout if mode == 'editable' else tmp_path / 'venv'
    assert Path(package).is_relative_to(expected_home), (mode, package)
    assert Path(yamls) == (checkout / 'yamls' if mode == 'editable'
                           else Path(package).parent / '_shipped' / 'yamls'), (mode, yamls)

    records = [json.loads(line) for line in REPLAY.read_text().splitlines() if line.strip()]
    with replay_server(records) as url:
        evaluation = run(python, 'evalscope', 'eval', '--model', 'M', '--api-url', url, '--datasets', 'phybench',
                         '--dataset-args', json.dumps({'phybench': {'local_path': str(MINI)}}),
                         '--generation-config', json.dumps({'timeout': 10, 'retries': 1, 'retry_interval': 0}),
                         '--work-dir', str(tmp_path / 'run'), '--no-timestamp', cwd=tmp_path)
    assert evaluation.returncode == 0, evaluation.stdout[-1500:] + evaluation.stderr[-3000:]
    report = json.loads(next((tmp_path / 'run').glob('reports/*/phybench.json')).read_text())
    assert report['execution_summary']['succeeded'] == 4

    dry = run(python, 'evalscope-phys', 'suite', 'run', 'text', '--dry-run', cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert dry.stdout.count('--- # seed') == 3 and 'phybench' in dry.stdout

    listed = run(python, 'evalscope-phys', 'demo', '--print-paths', cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr[-3000:]
    printed = [Path(line.split(': ', 1)[1].strip()) for line in listed.stdout.splitlines()]
    assert printed and all(path.exists() for path in printed), listed.stdout

    if shutil.which('jq'):
        table = run(python, 'evalscope-phys', 'score-reports', str(tmp_path / 'run'), cwd=tmp_path)
        assert table.returncode == 0, table.stderr
        assert '\tphybench\teed\t' in table.stdout
