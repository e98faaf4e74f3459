"""Fault schedules for the replay server: which chat request gets a 500, a stall or bad JSON.

Grammar (comma-separated items, request numbers count chat-completion POSTs from 1)::

    3:500          request 3 gets HTTP 500
    5:slow         request 5 stalls for --slow-seconds before answering (longer than the client timeout)
    7:badjson      request 7 gets HTTP 200 with a truncated, unparsable JSON body (a streaming
                   request gets one SSE event carrying that body)
    every=4:500    requests 4, 8, 12, ... get HTTP 500

An explicit request number wins over a periodic item; two items claiming the same request number
are an error, as is an unknown kind.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

FAULT_KINDS = ('500', 'slow', 'badjson')


class FaultSpecError(ValueError):
    """A ``--faults`` string that cannot be parsed; the message quotes the bad item."""


@dataclass(frozen=True)
class FaultSchedule:
    """Which request numbers fail and how; an empty schedule never fires."""

    at: Tuple[Tuple[int, str], ...] = ()
    """(request number, kind) pairs."""
    every: Tuple[Tuple[int, str], ...] = ()
    """(period, kind) pairs: fires on every multiple of the period."""

    def fault_for(self, request_number: int) -> Optional[str]:
        for number, kind in self.at:
            if number == request_number:
                return kind
        for period, kind in self.every:
            if request_number % period == 0:
                return kind
        return None

    def describe(self) -> str:
        items = [f'{n}:{k}' for n, k in self.at] + [f'every={p}:{k}' for p, k in self.every]
        return ','.join(items) or 'none'


def _positive(text: str, item: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise FaultSpecError(f'fault item {item!r}: {text!r} is not a whole number') from None
    if value < 1:
        raise FaultSpecError(f'fault item {item!r}: request numbers and periods start at 1')
    return value


def parse_faults(spec: Optional[str]) -> FaultSchedule:
    """Parse ``"3:500,5:slow,every=4:badjson"``; ``None`` or ``""`` means no faults."""
    if not spec or not spec.strip():
        return FaultSchedule()
    at: Dict[int, str] = {}
    every: Dict[int, str] = {}
    for item in (part.strip() for part in spec.split(',')):
        if not item:
            continue
        where, sep, kind = item.partition(':')
        if not sep or kind not in FAULT_KINDS:
            raise FaultSpecError(f'fault item {item!r}: expected N:KIND or every=N:KIND with KIND one of '
                                 f'{", ".join(FAULT_KINDS)}')
        periodic = where.startswith('every=')
        number = _positive(where[len('every='):] if periodic else where, item)
        target = every if periodic else at
        if number in target:
            raise FaultSpecError(f'fault item {item!r}: {where} is already scheduled')
        target[number] = kind
    return FaultSchedule(at=tuple(sorted(at.items())), every=tuple(sorted(every.items())))


@dataclass
class RequestCounter:
    """Numbers chat requests 1, 2, 3, ... across threads and remembers which faults fired."""

    schedule: FaultSchedule = field(default_factory=FaultSchedule)
    count: int = 0
    fired: List[Tuple[int, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next(self) -> Tuple[int, Optional[str]]:
        """Claim the next request number and the fault (if any) scheduled for it."""
        with self._lock:
            self.count += 1
            number = self.count
            fault = self.schedule.fault_for(number)
            if fault is not None:
                self.fired.append((number, fault))
        return number, fault

    def snapshot(self) -> Dict[str, object]:
        with self._lock:
            return {'requests': self.count, 'faults_fired': [{'request': n, 'kind': k} for n, k in self.fired]}
