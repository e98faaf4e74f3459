"""An append-only JSONL cache of answered judge calls, keyed by ``row['key']``.

Judge calls cost money and time, so each answer is written (and flushed) as its own line the moment
it arrives: a crash loses at most the line being written. The file handling -- a torn last line
repaired before anything is appended, lines written whole, any string (a lone surrogate included)
written so it reads back -- is :mod:`evalscope_phys.jsonl`'s, shared with every other cache.
"""
from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Dict, Iterator, Optional

from evalscope_phys.jsonl import append_record, read_lines, repair_torn_tail


def call_key(*parts: str) -> str:
    """A call's cache key: the same judge model given the same prompt parts is never asked twice."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode('utf-8', errors='replace'))
        digest.update(b'\x00')
    return digest.hexdigest()


class JsonlCache:
    """key -> row; later lines win, so a re-asked key appends rather than rewrites."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.entries: Dict[str, dict] = {}
        self.dropped = 0
        """Lines that could not be read (a torn tail, hand edits); their calls are made again."""
        if repair_torn_tail(self.path).action == 'dropped':
            self.dropped += 1
        lines, _ = read_lines(self.path)
        for raw in lines:
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
                self.entries[str(row['key'])] = row
            except (ValueError, KeyError, TypeError):
                self.dropped += 1

    def get(self, key: str) -> Optional[dict]:
        return self.entries.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[dict]:
        return iter(list(self.entries.values()))

    def put(self, row: dict) -> None:
        """Append ``row`` (it must carry ``key``) and flush it before returning."""
        with self._lock:
            self.entries[str(row['key'])] = row
            append_record(self.path, row)
