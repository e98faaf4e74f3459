"""Append-only JSONL files that survive a crash mid-write, and any string a model can produce.

Why: our caches and outputs are appended one line per record and resumed by reading them back.
A process killed mid-write (SIGKILL, OOM, power) leaves a *torn* last line without its newline;
appending after it glues the next record onto the fragment, so that record is lost too and asked
again on every resume. And ``json.dumps(..., ensure_ascii=False)`` happily returns a string with a
lone surrogate (``"\\ud800"`` from a model's reply), which then cannot be encoded as UTF-8 and kills
the writer on every resume at the same line.

The rules here: a file's content is only its newline-terminated lines; before appending, a torn
tail is repaired (kept, with its newline, if it is a complete JSON value, else dropped); lines are
written whole in one call and flushed; a string that is not valid Unicode is written with JSON
escapes, which read back to the same string.
"""
from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator, List, Optional, Tuple, Union

from evalscope_phys.safe_paths import writable_file

PathLike = Union[str, 'os.PathLike[str]']


def dumps_line(record: Any) -> str:
    """One JSON line (with its newline); non-ASCII kept readable unless it is not valid Unicode."""
    text = json.dumps(record, ensure_ascii=False)
    try:
        text.encode('utf-8')
    except UnicodeEncodeError:  # a lone surrogate: only an escape can carry it
        text = json.dumps(record, ensure_ascii=True)
    return text + '\n'


@dataclass(frozen=True)
class TailRepair:
    """What :func:`repair_torn_tail` found at the end of a file."""

    action: str
    """'none' (ends with a newline, or empty/missing), 'terminated' (a complete JSON line lacked
    only its newline) or 'dropped' (a partial line was cut off)."""
    dropped: bytes = b''
    """The bytes cut off (for 'dropped')."""


def _parses(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return False
    return True


def repair_torn_tail(path: PathLike) -> TailRepair:
    """Make ``path`` end with a newline: terminate a complete last line, or drop a torn one.

    A symlink is refused (:class:`~evalscope_phys.safe_paths.UnsafePathError`): it may lead outside the run.
    """
    path = writable_file(path)
    if not path.exists():
        return TailRepair('none')
    with open(path, 'r+b') as handle:
        size = handle.seek(0, os.SEEK_END)
        if size == 0:
            return TailRepair('none')
        handle.seek(size - 1)
        if handle.read(1) == b'\n':
            return TailRepair('none')
        start = _last_line_start(handle, size)
        handle.seek(start)
        tail = handle.read(size - start)
        if tail.strip() and _parses(tail):
            handle.seek(size)
            handle.write(b'\n')
            return TailRepair('terminated')
        handle.truncate(start)
        return TailRepair('dropped', tail)


def _last_line_start(handle: IO[bytes], size: int, block: int = 1 << 16) -> int:
    """Offset just after the last newline before ``size`` (0 when there is none)."""
    end = size
    while end > 0:
        begin = max(0, end - block)
        handle.seek(begin)
        chunk = handle.read(end - begin)
        index = chunk.rfind(b'\n')
        if index != -1:
            return begin + index + 1
        end = begin
    return 0


def read_lines(path: PathLike) -> Tuple[List[bytes], bytes]:
    """(complete lines without their newline, torn tail or b'') of a file; missing file: ([], b'')."""
    path = Path(path)
    if not path.exists():
        return [], b''
    data = path.read_bytes()
    *lines, tail = data.split(b'\n')
    return lines, tail


def iter_lines(path: PathLike, block: int = 1 << 16) -> Iterator[bytes]:
    """Every line of a file without its newline, the last one even without a newline; O(one line) memory.

    Why: a file of 50k pairs must not be held whole (:func:`read_lines` does); split on ``\n`` only.
    """
    with open(path, 'rb') as handle:
        pending = b''
        while True:
            chunk = handle.read(block)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b'\n')
            yield from lines
        if pending:
            yield pending


def read_values(path: PathLike) -> Iterator[Any]:
    """Every JSON value of a JSONL file, skipping blank lines, unparseable lines and a torn tail.

    For caches, where a damaged entry only means asking again. Split on ``\\n`` only:
    ``str.splitlines`` would also break at U+2028 inside a JSON string.
    """
    lines, tail = read_lines(path)
    if tail.strip() and _parses(tail):
        lines.append(tail)
    for raw in lines:
        if not raw.strip():
            continue
        try:
            yield json.loads(raw)
        except ValueError:
            continue


class JsonlError(ValueError):
    """A line that is not JSON in a file read strictly; the message names the line."""

    def __init__(self, line: int, error: json.JSONDecodeError) -> None:
        super().__init__(f'line {line} is not JSON ({error.msg})')
        self.line = line
        """The 1-based number of the bad line."""
        self.error = error
        """What :func:`json.loads` said about it."""


def parse_lines(text: str, strict: bool = True) -> Tuple[List[Any], List[str]]:
    """(the JSON value of every non-blank line, ``'line N: why'`` for each line that is not JSON).

    The caller chooses the policy: ``strict`` raises :class:`JsonlError` at the first bad line (a
    file we wrote and must trust); tolerant returns the bad lines so they can be reported (a dataset,
    where one damaged row should not stop a run). Split on ``\\n`` only (U+2028 may sit inside a JSON string).
    """
    rows: List[Any] = []
    bad: List[str] = []
    for number, line in enumerate(text.split('\n'), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if strict:
                raise JsonlError(number, exc) from None
            bad.append(f'line {number}: {exc.msg}')
    return rows, bad


def parse_numbered(text: str) -> Iterator[Tuple[int, Any]]:
    """``(line number, JSON value)`` of every non-blank line; :class:`JsonlError` at the first bad one."""
    for number, line in enumerate(text.split('\n'), 1):
        if line.strip():
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise JsonlError(number, exc) from None


class JsonlAppender:
    """Appends whole lines to a JSONL file from any thread; repairs a torn tail first."""

    def __init__(self, path: PathLike) -> None:
        self.path = writable_file(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.repair = repair_torn_tail(self.path)
        self._lock = threading.Lock()
        self._handle: Optional[IO[bytes]] = open(self.path, 'ab')

    def append(self, record: Any) -> None:
        data = dumps_line(record).encode('utf-8')
        with self._lock:
            if self._handle is None:
                raise ValueError(f'{self.path}: appender is closed')
            self._handle.write(data)
            self._handle.flush()

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None

    def __enter__(self) -> 'JsonlAppender':
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def append_record(path: PathLike, record: Any) -> None:
    """Append one record to ``path`` (repairing a torn tail first); for occasional single writes."""
    with JsonlAppender(path) as out:
        out.append(record)
