"""An append-only JSONL cache of answered judge calls, keyed by ``row['key']``.

Judge calls cost money and time, so each answer is written (and flushed) as its own line the moment
it arrives: a crash loses at most the line being written. On load a torn last line is cut off the
file, so the next append starts on a fresh line instead of gluing itself to the fragment (which
would lose the new answer too), and that call is simply made again.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Dict, Iterator, Optional


class JsonlCache:
    """key -> row; later lines win, so a re-asked key appends rather than rewrites."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.entries: Dict[str, dict] = {}
        self.dropped = 0
        """Lines that could not be read (a torn tail, hand edits); their calls are made again."""
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        data = self.path.read_bytes()
        complete = data.rfind(b'\n') + 1  # everything after the last newline is a torn write
        if complete < len(data):
            self.dropped += 1
            with self.path.open('r+b') as handle:
                handle.truncate(complete)
        # split on '\n' only: str.splitlines() also breaks at U+2028 inside JSON strings
        for line in data[:complete].decode('utf-8', errors='replace').split('\n'):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                self.entries[str(row['key'])] = row
            except (json.JSONDecodeError, KeyError, TypeError):
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
        line = json.dumps(row, ensure_ascii=False) + '\n'
        with self._lock:
            self.entries[str(row['key'])] = row
            with self.path.open('a', encoding='utf-8') as handle:
                handle.write(line)
                handle.flush()
