"""``evalscope-phys patches apply|check|revert``: our upstream-ready fixes to the installed EvalScope.

Patches are plain unified diffs against evalscope 1.14.1 (``patches/*.patch``, paths ``a/evalscope/...``).
They are applied by a small exact-context applier (no fuzz, no ``git``/``patch`` binary needed), and
idempotently: a patch whose result is already in place counts as applied.

All or nothing: every patch is checked first and every target file tested for writing; then all
changes are written (each original kept as ``<file>.orig``), and a write that fails restores the
files already written. A read-only install or an EvalScope the patches do not match gets one message
and exit code 1, with nothing changed. ``revert`` undoes the applied patches the same way.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HUNK_HEADER = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@')


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old: Tuple[str, ...]
    new: Tuple[str, ...]


@dataclass(frozen=True)
class FilePatch:
    path: str  # relative to site-packages, e.g. evalscope/benchmarks/__init__.py
    hunks: Tuple[Hunk, ...]


def available_patches() -> List[Path]:
    """Our patches, in order: the copy shipped in the package, or the checkout's ``patches/``."""
    from evalscope_phys.resources import resource_dir

    directory = resource_dir('patches')
    return sorted(directory.glob('*.patch')) if directory is not None else []


def parse_patch(text: str) -> List[FilePatch]:
    """Split a unified diff into files and hunks (lines kept without their newline)."""
    files: List[FilePatch] = []
    lines = text.splitlines()
    i, path, hunks = 0, None, []
    while i < len(lines):
        line = lines[i]
        if line.startswith('+++ '):
            if path is not None:
                files.append(FilePatch(path, tuple(hunks)))
            path, hunks = line[4:].split('\t')[0].strip().removeprefix('b/'), []
        elif (m := HUNK_HEADER.match(line)) and path is not None:
            old, new = [], []
            old_left, new_left = int(m.group(2) or 1), int(m.group(4) or 1)
            i += 1
            while i < len(lines) and (old_left > 0 or new_left > 0):
                body = lines[i]
                tag, content = (body[:1], body[1:]) if body else (' ', '')
                if tag in (' ', '-'):
                    old.append(content)
                    old_left -= 1
                if tag in (' ', '+'):
                    new.append(content)
                    new_left -= 1
                i += 1
            hunks.append(Hunk(int(m.group(1)), tuple(old), tuple(new)))
            continue
        i += 1
    if path is not None:
        files.append(FilePatch(path, tuple(hunks)))
    return files


def _apply_hunks(lines: List[str], hunks: Tuple[Hunk, ...], reverse: bool) -> Optional[List[str]]:
    """The patched lines, or None if any hunk's context is not found exactly."""
    result, cursor, offset = list(lines), 0, 0
    for hunk in hunks:
        find, put = (hunk.new, hunk.old) if reverse else (hunk.old, hunk.new)
        expected = max(hunk.old_start - 1 + offset, cursor)
        positions = sorted(range(cursor, len(result) - len(find) + 1), key=lambda p: abs(p - expected))
        at = next((p for p in positions if tuple(result[p:p + len(find)]) == find), None)
        if at is None:
            return None
        result[at:at + len(find)] = list(put)
        cursor = at + len(put)
        offset += len(put) - len(find)
    return result


def _patched_texts(patch: Path, texts: Dict[Path, str], site: Path, reverse: bool) -> Optional[Dict[Path, str]]:
    """``texts`` with ``patch`` applied (or reverted) to each of its files, or None on a context mismatch."""
    out = dict(texts)
    for file_patch in parse_patch(patch.read_text(encoding='utf-8')):
        target = site / file_patch.path
        if target not in out:
            if not target.is_file():
                return None
            out[target] = target.read_text(encoding='utf-8')
        text = out[target]
        new_lines = _apply_hunks(text.splitlines(), file_patch.hunks, reverse=reverse)
        if new_lines is None:
            return None
        out[target] = '\n'.join(new_lines) + ('\n' if text.endswith('\n') else '')
    return out


def patch_state(patch: Path, site: Path) -> str:
    """'applied', 'applicable' or 'conflict' for one patch against one site-packages dir."""
    states = set()
    for file_patch in parse_patch(patch.read_text(encoding='utf-8')):
        target = site / file_patch.path
        if not target.is_file():
            return 'conflict'
        lines = target.read_text(encoding='utf-8').splitlines()
        if _apply_hunks(lines, file_patch.hunks, reverse=True) is not None:
            states.add('applied')
        elif _apply_hunks(lines, file_patch.hunks, reverse=False) is not None:
            states.add('applicable')
        else:
            return 'conflict'
    return states.pop() if len(states) == 1 else 'conflict'


class PatchError(RuntimeError):
    """Nothing was changed; the message says why and what to do."""


def backup_path(target: Path) -> Path:
    return target.with_name(target.name + '.orig')


def _check_writable(targets: List[Path]) -> None:
    """Fail before any write when a target or its folder cannot be written (read-only install)."""
    for target in targets:
        for path in (target, target.parent):
            if not os.access(path, os.W_OK):
                raise PatchError(f'cannot write {path}: the EvalScope install is read-only for this user. '
                                 f'Nothing was changed. Run as the owner of the environment, or pass --site '
                                 f'with a writable copy.')


def _write_atomically(target: Path, text: str) -> None:
    """Replace ``target`` (keeping its mode) through a temporary file in the same folder."""
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    fd, tmp = tempfile.mkstemp(prefix=f'.{target.name}.', dir=str(target.parent))
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as handle:
            handle.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_all(changes: Dict[Path, Tuple[str, str]], keep_backup: bool) -> None:
    """Write every ``target: (old, new)``; on any failure restore what was written and raise PatchError.

    ``keep_backup``: save ``old`` as ``<target>.orig`` first (apply); otherwise remove a ``.orig`` that
    holds exactly the restored text (revert).
    """
    _check_writable(list(changes))
    written: List[Path] = []
    backups: List[Path] = []
    try:
        for target, (old, new) in changes.items():
            if keep_backup:
                backup = backup_path(target)
                if not (backup.is_file() and backup.read_text(encoding='utf-8') == old):
                    _write_atomically(backup, old)
                    backups.append(backup)
            _write_atomically(target, new)
            written.append(target)
    except OSError as exc:
        unrestored = []
        for target in written:
            try:
                _write_atomically(target, changes[target][0])
            except OSError:
                unrestored.append(str(target))
        for backup in backups if not unrestored else ():  # the backups are the way back if a restore failed
            try:
                backup.unlink(missing_ok=True)
            except OSError:
                pass
        failed = f'writing {exc.filename or target} failed ({exc.strerror or exc})'
        if unrestored:  # cannot happen for a read-only tree (checked first); say so if the disk fails twice
            raise PatchError(f'{failed}, and restoring {", ".join(unrestored)} failed too: copy '
                             f'<file>.orig back over each of them.') from None
        raise PatchError(f'{failed}; every file was restored, nothing was changed.') from None
    if not keep_backup:
        for target, (_, new) in changes.items():
            backup = backup_path(target)
            if backup.is_file() and backup.read_text(encoding='utf-8') == new:
                backup.unlink()


def plan(patches: List[Path], site: Path, revert: bool = False) -> Tuple[Dict[str, str], Dict[Path, Tuple[str, str]]]:
    """Check every patch: ``(state by patch name, {file: (old text, new text)})`` for all that need work.

    Raises :class:`PatchError` (nothing changed) when any patch conflicts with the installed files.
    """
    states = {patch.name: patch_state(patch, site) for patch in patches}
    conflicts = [name for name, state in states.items() if state == 'conflict']
    if conflicts:
        version = site_version(site)
        raise PatchError(f'{", ".join(conflicts)}: does not match the files in {site / "evalscope"} (EvalScope '
                         f'{version or "of unknown version"}; the patches are made for evalscope 1.14.1). '
                         f'Nothing was changed.')
    todo = 'applied' if revert else 'applicable'
    texts: Dict[Path, str] = {}
    originals: Dict[Path, str] = {}
    for patch in (reversed(patches) if revert else patches):
        if states[patch.name] != todo:
            continue
        before = set(texts)
        texts = _patched_texts(patch, texts, site, reverse=revert)
        if texts is None:  # two patches whose hunks overlap: refuse rather than half-apply
            raise PatchError(f'{patch.name} does not apply after the patches before it. Nothing was changed.')
        for target in set(texts) - before:
            originals[target] = target.read_text(encoding='utf-8')
    return states, {target: (originals[target], texts[target]) for target in texts}


def apply_patch(patch: Path, site: Path) -> str:
    """Apply one patch if needed (all its files or none); returns the state after the call."""
    try:
        _, changes = plan([patch], site)
        write_all(changes, keep_backup=True)
    except PatchError:
        return 'conflict'
    return patch_state(patch, site)


def site_version(site: Path) -> Optional[str]:
    """``__version__`` of the evalscope package in ``site``, read from its source (no import)."""
    try:
        text = (site / 'evalscope' / 'version.py').read_text(encoding='utf-8')
    except OSError:
        return None
    match = re.search(r"__version__\s*=\s*['\"]([^'\"]+)['\"]", text)
    return match.group(1) if match else None


def installed_site() -> Path:
    """The directory holding the installed ``evalscope`` package, found without importing it."""
    spec = importlib.util.find_spec('evalscope')
    if spec is None or not spec.submodule_search_locations:
        raise PatchError('evalscope is not installed in this environment.')
    return Path(list(spec.submodule_search_locations)[0]).parent


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('action', choices=['apply', 'check', 'revert'],
                        help='apply missing patches (all or none), report their state, or undo them')
    parser.add_argument('--site', type=Path, default=None,
                        help='directory that holds the evalscope package (default: the installed one)')


def run(args: argparse.Namespace) -> int:
    patches = available_patches()
    if not patches:
        print('evalscope-phys patches: no patches found in this installation', file=sys.stderr)
        return 1
    try:
        site = args.site or installed_site()
        if args.action == 'check':
            states = {patch.name: patch_state(patch, site) for patch in patches}
        else:
            states, changes = plan(patches, site, revert=args.action == 'revert')
            write_all(changes, keep_backup=args.action == 'apply')
            states = {patch.name: patch_state(patch, site) for patch in patches}
    except PatchError as exc:
        print(f'evalscope-phys patches {args.action}: {exc}', file=sys.stderr)
        return 1
    for name, state in states.items():
        print(f'{state:<10} {name}')
    if 'conflict' in states.values():
        print(f'Some patches do not match {site / "evalscope"} (EvalScope {site_version(site) or "?"}); '
              f'they are made for evalscope 1.14.1.', file=sys.stderr)
        return 1
    wanted = 'applicable' if args.action == 'revert' else 'applied'
    return 0 if all(s == wanted for s in states.values()) else 1
