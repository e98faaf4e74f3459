"""``evalscope-phys patches apply|check|revert``: all or nothing, ``.orig`` backups, clear refusals.

Every test works on a copy of the installed evalscope package (``--site``), never on the venv's own.
"""
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from evalscope_phys import patches

TARGETS = ['evalscope/benchmarks/__init__.py', 'evalscope/benchmarks/phyx/utils.py',
           'evalscope/benchmarks/phyx/phyx_adapter.py']


@pytest.fixture()
def site(tmp_path):
    root = tmp_path / 'site'
    shutil.copytree(patches.installed_site() / 'evalscope', root / 'evalscope',
                    ignore=shutil.ignore_patterns('__pycache__'))
    return root


def texts(site: Path) -> dict:
    return {t: (site / t).read_text() for t in TARGETS}


def cli(*args, **kwargs):
    return subprocess.run([sys.executable, '-m', 'evalscope_phys', 'patches', *map(str, args)], capture_output=True,
                          text=True, timeout=120, **kwargs)


def test_every_patch_file_is_a_known_target():
    touched = sorted({fp.path for p in patches.available_patches() for fp in patches.parse_patch(p.read_text())})
    assert touched == sorted(TARGETS)


def test_apply_keeps_originals_and_revert_restores_them(site):
    before = texts(site)
    result = cli('apply', '--site', site)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['applied', patches.available_patches()[0].name,
                                     'applied', patches.available_patches()[1].name]
    for target, text in before.items():
        assert (site / target).read_text() != text
        assert (site / (target + '.orig')).read_text() == text
    assert cli('apply', '--site', site).returncode == 0, 'idempotent'
    assert cli('check', '--site', site).returncode == 0
    reverted = cli('revert', '--site', site)
    assert reverted.returncode == 0, reverted.stderr
    assert texts(site) == before
    assert not any((site / (t + '.orig')).exists() for t in TARGETS), 'backups removed once restored'
    assert cli('check', '--site', site).returncode == 1, 'check: not applied'


def test_a_mismatched_install_changes_nothing(site):
    (site / 'evalscope/benchmarks/phyx/utils.py').write_text('# not evalscope 1.14.1\n')
    (site / 'evalscope/version.py').write_text("__version__ = '9.9.9'\n")
    before = texts(site)
    result = cli('apply', '--site', site)
    assert result.returncode == 1
    assert 'Traceback' not in result.stderr
    assert '0002-phyx-oe-numeric-rule-match.patch: does not match' in result.stderr
    assert 'EvalScope 9.9.9' in result.stderr and 'Nothing was changed' in result.stderr
    assert texts(site) == before, 'the discovery patch, which matches, is not applied alone'
    assert not list(site.rglob('*.orig'))


def test_a_write_failing_halfway_restores_every_file(site, monkeypatch):
    before = texts(site)
    real = patches._write_atomically
    calls = []

    def failing(target, text):
        calls.append(target)
        if str(target).endswith('phyx_adapter.py') and text != before['evalscope/benchmarks/phyx/phyx_adapter.py']:
            raise PermissionError(13, 'Permission denied', str(target))
        return real(target, text)

    monkeypatch.setattr(patches, '_write_atomically', failing)
    states, changes = patches.plan(patches.available_patches(), site)
    with pytest.raises(patches.PatchError, match='every file was restored, nothing was changed'):
        patches.write_all(changes, keep_backup=True)
    assert len(calls) > 3, 'some files were written before the failure'
    assert texts(site) == before
    assert not list(site.rglob('*.orig'))


READ_ONLY_MOUNT = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && exec "$@"'


def read_only_prefix(site: Path) -> list:
    """A command prefix under which ``site`` cannot be written, even by root.

    Not root: the copy loses its write bits. Root ignores those, so the command runs in a private mount
    namespace where ``site`` is bind-mounted read-only (gone when the command ends).
    """
    if os.geteuid() != 0:
        for path in [site, *site.rglob('*')]:
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        return []
    if shutil.which('unshare') is None or subprocess.run(['unshare', '-m', 'true'], capture_output=True).returncode:
        pytest.skip('running as root without mount namespaces: no way to make a folder read-only for root')
    return ['unshare', '-m', 'sh', '-c', READ_ONLY_MOUNT, str(site)]


def test_a_read_only_install_gets_one_message_and_no_change(site):
    before = texts(site)
    command = [*read_only_prefix(site), sys.executable, '-m', 'evalscope_phys', 'patches', 'apply', '--site', str(site)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    for path in [site, *site.rglob('*')]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'Traceback' not in result.stderr
    assert 'read-only' in result.stderr and 'Nothing was changed' in result.stderr
    assert texts(site) == before
