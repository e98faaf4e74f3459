"""Where we may write: never through a symbolic link, never outside the run or work dir, names from a safe alphabet.

Why: a run directory is something a user may be handed or share, and resuming follows what is in it.
A cache file that is a symlink made ``repair_torn_tail`` truncate and append to a file outside the run,
a symlinked ``error_analysis/`` received every output, and a suite ``name: ../../x`` or a
``--model-id ../../../../x`` wrote outside the work dir. The checks here refuse such a path with one
line (:class:`UnsafePathError`, printed without a traceback) before anything is opened for writing.
What is not covered: a link swapped in between the check and the open (no ``O_NOFOLLOW`` walk), and
EvalScope's own writes under a model id it derives itself.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional, Union

from evalscope_phys.errors import UserFacingError

PathLike = Union[str, 'os.PathLike[str]']
#: a name that becomes one file or folder name: letters, digits, ``._+-``; not ``.``-first; at most 128
SAFE_NAME_RE = re.compile(r'[A-Za-z0-9_][A-Za-z0-9._+-]{0,127}')


class UnsafePathError(UserFacingError, ValueError):
    """A path or name we refuse to write to (the message says which and why)."""


def safe_name(value: str, what: str) -> str:
    """``value`` when it is a safe single file name (see :data:`SAFE_NAME_RE`), else :class:`UnsafePathError`."""
    if not isinstance(value, str) or not SAFE_NAME_RE.fullmatch(value) or '..' in value:
        raise UnsafePathError(f'{what} {value!r} is not a safe name: it becomes a file name, so use only letters, '
                              'digits and . _ + - (no / or ..), at most 128 characters')
    return value


def writable_file(path: PathLike, root: Optional[PathLike] = None) -> Path:
    """``path`` when it may be opened for writing: not a symlink, and (with ``root``) resolving inside ``root``."""
    path = Path(path)
    if path.is_symlink():
        raise UnsafePathError(f'{path}: is a symbolic link; refusing to write through it')
    if root is not None:
        inside_root(path, root)
    return path


def inside_root(path: PathLike, root: PathLike) -> Path:
    """``path`` when no part of it below ``root`` is a symlink and it resolves inside ``root``."""
    path, root = Path(path), Path(root)
    real_root = root.resolve()
    try:
        relative = path.absolute().relative_to(root.absolute())
    except ValueError:
        relative = None
    if relative is not None:
        current = root
        for part in relative.parts:
            current = current / part
            if current.is_symlink():
                raise UnsafePathError(f'{current}: is a symbolic link inside {root}; refusing to write through it')
    resolved = path.resolve()
    if resolved != real_root and real_root not in resolved.parents:
        raise UnsafePathError(f'{path}: resolves outside {root}; refusing to write there')
    return path
