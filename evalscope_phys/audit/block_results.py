"""Finished pool blocks of one stage, kept on disk so an interrupted distributed run resumes.

The driver writes each block's (small) result as it arrives, under a directory named by everything
the result depends on (pool file state and blocking, eval side, settings); a re-run with the same
inputs skips the blocks found there, and any change of input starts a fresh directory.
"""
from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path
from typing import Any, Iterable


def digest(*parts: Any) -> str:
    """A short stable name for JSON-able ``parts`` (strings, numbers, lists)."""
    return hashlib.sha256(json.dumps(list(parts), sort_keys=True, default=str).encode('utf-8')).hexdigest()[:20]


def texts_digest(texts: Iterable[str]) -> str:
    h = hashlib.sha256()
    for t in texts:
        h.update(hashlib.sha256(t.encode('utf-8')).digest())
    return h.hexdigest()[:20]


class BlockResults:
    """``<root>/<name>/<block>.pkl``: one pickled result per finished block."""

    def __init__(self, root: Path, name: str) -> None:
        self.dir = Path(root) / name

    def _path(self, block: int) -> Path:
        return self.dir / f'{block:06d}.pkl'

    def has(self, block: int) -> bool:
        return self._path(block).is_file()

    def save(self, block: int, result: Any) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self._path(block)
        tmp = path.with_name(path.name + '.tmp')
        tmp.write_bytes(pickle.dumps(result, protocol=5))
        tmp.replace(path)  # a crash mid-write leaves no half result behind

    def load(self, block: int) -> Any:
        return pickle.loads(self._path(block).read_bytes())

    def count(self) -> int:
        return len(list(self.dir.glob('*.pkl'))) if self.dir.is_dir() else 0
