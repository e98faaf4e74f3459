"""``evalscope-phys patches apply|check``: our upstream-ready fixes, applied to the installed EvalScope.

Patches are plain unified diffs against evalscope 1.14.1 (``patches/*.patch``, paths ``a/evalscope/...``).
They are applied by a small exact-context applier (no fuzz, no ``git``/``patch`` binary needed), and
idempotently: a patch whose result is already in place counts as applied.
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import sys
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


def patch_dirs() -> List[Path]:
    """The repo's ``patches/`` (source checkout) or the copy shipped inside the package."""
    here = Path(__file__).resolve().parent
    return [d for d in (here.parent / 'patches', here / '_patches') if d.is_dir()]


def available_patches() -> List[Path]:
    for directory in patch_dirs():
        found = sorted(directory.glob('*.patch'))
        if found:
            return found
    return []


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


def apply_patch(patch: Path, site: Path) -> str:
    """Apply if needed; returns the state after the call ('applied' or 'conflict')."""
    state = patch_state(patch, site)
    if state != 'applicable':
        return state
    for file_patch in parse_patch(patch.read_text(encoding='utf-8')):
        target = site / file_patch.path
        text = target.read_text(encoding='utf-8')
        new_lines = _apply_hunks(text.splitlines(), file_patch.hunks, reverse=False)
        target.write_text('\n'.join(new_lines) + ('\n' if text.endswith('\n') else ''), encoding='utf-8')
    return patch_state(patch, site)


def installed_site() -> Path:
    """The directory holding the installed ``evalscope`` package, found without importing it."""
    spec = importlib.util.find_spec('evalscope')
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit('evalscope is not installed in this environment.')
    return Path(list(spec.submodule_search_locations)[0]).parent


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('action', choices=['apply', 'check'], help='apply missing patches, or only report')
    parser.add_argument('--site', type=Path, default=None,
                        help='directory that holds the evalscope package (default: the installed one)')


def run(args: argparse.Namespace) -> int:
    site = args.site or installed_site()
    patches = available_patches()
    if not patches:
        print('no patches found', file=sys.stderr)
        return 1
    states: Dict[str, str] = {}
    for patch in patches:
        states[patch.name] = apply_patch(patch, site) if args.action == 'apply' else patch_state(patch, site)
        print(f'{states[patch.name]:<10} {patch.name}')
    if 'conflict' in states.values():
        print(f'Some patches do not match {site / "evalscope"}; is it evalscope 1.14.1?', file=sys.stderr)
        return 1
    return 0 if all(s == 'applied' for s in states.values()) else 1
