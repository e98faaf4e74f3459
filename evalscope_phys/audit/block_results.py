"""Finished pool blocks of one stage, kept on disk so an interrupted distributed run resumes.

The driver writes each block's (small) result as it arrives, under a directory named by everything
the result depends on (pool file state and blocking, eval side, settings); a re-run with the same
inputs skips the blocks found there, and any change of input starts a fresh directory.

Why no pickle: a cache directory is state a user may copy or be handed, and unpickling runs code
(a planted ``.pkl`` ran a command). A block is an ``.npz`` read with ``allow_pickle=False``: numeric
arrays plus a JSON description of the result's shape (tuples, numbers and the few result types
registered in :data:`RESULT_TYPES`), with a SHA-256 over both. A block that is truncated, tampered
with or of another shape is dropped with a one-line note and computed again.
"""
from __future__ import annotations

import hashlib
import io
import json
import sys
import zipfile
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Tuple

import numpy as np

SUFFIX = '.npz'


def digest(*parts: Any) -> str:
    """A short stable name for JSON-able ``parts`` (strings, numbers, lists)."""
    return hashlib.sha256(json.dumps(list(parts), sort_keys=True, default=str).encode('utf-8')).hexdigest()[:20]


def texts_digest(texts: Iterable[str]) -> str:
    h = hashlib.sha256()
    for t in texts:
        h.update(hashlib.sha256(t.encode('utf-8')).digest())
    return h.hexdigest()[:20]


def _result_types() -> Dict[str, type]:
    from .neighbours import Shortlist
    from .ngram_join import BlockHits

    return {'BlockHits': BlockHits, 'Shortlist': Shortlist}


class BlockError(ValueError):
    """A stored block cannot be read back as a result (the message says why)."""


def encode(result: Any) -> Tuple[Any, List[np.ndarray]]:
    """(JSON tree, arrays) for a result made of numbers, strings, tuples/lists, arrays and registered types."""
    arrays: List[np.ndarray] = []
    types = {cls: name for name, cls in _result_types().items()}

    def walk(value: Any) -> Any:
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                raise TypeError('object arrays cannot be stored')
            arrays.append(value)
            return {'array': len(arrays) - 1}
        if isinstance(value, (bool, np.bool_)):
            return {'bool': bool(value)}
        if isinstance(value, (int, np.integer)):
            return {'int': int(value)}
        if isinstance(value, (float, np.floating)):
            return {'float': repr(float(value))}
        if value is None or isinstance(value, str):
            return {'str': value}
        if isinstance(value, (tuple, list)):
            return {'tuple' if isinstance(value, tuple) else 'list': [walk(v) for v in value]}
        if is_dataclass(value) and type(value) in types:
            return {'type': types[type(value)], 'fields': {f.name: walk(getattr(value, f.name)) for f in fields(value)}}
        raise TypeError(f'a block result cannot hold {type(value).__name__}')

    return walk(result), arrays


def decode(tree: Any, arrays: List[np.ndarray]) -> Any:
    """The result :func:`encode` described; anything else is a :class:`BlockError`."""
    types = _result_types()

    def walk(node: Any) -> Any:
        if not isinstance(node, dict) or len(node) not in (1, 2):
            raise BlockError('unexpected structure')
        if 'array' in node:
            return arrays[int(node['array'])]
        if 'bool' in node:
            return bool(node['bool'])
        if 'int' in node:
            return int(node['int'])
        if 'float' in node:
            return float(node['float'])
        if 'str' in node:
            return node['str']
        if 'tuple' in node:
            return tuple(walk(v) for v in node['tuple'])
        if 'list' in node:
            return [walk(v) for v in node['list']]
        if node.get('type') in types:
            return types[node['type']](**{k: walk(v) for k, v in node['fields'].items()})
        raise BlockError('unknown result type')

    try:
        return walk(tree)
    except BlockError:
        raise
    except Exception as exc:
        raise BlockError(f'unexpected structure ({type(exc).__name__})') from exc


def _check(tree_json: bytes, arrays: List[np.ndarray]) -> str:
    h = hashlib.sha256(tree_json)
    for a in arrays:
        h.update(f'{a.dtype.str}{a.shape}'.encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def dumps(result: Any) -> bytes:
    tree, arrays = encode(result)
    tree_json = json.dumps(tree, sort_keys=True).encode('utf-8')
    buffer = io.BytesIO()
    check = np.frombuffer(_check(tree_json, arrays).encode(), np.uint8)
    np.savez(buffer, tree=np.frombuffer(tree_json, np.uint8), check=check, **{f'a{i}': a for i, a in enumerate(arrays)})
    return buffer.getvalue()


def loads(data: bytes) -> Any:
    """The result in ``data``; a :class:`BlockError` when it is not a whole, unchanged block."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            tree_json = npz['tree'].tobytes()
            check = npz['check'].tobytes().decode('ascii')
            count = len([k for k in npz.files if k.startswith('a')])
            arrays = [npz[f'a{i}'] for i in range(count)]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise BlockError(f'not a readable block ({type(exc).__name__}: {str(exc)[:80]})') from exc
    if _check(tree_json, arrays) != check:
        raise BlockError('content check failed (the file was changed or cut short)')
    try:
        tree = json.loads(tree_json)
    except ValueError as exc:
        raise BlockError('unreadable description') from exc
    return decode(tree, arrays)


def _note(message: str) -> None:
    print(message, file=sys.stderr)


class BlockResults:
    """``<root>/<name>/<block>.npz``: one result per finished block (no pickle, content-checked)."""

    def __init__(self, root: Path, name: str, note: Callable[[str], None] = _note) -> None:
        self.dir = Path(root) / name
        self.note = note
        self._loaded: Dict[int, Any] = {}

    def _path(self, block: int) -> Path:
        return self.dir / f'{block:06d}{SUFFIX}'

    def has(self, block: int) -> bool:
        """True when a whole block is stored; a damaged one is removed (one note) and counts as missing."""
        if block in self._loaded:
            return True
        path = self._path(block)
        if not path.is_file() or path.is_symlink():
            return False
        try:
            self._loaded[block] = loads(path.read_bytes())
        except BlockError as exc:
            self.note(f'audit: stored block {path} is unusable ({exc}); computing it again')
            path.unlink()
            return False
        return True

    def save(self, block: int, result: Any) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self._path(block)
        tmp = path.with_name(path.name + '.tmp')
        tmp.unlink(missing_ok=True)
        tmp.write_bytes(dumps(result))
        tmp.replace(path)  # a crash mid-write leaves no half result behind
        self._loaded[block] = result

    def load(self, block: int) -> Any:
        if block not in self._loaded and not self.has(block):
            raise BlockError(f'{self._path(block)}: no stored block')
        return self._loaded[block]

    def count(self) -> int:
        return len(list(self.dir.glob('*' + SUFFIX))) if self.dir.is_dir() else 0
