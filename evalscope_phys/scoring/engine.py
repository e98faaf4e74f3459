"""``score_answer``: the one facade every caller uses (adapters, ``evalscope-phys score``, RL rewards).

The calling thread only checks its arguments, their sizes and the verdict cache. Everything that
reads the model's text -- extraction included -- runs in a :mod:`.pool` worker under one hard
deadline per answer, so a pathological answer costs at most ``timeout`` seconds and is reported as
unscored (``timeout``), never as a silent 0, and never freezes the caller's other threads.

Results are cached by a digest of (reference, response, options), within a bound in bytes: GRPO
groups and pass@k samples that repeat a completion are scored once, and concurrent callers asking
for the same key wait for the first one -- each within its own deadline, never the other's.
"""
from __future__ import annotations

import hashlib
import math
import os
import threading
import time
from collections import OrderedDict
from functools import lru_cache
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from .run import pool
from .read.definitions import MAX_QUESTION_CHARS
from .run.limits import ANSWER_DEADLINE
from .verdict import Verdict

MAX_RESPONSE_CHARS = 1_000_000
"""Longer responses are refused before any work: the model's failure (``answer_too_large``)."""
MAX_REFERENCE_CHARS = 50_000
"""Longer references are refused (unscored, ``input_too_large``): no real reference comes close."""
CACHE_MAX_BYTES = 64 * 1024 * 1024
"""Verdict cache bound (estimated bytes: the key is a 16-byte digest, never the response text)."""
MAX_TIMEOUT = 600.0
"""The longest a caller may let one answer be scored (seconds); larger timeouts, ``float('inf')`` included, are capped here."""
MULTIPLE = (None, 'ordered', 'unordered')

Texts = Union[str, Sequence[str]]

_cache: 'OrderedDict[bytes, Tuple[Verdict, int]]' = OrderedDict()
_cache_bytes = 0
_inflight: Dict[bytes, '_Flight'] = {}
_cache_lock = threading.Lock()


class _Flight:
    """A key being scored by one caller; others wait on ``done``, each within its own bound."""

    __slots__ = ('done', 'started')

    def __init__(self) -> None:
        self.done = threading.Event()
        self.started: Optional[float] = None
        """``time.perf_counter()`` when a worker took the call (None while it is queued)."""


# --------------------------------------------------------------------------- worker side

def _verdict_data(outcome, extracted: str) -> dict:
    return {'strict': outcome.strict, 'lenient': outcome.lenient, 'reason': outcome.reason, 'eed': outcome.eed,
            'detail': outcome.detail, 'extracted': extracted,
            'parts': [_verdict_data(p, p.answer) for p in outcome.parts]}


def _score_job(job: dict) -> dict:
    """Runs in a worker: read the reference, extract and read the answer, compare. Plain data out."""
    from .compare.memo import remembering
    with remembering():
        return _scored(job)


def _scored(job: dict) -> dict:
    from .answer import Collection, describe
    from .compare.answers import Options, ReferenceUnreadable, compare
    from .read.extract import extract_answer
    from .read.notation import same_text as _same_text

    types = job['types']
    references = []
    for index, text in enumerate(job['references']):
        answer_type = types[index] if index < len(types) else None
        references.append(_with_labels(_reference(text, answer_type), job['units'], job['tolerances'], index))
    single_type = types[0] if len(set(types)) == 1 and types else None
    extracted = extract_answer(job['response'], single_type)
    options = Options(tolerance=job['tolerance'], ordered=job['ordered'], eed=job['eed'],
                      givens=_givens(job.get('question'), extracted.text, job['references']))
    if len(references) > 1:
        return _parts_job(job, references, single_type, options, extracted.answer)
    reference = references[0]
    if job['several'] and isinstance(reference, Collection) and reference.kind == 'list':
        reference = Collection('list', reference.items)
    elif job['several']:
        reference = Collection('list', (reference,))
    shown = describe(extracted.answer) or extracted.text
    if extracted.text and _same_text(job['references'][0], extracted.text):
        # the very text of the reference: equal whatever it means, even where the reader cannot follow it
        return {'strict': True, 'lenient': True, 'reason': 'equivalent', 'eed': 100.0 if job['eed'] else None,
                'detail': 'identical text', 'extracted': shown or None, 'parts': []}
    try:
        outcome = compare(reference, extracted.answer, options)
    except ReferenceUnreadable as exc:
        return {'reason': 'unparseable_reference', 'detail': exc.detail, 'extracted': shown or None}
    data = _verdict_data(outcome, shown)
    data['extracted'] = shown or None
    return data


def _parts_job(job: dict, references: list, expected: Optional[str], options, answer) -> dict:
    """Several reference parts: the response's pieces paired with them (:mod:`.pairing`), one verdict each."""
    from .compare.outcome import Outcome
    from .pairing import pair, response_pieces

    pieces, groups = response_pieces(job['response'], expected, answer)
    paired = pair(references, pieces, groups, options, job['ordered'], job.get('labels', ()),
                  tuple(str(r) for r in job['references']))
    parts = []
    for outcome, why in zip(paired.parts, paired.unreadable):
        if outcome is None:
            parts.append({'reason': 'unparseable_reference', 'detail': why, 'extracted': None, 'parts': []})
        else:
            parts.append(_verdict_data(_without_parts(outcome), outcome.answer or None))
    done = [o for o in paired.parts if o is not None]
    shown = ' ; '.join(p['extracted'] or '' for p in parts) or None
    if not done:
        return {'reason': 'unparseable_reference', 'detail': 'no reference part is readable', 'extracted': shown,
                'parts': parts, 'matched_by': paired.matched_by}
    strict = len(done) == len(parts) and all(o.strict for o in done)
    lenient = len(done) == len(parts) and all(o.lenient for o in done)
    if len(done) < len(parts):
        reason = 'unparseable_reference'
    elif strict:
        reason = next((o.reason for o in done if o.reason != 'equivalent'), 'equivalent')
    elif lenient:
        reason = next((o.reason for o in done if not o.strict), 'within_tolerance')
    elif any(o.reason == 'no_answer' for o in done) and len(pieces) != len(parts):
        reason = 'count_mismatch'
    else:
        reason = next(o.reason for o in done if not o.lenient)
    eeds = [o.eed for o in done if o.eed is not None]
    detail = next((o.detail for o in done if o.reason == reason and o.detail), '')
    if reason == 'count_mismatch' and not detail:
        detail = f'{len(pieces)} answers for {len(parts)}'
    whole = Outcome(strict, lenient, reason, sum(eeds) / len(parts) if eeds and job['eed'] else None, detail)
    data = _verdict_data(whole, shown or '')
    data.update(parts=parts, extracted=shown, matched_by=paired.matched_by)
    if reason == 'unparseable_reference':
        data.update(strict=None, lenient=None, eed=None)
    return data


def _without_parts(outcome):
    """An outcome without nested parts (a part's own list is reported as its verdict, not as sub-parts)."""
    from dataclasses import replace
    return replace(outcome, parts=())


def _givens(question: Optional[str], answer: str, references: Sequence[str] = ()):
    """What the question and the answer define (:mod:`.definitions`) beside the reference parts the
    problem asks for, or None when neither defines anything."""
    from .read.definitions import Givens
    defining = answer if answer and (answer.count('=') >= 2 or '\\equiv' in answer) else ''
    if question is None and not defining:
        return None
    return Givens(question_text=question or '', answer_text=defining, question=question is not None,
                  references=tuple(references))


REFERENCE_CACHE_SIZE = 1024
"""References read in this worker, kept for the next answer to the same question (read once)."""
REFERENCE_CACHE_MAX_CHARS = 4096
"""Longer references are read each time, so the cache stays under ~4 MB of text."""


def _reference(text: str, answer_type: Optional[str]):
    """``read_reference``, cached per worker: every answer to a question reuses its reading."""
    if len(text) > REFERENCE_CACHE_MAX_CHARS:
        from .read.extract import read_reference
        return read_reference(text, answer_type)
    return _reference_cached(text, answer_type)


@lru_cache(maxsize=REFERENCE_CACHE_SIZE)
def _reference_cached(text: str, answer_type: Optional[str]):
    from .read.extract import read_reference
    return read_reference(text, answer_type)


def _with_labels(answer, units: Tuple[str, ...], tolerances: Tuple[Optional[float], ...], index: int):
    """A reference with the dataset's unit (given apart) and per-part tolerance attached to its values."""
    from dataclasses import replace

    from .answer import Collection, Unit, Value
    unit = units[index] if index < len(units) else (units[0] if len(units) == 1 else '')
    tolerance = tolerances[index] if index < len(tolerances) else (tolerances[0] if len(tolerances) == 1 else None)
    if not unit and tolerance is None:
        return answer
    if isinstance(answer, Value):
        if unit and answer.unit is None:
            answer = replace(answer, unit=Unit(unit, apart=True))
        return replace(answer, tolerance=tolerance) if tolerance is not None else answer
    if isinstance(answer, Collection) and answer.kind == 'list':
        items = tuple(_with_labels(item, units, tolerances, i if len(units) > 1 or len(tolerances) > 1 else 0)
                      for i, item in enumerate(answer.items))
        return replace(answer, items=items)
    return _map_values(answer, lambda v: _with_labels(v, (unit,), (tolerance,), 0))


def _map_values(answer, fn):
    from dataclasses import fields, is_dataclass, replace

    from .answer import Value
    if isinstance(answer, Value):
        return fn(answer)
    if not is_dataclass(answer):
        return answer
    changes = {}
    for f in fields(answer):
        value = getattr(answer, f.name)
        if is_dataclass(value):
            changes[f.name] = _map_values(value, fn)
        elif isinstance(value, tuple) and value and any(is_dataclass(v) for v in value):
            changes[f.name] = tuple(_map_values(v, fn) if is_dataclass(v) else v for v in value)
    return replace(answer, **changes) if changes else answer


def warm_up() -> None:
    """Runs in each scoring worker before it reports ready, so no answer's deadline pays for it."""
    from .compare import answers, numeric  # noqa: F401  (imports are the point)
    from .eed import eed  # noqa: F401
    from .compare.units import registry
    registry()
    _score_job({'references': ('x',), 'response': 'x', 'types': (), 'units': (), 'tolerances': (),
                'several': False, 'tolerance': None, 'ordered': False, 'eed': True})


pool.add_preload(__name__)


# --------------------------------------------------------------------------- caller side

def _text(value: Any) -> Optional[str]:
    """Text from what a caller may pass: str, bytes (decoded, bad bytes replaced), numbers; None otherwise."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode('utf-8', errors='replace')
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    return None


def _texts(value: Any) -> Optional[Tuple[str, ...]]:
    if isinstance(value, (list, tuple)):
        texts = [_text(v) for v in value]
        return None if any(t is None for t in texts) else tuple(texts)
    text = _text(value)
    return None if text is None else (text,)


def _labels(value: Any, name: str) -> Tuple[Any, ...]:
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,)


def _unscored(reason: str, started: float, detail: str = '', extracted: Optional[str] = None) -> Verdict:
    return Verdict.unscored(reason, detail, extracted, seconds=time.perf_counter() - started)


def _check_options(tolerance: Any, unit: Any, multiple: Any, answer_type: Any) -> Tuple[str, tuple]:
    """('', normalised options) or (what is wrong, ())."""
    from .answer_types import ANSWER_TYPES

    if multiple not in MULTIPLE:
        return f"multiple must be 'ordered', 'unordered' or None, not {multiple!r}", ()
    tolerances = []
    for item in _labels(tolerance, 'tolerance'):
        if item is None:
            tolerances.append(None)
            continue
        try:
            number = float(item)
        except (TypeError, ValueError):
            return f'tolerance must be a number, not {item!r}', ()
        if not number >= 0 or number == float('inf'):
            return f'tolerance must be a non-negative number, not {item!r}', ()
        tolerances.append(number)
    units = []
    for item in _labels(unit, 'unit'):
        text = _text(item) if item is not None else ''
        if text is None:
            return f'unit must be text, not {item!r}', ()
        units.append(text.strip())
    types = []
    for item in _labels(answer_type, 'answer_type'):
        code = str(item).strip().upper() if item is not None else 'EX'
        if code not in ANSWER_TYPES:
            return f'answer_type must be one of {ANSWER_TYPES}, not {item!r}', ()
        types.append(code)
    return '', (tuple(tolerances), tuple(units), tuple(types))


def score_answer(reference: Union[str, Sequence[str]], response: Any, *,
                 tolerance: Union[None, float, Sequence[Optional[float]]] = None,
                 unit: Union[None, str, Sequence[str]] = None, multiple: Optional[str] = None,
                 answer_type: Union[None, str, Sequence[str]] = None, eed: bool = True,
                 timeout: Optional[float] = ANSWER_DEADLINE, wait: Optional[float] = None,
                 question: Optional[str] = None, labels: Sequence[str] = ()) -> Verdict:
    """Score a model response (or a bare answer) against a reference answer. Never raises.

    ``reference`` is LaTeX, or a list of LaTeX answers for a multi-answer question, matched
    ``multiple='ordered'`` or ``'unordered'`` (the default for lists); ``Verdict.parts`` then holds
    one verdict per reference part, the response's pieces paired with the parts by the model's labels,
    else by content one to one (:mod:`.pairing`; ``Verdict.matched_by`` says which); ``labels`` are
    the parts' own labels when the dataset gives them (``(a)``, ``(b)``). ``tolerance`` is the lenient relative tolerance (default 1e-2),
    ``unit`` the reference's unit when the dataset keeps it apart (a bare number is then the
    expected form), ``answer_type`` the dataset's type code(s) (``NV``, ``EX``, ``EQ``, ``IN``,
    ``TF``, ``MC``); the last three may be lists, one entry per reference part. ``timeout`` bounds
    the whole call, at most :data:`MAX_TIMEOUT` (``float('inf')`` means that cap; ``None`` runs inline
    with no deadline: debugging only; zero, negative or NaN is an ``error`` verdict). With ``wait``,
    ``timeout`` is the answer's own budget, counted from the moment a worker takes it, and ``wait``
    bounds the whole call (queue included): an answer queued behind slow ones keeps its budget.
    A caller waiting for another thread scoring the same text waits at most its own budget from
    when that work started. ``question`` is the problem's text: the symbols it defines (``\\rho \\equiv
    Nq/V``) are substituted on both sides, and the values it gives (``r = 4`` Å) evaluate a formula
    against a number (:mod:`.definitions`, :mod:`.problem_values`); without it only the answer's own
    definitions are. Safe from many threads.
    """
    started = time.perf_counter()
    if timeout is not None:
        if not isinstance(timeout, (int, float)) or math.isnan(timeout) or timeout <= 0:
            return _unscored('error', started, f'timeout must be a positive number of seconds or None, got {timeout!r}')
        timeout = min(float(timeout), MAX_TIMEOUT)  # float('inf') and huge values mean "the longest we allow"
    references = _texts(reference)
    if references is None or not references or not any(r.strip() for r in references):
        return _unscored('unparseable_reference', started, f'no reference text ({type(reference).__name__})')
    if sum(len(r) for r in references) > MAX_REFERENCE_CHARS:
        return _unscored('input_too_large', started, 'reference_too_long')
    problem, checked = _check_options(tolerance, unit, multiple, answer_type)
    if problem:
        return _unscored('error', started, problem)
    tolerances, units, types = checked
    question_text = _text(question) if question is not None else None
    if question is not None and question_text is None:
        return _unscored('error', started, f'question must be text, not {type(question).__name__}')
    text = _text(response) if response is not None else ''
    if text is None:
        text = str(response)
    if len(text) > MAX_RESPONSE_CHARS:
        return Verdict(eed=0.0 if eed else None, strict=False, lenient=False, reason='answer_too_large',
                       extracted=None, seconds=time.perf_counter() - started, detail='response_too_long')
    job = {
        'references': references, 'response': text, 'types': types, 'units': units, 'tolerances': tolerances,
        'several': multiple is not None or len(references) > 1,
        'tolerance': tolerances[0] if len(tolerances) == 1 else None,
        'ordered': multiple == 'ordered', 'eed': bool(eed),
        'question': question_text[:MAX_QUESTION_CHARS] if question_text is not None else None,
    }
    part_labels = tuple(str(label) for label in labels or ()) if len(references) > 1 else ()
    if any(part_labels):
        job['labels'] = part_labels
    if len(tolerances) == 1:
        job['tolerances'] = ()
    key = _digest(job)
    end = _call_end(started, timeout, wait)
    cached, flight = _cache_get(key, timeout, end)
    if cached is not None:
        return _again(cached, started)
    if flight is None:  # another caller's work on this text has outlasted this call's budget
        return _unscored('timeout', started, 'timeout: the same text, scored by another caller, '
                         'took longer than this call\'s budget')
    try:
        verdict = _run(job, started, timeout, wait, flight)
        if verdict.reason not in ('timeout', 'worker_crashed', 'error'):
            _cache_put(key, verdict)
    finally:
        _cache_release(key)
    return verdict


def _digest(job: dict) -> bytes:
    """The cache key: a digest of the job (reference, response, options), 16 bytes whatever its size."""
    text = repr(sorted(job.items()))
    return hashlib.blake2b(text.encode('utf-8', 'surrogatepass'), digest_size=16).digest()


def _call_end(started: float, timeout: Optional[float], wait: Optional[float]) -> Optional[float]:
    """When the whole call must be over (``perf_counter``), None for no bound."""
    if timeout is None:
        return None
    return started + (wait if wait is not None else timeout)


def _again(verdict: Verdict, started: float) -> Verdict:
    from dataclasses import replace
    return replace(verdict, seconds=time.perf_counter() - started)


def _from_data(data: dict, seconds: float) -> Verdict:
    return Verdict(eed=data.get('eed'), strict=data.get('strict'), lenient=data.get('lenient'),
                   reason=data['reason'], extracted=data.get('extracted'), seconds=seconds,
                   detail=data.get('detail', ''), parts=tuple(_from_data(p, 0.0) for p in data.get('parts', ())),
                   matched_by=data.get('matched_by', ''))


def _run(job: dict, started: float, timeout: Optional[float], wait: Optional[float] = None,
         flight: Optional[_Flight] = None) -> Verdict:
    def on_start() -> None:
        if flight is not None:
            with _flight_changed:
                flight.started = time.perf_counter()
                _flight_changed.notify_all()

    if timeout is None:
        on_start()
        result = pool.run_limited(_score_job, job, timeout=None)
    elif wait is None:
        remaining = max(0.05, timeout - (time.perf_counter() - started))
        result = pool.run_limited(_score_job, job, timeout=remaining, on_start=on_start)
    else:
        remaining_wait = max(0.05, wait - (time.perf_counter() - started))
        result = pool.run_limited(_score_job, job, timeout=timeout, wait=remaining_wait, on_start=on_start)
    if not result.ok:
        reason = result.reason or 'error'
        short = 'error' if reason.startswith('error') else reason
        return _unscored(short, started, reason)
    return _from_data(result.value, time.perf_counter() - started)


_flight_changed = threading.Condition(threading.Lock())
"""Notified when an in-flight key's work starts or ends, so its waiters recompute their bound."""


def _cache_get(key: bytes, timeout: Optional[float], end: Optional[float]
               ) -> Tuple[Optional[Verdict], Optional[_Flight]]:
    """(cached verdict, None), or (None, the new flight this caller owns), or (None, None) when the
    same key scored by another caller has outlasted this caller's own bound."""
    while True:
        with _cache_lock:
            hit = _cache.get(key)
            if hit is not None:
                _cache.move_to_end(key)
                return hit[0], None
            flight = _inflight.get(key)
            if flight is None:
                flight = _inflight[key] = _Flight()
                return None, flight
        with _flight_changed:  # started and done change under this lock: no wake-up is missed
            while not flight.done.is_set():
                limit = end
                if timeout is not None and flight.started is not None:
                    own = flight.started + timeout
                    limit = own if limit is None else min(limit, own)
                if limit is None:
                    _flight_changed.wait()
                    continue
                remaining = limit - time.perf_counter()
                if remaining <= 0:
                    return None, None
                _flight_changed.wait(remaining)


def _cache_release(key: bytes) -> None:
    with _cache_lock:
        flight = _inflight.pop(key, None)
    if flight is not None:
        with _flight_changed:
            flight.done.set()
            _flight_changed.notify_all()


def _verdict_bytes(verdict: Verdict) -> int:
    """An estimate of a cached verdict's memory: its strings and parts plus fixed overhead."""
    return (400 + len(verdict.extracted or '') + len(verdict.detail or '') + len(verdict.reason or '')
            + sum(_verdict_bytes(part) for part in verdict.parts))


_cache_limit = CACHE_MAX_BYTES


def set_cache_limit(max_bytes: int) -> None:
    """Bound the verdict cache at ``max_bytes`` (estimated), evicting the oldest entries now.

    Why: a batch of distinct pairs gains nothing from 64 MiB of verdicts it will not see again; the
    scoring CLI keeps a small window (repeats close together still hit) so its memory stays flat.
    """
    global _cache_limit
    with _cache_lock:
        _cache_limit = max(0, int(max_bytes))
        _evict()


def _evict() -> None:
    """Drop the oldest verdicts until the cache fits its bound (call with ``_cache_lock`` held)."""
    global _cache_bytes
    while _cache_bytes > _cache_limit and _cache:
        _cache_bytes -= _cache.popitem(last=False)[1][1]


def _cache_put(key: bytes, verdict: Verdict) -> None:
    global _cache_bytes
    size = _verdict_bytes(verdict)
    with _cache_lock:
        if key in _cache:
            return
        _cache[key] = (verdict, size)
        _cache_bytes += size
        _evict()


def cache_bytes() -> int:
    """The verdict cache's estimated size in bytes (bounded by ``CACHE_MAX_BYTES`` or :func:`set_cache_limit`)."""
    with _cache_lock:
        return _cache_bytes


def _reset_after_fork() -> None:
    """A forked child (a DataLoader worker) starts with its own lock and no in-flight keys.

    Why: a parent thread may hold the lock or be scoring a key at the moment of the fork; the child
    would wait forever on a lock or event that nobody in it will release. Finished verdicts are kept.
    """
    global _cache_lock, _flight_changed
    _cache_lock = threading.Lock()
    _flight_changed = threading.Condition(threading.Lock())
    _inflight.clear()


if hasattr(os, 'register_at_fork'):
    os.register_at_fork(after_in_child=_reset_after_fork)


def clear_cache() -> None:
    """Forget cached verdicts (tests and benchmarks that time cold scoring)."""
    global _cache_bytes
    with _cache_lock:
        _cache.clear()
        _cache_bytes = 0
