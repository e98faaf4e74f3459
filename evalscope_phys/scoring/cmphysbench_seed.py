"""SEED, CMPhysBench's score (0-100), computed on the engine's answer model.

CMPhysBench (arXiv 2508.18124) extends PHYBench's EED to five answer types. Its scorer parses both
sides again with its own LaTeX preprocessor; here both are read once by the engine
(:func:`~.extract.read_reference`, :func:`~.extract.extract_answer`), decided by the one comparator
(:func:`~.compare.compare`) and given partial credit by the one edit distance (:mod:`.eed`). Per type:

* ``Expression``: 100 when the answer is (strictly) the reference, else its EED. ``name = value``
  compares the values, as SEED keeps what follows the last ``=``.
* ``Equation``: 100 for the same equation (the engine also accepts one rescaled by a constant;
  SEED accepts only ``A - B`` or ``B - A``), else the EED of the two ``rhs - lhs`` forms.
* ``Tuple``: as many entries as the reference, else 0; the mean of the entries' Expression scores.
* ``Interval``: 100 for the same interval; else, with as many pieces, one edit distance over the
  pieces in which each bracket is one node (a wrong bracket costs 1) and each end point contributes
  its EED distance and tree size; a different number of pieces scores 0.
* ``Numeric``: both values in the reference's unit (pint, through :mod:`.units`), then credit by the
  relative error against the reference: 100/90/80 within the three bands of :data:`NUMERIC_BANDS`,
  else 0; opposite signs score 0 whatever the error; a zero reference needs exactly 0. A unit on one
  side only is ignored (SEED's behaviour); other dimensions or a unit neither side knows score 0
  (SEED falls back to comparing the bare numbers there). A side with free symbols is scored as an
  Expression.

Like :func:`~.engine.score_answer`, :func:`seed_score` never raises: the work runs in a
:mod:`.pool` worker under a hard deadline, and a reference the engine cannot read, a timeout or a
crash is *unscored* (``score`` None), never a silent 0. A missing or unreadable answer scores 0.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional, Tuple

from .run import pool
from .answer_types import type_code
from .engine import MAX_REFERENCE_CHARS, MAX_RESPONSE_CHARS
from .run.limits import ANSWER_DEADLINE
from .verdict import UNSCORED_REASONS

SEED_TYPES = ('Expression', 'Equation', 'Tuple', 'Interval', 'Numeric')
"""CMPhysBench's ``answer_type`` values."""

ENGINE_TYPE_CODES = {kind: None if kind == 'Tuple' else type_code(kind) for kind in SEED_TYPES}
"""The engine's answer-type code for each SEED type (tuples need none: brackets make them)."""

NUMERIC_BANDS: Dict[str, Tuple[Tuple[float, float], ...]] = {
    'paper': ((0.005, 100.0), (0.01, 90.0), (0.02, 80.0)),
    'release': ((0.01, 100.0), (0.02, 90.0), (0.04, 80.0)),
}
"""(relative error at most, credit) per Numeric band. ``paper``: the paper, the scorer's own docstring
and its first release (CMPhysBench commit 59fe3d0, also OpenCompass's copy); ``release``: the bands
the scorer has used since commit 3da78b6 (2025-10-29)."""

DEFAULT_BANDS = 'paper'
BAND_SLACK = 1e-9
"""Relative slack at a band's edge, so the rounding of a unit conversion (201 cm -> 2.0100000000000002 m)
never moves an answer out of its band."""


@dataclass(frozen=True)
class SeedResult:
    """SEED of one answer."""

    score: Optional[float]
    """0-100; None when the answer could not be scored (see :attr:`scored`)."""
    reason: str
    """Why: the comparator's reason (:data:`~.verdict.REASONS`) or ``numeric_band`` (partial numeric credit)."""
    extracted: Optional[str]
    """The answer as read from the response."""
    seconds: float
    detail: str = ''

    @property
    def scored(self) -> bool:
        return self.reason not in UNSCORED_REASONS

    def to_dict(self) -> Dict[str, Any]:
        data = asdict(self)
        data['scored'] = self.scored
        return data


def seed_type(raw: object) -> Optional[str]:
    """CMPhysBench's answer type in canonical spelling (``'numeric'`` -> ``'Numeric'``), None if unknown."""
    text = str(raw or '').strip().lower()
    return next((name for name in SEED_TYPES if name.lower() == text), None)


def seed_score(reference: object, response: object, answer_type: object = 'Expression', *,
               bands: str = DEFAULT_BANDS, timeout: Optional[float] = ANSWER_DEADLINE) -> SeedResult:
    """SEED of ``response`` (a model response or a bare answer) against ``reference``. Never raises.

    ``answer_type`` is one of :data:`SEED_TYPES` (case-insensitive); ``bands`` a key of
    :data:`NUMERIC_BANDS`. ``timeout=None`` runs inline without a deadline (debugging only).
    """
    started = time.perf_counter()
    kind = seed_type(answer_type)
    if kind is None or bands not in NUMERIC_BANDS:
        problem = f'answer_type must be one of {SEED_TYPES}, not {answer_type!r}' if kind is None \
            else f'bands must be one of {sorted(NUMERIC_BANDS)}, not {bands!r}'
        return SeedResult(None, 'error', None, time.perf_counter() - started, problem)
    ref_text, text = _text(reference), _text(response)
    if ref_text is None or not ref_text.strip():
        return SeedResult(None, 'unparseable_reference', None, time.perf_counter() - started, 'no reference text')
    if len(ref_text) > MAX_REFERENCE_CHARS:
        return SeedResult(None, 'input_too_large', None, time.perf_counter() - started, 'reference_too_long')
    text = text or ''
    if len(text) > MAX_RESPONSE_CHARS:
        return SeedResult(0.0, 'answer_too_large', None, time.perf_counter() - started, 'response_too_long')
    job = {'reference': ref_text, 'response': text, 'type': kind, 'bands': NUMERIC_BANDS[bands]}
    result = pool.run_limited(_seed_job, job, timeout=timeout)
    seconds = time.perf_counter() - started
    if not result.ok:
        reason = result.reason or 'error'
        return SeedResult(None, 'error' if reason.startswith('error') else reason, None, seconds, reason)
    data = result.value
    return SeedResult(data['score'], data['reason'], data.get('extracted'), seconds, data.get('detail', ''))


def _text(value: object) -> Optional[str]:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode('utf-8', errors='replace')
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value) if isinstance(value, float) else str(value)
    return None if value is not None else ''


# --------------------------------------------------------------------------- worker side

def _seed_job(job: dict) -> dict:
    """Runs in a pool worker: read both sides with the engine, then score by type. Plain data out."""
    from .answer import describe
    from .compare.answers import ReferenceUnreadable
    from .read.extract import extract_answer, read_reference

    code = ENGINE_TYPE_CODES[job['type']]
    reference = read_reference(job['reference'], code)
    extracted = extract_answer(job['response'], code)
    shown = describe(extracted.answer) or extracted.text or None
    try:
        score, reason, detail = _by_type(job['type'], reference, extracted.answer, job['bands'],
                                         job['reference'], extracted.text)
    except ReferenceUnreadable as exc:
        return {'score': None, 'reason': 'unparseable_reference', 'detail': exc.detail, 'extracted': shown}
    return {'score': float(score), 'reason': reason, 'detail': detail, 'extracted': shown}


def _by_type(kind: str, reference, answer, bands, reference_text: str, answer_text: str) -> Tuple[float, str, str]:
    from .answer import Collection, Empty, Unreadable
    from .read.notation import same_text
    from .compare.answers import ReferenceUnreadable

    if isinstance(reference, (Empty, Unreadable)) and not (answer_text and same_text(reference_text, answer_text)):
        raise ReferenceUnreadable(getattr(reference, 'why', 'empty reference'))
    if isinstance(answer, Empty):
        return 0.0, 'no_answer', ''
    if answer_text and same_text(reference_text, answer_text):
        return 100.0, 'equivalent', 'identical text'
    if isinstance(answer, Collection) and answer.kind == 'boxes':
        answer = answer.items[-1]  # the last box is the final answer, as the engine reads one answer
    if kind == 'Tuple':
        return _tuple(reference, answer)
    if kind == 'Interval':
        return _interval(reference, answer)
    if kind == 'Numeric':
        numeric = _numeric(reference, answer, bands)
        if numeric is not None:
            return numeric
    return _expression(reference, answer)




def _expression(reference, answer) -> Tuple[float, str, str]:
    """Expression and Equation: the comparator decides; a miss gets the EED it computed (0 without one)."""
    from .compare.answers import Options, compare
    outcome = compare(reference, answer, Options(eed=True))
    if outcome.strict:
        return 100.0, outcome.reason, outcome.detail
    return float(outcome.eed or 0.0), outcome.reason, outcome.detail


def _items(answer) -> Optional[tuple]:
    from .answer import Collection, Definition
    if isinstance(answer, Definition):
        answer = answer.value
    if isinstance(answer, Collection) and answer.kind in ('tuple', 'list', 'set'):
        return answer.items
    return None


def _tuple(reference, answer) -> Tuple[float, str, str]:
    """Entry by entry in order; SEED gives 0 when the entries do not pair up."""
    refs = _items(reference) or (reference,)
    given = _items(answer) or (answer,)
    if len(refs) != len(given):
        return 0.0, 'count_mismatch', f'{len(given)} entries for {len(refs)}'
    scores = [_expression(r, a) for r, a in zip(refs, given)]
    total = sum(s for s, _, _ in scores) / len(scores)
    reason = 'equivalent' if total == 100.0 else next(r for s, r, _ in scores if s < 100.0)
    return total, reason, f'entries: {", ".join(f"{s:.0f}" for s, _, _ in scores)}'


def _interval(reference, answer) -> Tuple[float, str, str]:
    from .answer import Collection, Definition, Interval
    from .compare.answers import Options, compare
    from .eed.eed import eed_from_distance

    outcome = compare(reference, answer, Options(eed=False))
    if outcome.strict:
        return 100.0, outcome.reason, outcome.detail
    if not isinstance(reference, Interval):
        return _expression(reference, answer)
    if isinstance(answer, Definition):
        answer = answer.value
    if isinstance(answer, Collection) and answer.kind == 'tuple' and len(answer.items) == 2:
        answer = Interval(((False, answer.items[0], answer.items[1], False),))
    if not isinstance(answer, Interval) or len(answer.pieces) != len(reference.pieces):
        return 0.0, outcome.reason, 'not an interval of as many pieces'
    distance, size = 0.0, 0
    for (rl, ra, rb, rr), (al, aa, ab, ar) in zip(reference.pieces, answer.pieces):
        distance += (rl != al) + (rr != ar)
        size += 2
        for ref_end, ans_end in ((ra, aa), (rb, ab)):
            end_distance, end_size = _end_point(ref_end, ans_end)
            distance += end_distance
            size += end_size
    return eed_from_distance(distance, size), outcome.reason, f'interval distance {distance:g} of {size}'


def _end_point(reference, answer) -> Tuple[float, int]:
    """(edit distance, reference tree size) of one interval end point; 0 distance when equal."""
    from .answer import Value
    from .compare.answers import Options, ReferenceUnreadable, compare, read_expression_safely
    from .eed.eed import eed_score
    from .eed.tree import expression_tree

    if not isinstance(reference, Value):
        raise ReferenceUnreadable('an interval end point that is not a value')
    ref_expr, error = read_expression_safely(_expression_text(reference))
    if ref_expr is None:
        raise ReferenceUnreadable(error)
    size = expression_tree(ref_expr).size()
    if compare(reference, answer, Options(eed=False)).strict:
        return 0.0, size
    ans_expr = read_expression_safely(_expression_text(answer))[0] if isinstance(answer, Value) else None
    if ans_expr is None:
        return float(size), size  # nothing readable: every reference node is missing
    return float(eed_score(ref_expr, ans_expr).distance), size


def _expression_text(value) -> str:
    """A value's text as one expression: ``2t`` was split as 2 with the plain unit t, but is 2 times t."""
    return value.text if value.unit is not None and value.unit.plain else value.latex


def _value(answer):
    """The value an answer states: ``T_c = 9.2 K`` -> ``9.2 K``; the right side of ``a = b``."""
    from .answer import Definition, Relation, Value
    if isinstance(answer, Definition):
        return _value(answer.value)
    if isinstance(answer, Relation) and answer.kind in ('=', 'approx'):
        return _value(answer.right)
    return answer if isinstance(answer, Value) else None


def _numeric(reference, answer, bands) -> Optional[Tuple[float, str, str]]:
    """Credit by relative error, or None when a side is not a plain number (scored as an Expression)."""
    ref_value, ans_value = _value(reference), _value(answer)
    if ref_value is None:
        return None
    ref_number = _number(ref_value)
    if ref_number is None:
        return None
    if ans_value is None:
        from .answer import Alternatives
        return (0.0, 'hedged', 'several values offered') if isinstance(answer, Alternatives) else None
    ans_number = _number(ans_value)
    if ans_number is None:
        return None
    factors, reason = _unit_factors(ref_value, ans_value)
    if not factors:
        return 0.0, reason, f'{ans_value.unit.text if ans_value.unit else ""} vs {ref_value.unit.text if ref_value.unit else ""}'
    best: Optional[Tuple[float, str, str]] = None
    for factor, offset in factors:
        candidate = _credit(ref_number, ans_number * factor + offset, bands)
        if best is None or candidate[0] > best[0]:
            best = candidate
    score, band_reason, detail = best
    if score == 100.0 and reason in ('missing_unit', 'extra_unit', 'unit_converted'):
        band_reason = reason
    return score, band_reason, detail


def _number(value) -> Optional[complex]:
    from .compare import numeric
    from .compare.answers import read_expression_safely
    expr, _ = read_expression_safely(value.latex)
    if expr is None or expr.free_symbols:
        return None
    return numeric.exact_value(expr)


def _unit_factors(reference, answer) -> Tuple[List[Tuple[float, float]], str]:
    """(factor, offset) pairs taking the answer into the reference's unit, and the unit reason.

    No pair: the units differ in dimension, or one is unknown to pint and they are not the same text.
    """
    from .compare.units import compare_units
    ref_unit = reference.unit.text if reference.unit else ''
    ans_unit = answer.unit.text if answer.unit else ''
    comparison = compare_units(ans_unit, ref_unit)
    if comparison.reason == 'unknown_unit':
        same = ''.join(ref_unit.split()) == ''.join(ans_unit.split())
        return ([(1.0, 0.0)] if same else []), ('same_unit' if same else 'unknown_unit')
    if comparison.factor is None:
        return [], comparison.reason
    factors = [(comparison.factor, comparison.offset)]
    if comparison.alternative is not None:
        factors.append((comparison.alternative, 0.0))  # 60\% for 0.6
    return factors, comparison.reason


def _credit(reference: complex, answer: complex, bands) -> Tuple[float, str, str]:
    """SEED's numeric credit: zero reference exactly, opposite signs 0, then the bands."""
    if reference == 0:
        return (100.0, 'numeric_match', 'zero') if answer == 0 else (0.0, 'not_equivalent', 'reference is 0')
    if abs(reference.imag) < 1e-12 and abs(answer.imag) < 1e-12 and reference.real * answer.real < 0:
        return 0.0, 'not_equivalent', 'opposite sign'
    error = abs(answer - reference) / abs(reference)
    for limit, credit in bands:
        if error <= limit * (1 + BAND_SLACK):
            return credit, ('numeric_match' if credit == 100.0 else 'numeric_band'), f'relative error {error:.3g}'
    return 0.0, 'not_equivalent', f'relative error {error:.3g}'
