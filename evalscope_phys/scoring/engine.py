"""``score_answer``: extraction and pre-checks here, all SymPy work in a limited worker process.

The calling thread only does string work (extraction, unit lookup, size pre-checks); parsing,
comparison, simplification and EED run through :func:`pool.run_limited` under one hard
deadline per answer, so a pathological answer costs at most ``timeout`` seconds and is reported as
unscored (``timeout``), never as a silent 0. Results are cached by (reference, extracted answer,
options): pass@k samples that end in the same answer are scored once, and concurrent callers asking
for the same key wait for the first one instead of duplicating the work.
"""
from __future__ import annotations

import re
import threading
import time
from dataclasses import replace
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Union

from . import limits, pool
from .extract import ExtractedAnswer, extract_all_answers, extract_final_answer
from .units import compare_units
from .verdict import Verdict

MAX_RESPONSE_CHARS = 1_000_000
"""Responses longer than this are refused before extraction (a few hundred times a long solution)."""
CACHE_SIZE = 100_000
"""Cached verdicts kept (a verdict is a few hundred bytes)."""
SIMPLIFY_MAX_OPS = 400
"""Expressions with more operations than this enter EED unsimplified (the work is superlinear)."""
FULL_SIMPLIFY_MAX_OPS = 0
"""Expressions this small get SymPy's full ``simplify`` before EED (it is fast on them)."""

#: A left-hand side that names a quantity: a letter or command, optional subscript, primes, and
#: an optional argument list (``T``, ``v_{0,\max}``, ``\Delta x``, ``E'``, ``p(\theta)``).
_NAME_RE = re.compile(r"^\s*(\\[Dd]elta\s*)?(\\[A-Za-z]+|[A-Za-z])\s*(_\s*(\{[^{}]*(\{[^{}]*\}[^{}]*)*\}|\\?[A-Za-z0-9]+))?"
                      r"\s*(\^\s*\{?\s*(\\prime|\*|')+\s*\}?|')*\s*((\\left)?\s*\([^()]*(\\right)?\s*\))?\s*$")

_cache: Dict[tuple, Verdict] = {}
_inflight: Dict[tuple, threading.Event] = {}
_cache_lock = threading.Lock()


# --------------------------------------------------------------------------- worker side

@lru_cache(maxsize=4096)
def _parse(text: str):
    """(expr, '') or (None, reason) -- cached per worker process."""
    from .latex import LatexError, to_sympy
    try:
        return to_sympy(text), ''
    except LatexError as exc:
        return None, exc.reason
    except RecursionError:
        return None, 'too_deep'


@lru_cache(maxsize=4096)
def _simplified(expr):
    """The tree EED compares: ``together`` (one fraction), not the official full ``simplify``.

    The official scorer posifies and runs ``simplify`` (0.1-100 s per answer); our symbols are
    positive from the parser on, and ``together`` gives the official trees on most answers at a
    fraction of the cost. Measured on the non-equivalent dev pairs with a fair official score:
    within 5 points on 138/159 with ``together`` (5 ms) vs 144/159 with ``simplify`` (190 ms) and
    103/159 with no simplification. ``FULL_SIMPLIFY_MAX_OPS`` can buy back simplify for tiny trees.
    """
    import sympy
    try:
        ops = sympy.count_ops(expr)
        if ops <= FULL_SIMPLIFY_MAX_OPS:
            return sympy.simplify(expr)
        if ops > SIMPLIFY_MAX_OPS:
            return expr
        return sympy.together(expr)
    except Exception:  # SymPy raises many types on odd input; the unsimplified tree is fine
        return expr


def _eed(reference, answer) -> float:
    from .eed import eed_score
    return float(eed_score(_simplified(reference), _simplified(answer)).score)


def _score_job(job: dict) -> dict:
    """Runs in a worker: parse, compare, EED. Returns plain data only."""
    parsed = _parse_job(job)
    if isinstance(parsed, dict):
        return parsed
    refs, answers, rejoined = parsed
    if len(refs) == 1 and len(answers) == 1:
        equation = _compare_as_equations(job, refs[0], answers[0][0])
        if equation is not None:
            return equation
        result = _compare_pair(job, refs[0], answers[0], job['units'][0], rejoined)
        out = {'strict': result.strict, 'lenient': result.lenient, 'reason': result.reason}
        if job['eed']:
            out['eed'] = 100.0 if result.strict else _eed(refs[0], answers[0][0])
        return out
    if len(refs) != len(answers):
        return {'strict': False, 'lenient': False, 'reason': 'count_mismatch',
                'eed': 0.0 if job['eed'] else None}
    from .equivalence import match_multiple
    comparisons = {(i, j): _compare_pair(job, ref, answer, job['units'][j], rejoined)
                   for i, ref in enumerate(refs) for j, answer in enumerate(answers)
                   if not job['ordered'] or i == j}
    assignment, strict, lenient = match_multiple(comparisons, len(refs), len(answers), job['ordered'])
    verdicts = [comparisons[p] for p in assignment]
    if strict or lenient:
        reason = next((v.reason for v in verdicts if v.reason != 'equivalent'), 'equivalent')
    else:
        reason = next(v.reason for v in verdicts if not v.lenient)
    out = {'strict': strict, 'lenient': lenient, 'reason': reason}
    if job['eed']:
        scores = [100.0 if comparisons[(i, j)].strict else _eed(refs[i], answers[j][0]) for i, j in assignment]
        out['eed'] = sum(scores) / len(scores)
    return out


def _parse_job(job: dict):
    """(references, [(answer, read_with_unit_words)], reference_unit_rejoined) or an early verdict.

    A plain-word unit ("2 m") may be a symbol after all: when the other side has symbols, the
    words go back into the expression (and the unit comparison no longer applies).
    """
    refs, answers, rejoined = [], [], False
    for value, full_text, style in job['references']:
        expr, reason = _parse(value)
        if expr is not None and style == 'plain' and _answers_symbolic(job):
            expr, reason = _parse(full_text)
            rejoined = True
        if expr is None:
            return {'reason': 'unparseable_reference', 'detail': reason}
        refs.append(expr)
    for value, full_text, style in job['answers']:
        use_full = style == 'plain' and any(r.free_symbols for r in refs)
        expr, reason = _parse(full_text if use_full else value)
        if expr is None:
            return {'reason': 'unparseable_answer', 'detail': reason, 'strict': False,
                    'lenient': False, 'eed': 0.0 if job['eed'] else None}
        answers.append((expr, use_full))
    reason = _expr_limits(refs + [a for a, _ in answers])
    if reason:
        return {'reason': 'input_too_large', 'detail': reason}
    return refs, answers, rejoined


def _compare_pair(job: dict, reference, answer: tuple, units: tuple, rejoined: bool):
    """One reference against one answer, with the answer's unit conversion."""
    from .equivalence import Comparison, compare
    expr, read_with_unit_words = answer
    factor, offset, unit_reason, alternative = \
        (1.0, 0.0, 'no_units', None) if read_with_unit_words or rejoined else units
    if factor is None:
        return Comparison(False, False, 'dimension_mismatch')
    result = compare(reference, expr, factor=factor, offset=offset, tolerance=job['tolerance'],
                     unit_reason=unit_reason)
    if alternative is not None and not result.strict:
        other = compare(reference, expr, factor=alternative, tolerance=job['tolerance'],
                        unit_reason='unit_converted')
        if (other.strict, other.lenient) > (result.strict, result.lenient):
            result = other
    return result


def _compare_as_equations(job: dict, reference_rhs, answer_rhs) -> Optional[dict]:
    """Two equations (``x^2+y^2=1`` against ``1-x^2-y^2=0``) compare as ``lhs - rhs`` up to a
    constant factor, when the reference is an equation (see :func:`_is_equation`); against one, an
    answer that is not an equation (``1``) is not equivalent, whatever its value. Definitions
    (``T = 2mg``, ``S_D - S_A = ...``) are compared by their value."""
    from .equivalence import compare_equations
    ref_lefts, answer_lefts = job['left_sides']
    if not ref_lefts or not ref_lefts[0]:
        return None
    ref_lhs, _ = _parse(ref_lefts[0])
    if ref_lhs is None or _expr_limits([ref_lhs]) or not _is_equation(ref_lhs, reference_rhs, job):
        return None
    reference = ref_lhs - reference_rhs
    ans_lhs = _parse(answer_lefts[0])[0] if answer_lefts and answer_lefts[0] else None
    if ans_lhs is None or _expr_limits([ans_lhs]):
        out = {'strict': False, 'lenient': False, 'reason': 'not_equivalent'}
        if job['eed']:
            out['eed'] = _eed(reference, answer_rhs)
        return out
    answer = ans_lhs - answer_rhs
    result = compare_equations(reference, answer, tolerance=job['tolerance'])
    out = {'strict': result.strict, 'lenient': result.lenient, 'reason': result.reason}
    if job['eed']:
        out['eed'] = 100.0 if result.strict else _eed(reference, answer)
    return out


def _is_equation(lhs, rhs, job: dict) -> bool:
    """An equation, not a definition: the left side is not a name (``T``, ``p(\\theta)``), and the
    right side is written ``0``, the two sides share a symbol, or a sum equals a constant with no
    unit. ``S_D - S_A = f(p, V, T)`` and ``t'_1 - t'_0 = 3.7 \\times 10^3\\,\\text{s}`` define a quantity."""
    if _NAME_RE.match(job['left_sides'][0][0]):
        return False  # T, v_{0}, \Delta x, p(\theta): a quantity being defined
    if job['references'][0][2]:
        return False  # a value with a unit (t'_1 - t'_0 = 3.7 \times 10^3 s) measures the left side
    if job['references'][0][0].strip() == '0':
        return True
    if lhs.free_symbols & rhs.free_symbols:
        return True
    return lhs.is_Add and not rhs.free_symbols


def _answers_symbolic(job: dict) -> bool:
    for value, _, _ in job['answers']:
        expr, _ = _parse(value)
        if expr is not None and expr.free_symbols:
            return True
    return False


def _expr_limits(exprs) -> Optional[str]:
    for expr in exprs:
        reason = limits.check_expr_limits(expr)
        if reason:
            return reason
    return None


# --------------------------------------------------------------------------- caller side

def _references(reference: Union[str, Sequence[str]], multiple: Optional[str]):
    texts = [reference] if isinstance(reference, str) else list(reference)
    extracted: List[ExtractedAnswer] = []
    for text in texts:
        if multiple and len(texts) == 1:
            extracted.extend(extract_all_answers(text))
        else:
            extracted.append(extract_final_answer(text))
    if multiple is None and len(texts) == 1:
        listed = _definition_list(texts[0])
        if listed:
            return listed
    return extracted


def _definition_list(text: str) -> List[ExtractedAnswer]:
    """A reference that lists several named values (``R = 0.02, \\quad T = 0.98``): every one of them
    is part of the answer, so it is compared as an unordered multiple answer ([] otherwise)."""
    if text.count('=') < 2 or len(text) > 2_000:
        return []  # most references: one value, no list to look for
    items = [a for a in extract_all_answers(text) if not a.empty]
    if len(items) > 1 and all(a.left_side and _NAME_RE.match(a.left_side) for a in items):
        return items
    return []


def _unscored(reason: str, started: float, extracted: Optional[str], detail: str = '') -> Verdict:
    return Verdict(eed=None, strict=None, lenient=None, reason=reason, extracted=extracted,
                   seconds=time.perf_counter() - started, detail=detail)


def score_answer(reference: Union[str, Sequence[str]], response: str, *,
                 tolerance: Optional[float] = None, unit: Optional[str] = None,
                 multiple: Optional[str] = None, eed: bool = True, timeout: Optional[float] = 5.0) -> Verdict:
    """Score a model response (or a bare answer) against a reference answer.

    ``reference`` is LaTeX, or a list of LaTeX answers for a multi-answer question, matched
    ``multiple='ordered'`` or ``'unordered'`` (the default for lists). ``tolerance`` is the lenient
    relative tolerance (default 1e-2), ``unit`` the reference's unit when the dataset keeps it
    apart (a bare number then counts as being in that unit; against a unit written into the
    reference, a missing unit is accepted by the lenient verdict only). Safe to call from many
    threads; never raises on bad input. ``timeout`` is the hard deadline for the whole answer
    (``None`` runs inline with no deadline: debugging only).
    """
    started = time.perf_counter()
    if response is None:
        response = ''
    elif isinstance(response, bytes):
        response = response.decode('utf-8', errors='replace')
    elif not isinstance(response, str):
        response = str(response)
    if len(response) > MAX_RESPONSE_CHARS:
        return _unscored('input_too_large', started, None, 'response_too_long')
    if multiple not in (None, 'ordered', 'unordered'):
        raise ValueError(f"multiple must be 'ordered', 'unordered' or None, not {multiple!r}")
    try:
        refs = _references(reference, multiple)
        many = len(refs) > 1 or multiple is not None
        answers = extract_all_answers(response) if many else [extract_final_answer(response)]
        if many and len(answers) == 1 and len(refs) > 1:
            answers = extract_all_answers(answers[0].text)
    except RecursionError:
        return _unscored('input_too_large', started, None, 'too_deep')
    answers = [a for a in answers if not a.empty]
    shown = ' ; '.join(a.text for a in answers) or None
    if not answers:
        return Verdict(eed=0.0 if eed else None, strict=False, lenient=False, reason='no_answer',
                       extracted=None, seconds=time.perf_counter() - started)
    for text in [r.text for r in refs] + [a.text for a in answers]:
        limit = limits.check_text_limits(text)
        if limit:
            return _unscored('input_too_large', started, shown, limit)
    if any(r.empty for r in refs) or not refs:
        return _unscored('unparseable_reference', started, shown, 'empty')

    reference_unit = unit or ''
    unit_info = []
    for answer in answers:
        ref_unit = reference_unit or (refs[0].unit if len(refs) == 1 else '')
        comparison = compare_units(answer.unit, ref_unit)
        if comparison.reason == 'missing_unit' and unit:
            # the dataset states the unit apart (the question asks for a value in it): a bare
            # number is the expected form; a unit written into the reference must be matched
            comparison = compare_units('', '')
        unit_info.append((comparison.factor, comparison.offset, comparison.reason, comparison.alternative))
    job = {
        'references': tuple((r.expression, r.text, r.unit_style) for r in refs),
        'answers': tuple((a.expression, a.text, a.unit_style) for a in answers),
        'left_sides': (tuple(_checked(r.left_side) for r in refs), tuple(_checked(a.left_side) for a in answers)),
        'units': tuple(unit_info),
        'tolerance': tolerance,
        'ordered': multiple == 'ordered',
        'eed': bool(eed),
    }
    key = (job['references'], job['answers'], job['left_sides'], job['units'], tolerance, job['ordered'],
           job['eed'])
    cached = _cache_get(key)
    if cached is not None:
        return replace(cached, seconds=time.perf_counter() - started)
    try:
        verdict = _run(job, started, shown, timeout)
        if verdict.reason not in ('timeout', 'worker_crashed', 'error'):
            _cache_put(key, verdict)
    finally:
        _cache_release(key)
    return verdict


def _checked(left_side: str) -> str:
    """An equation's left side, or '' when it fails the size pre-checks (then only values compare)."""
    return left_side if left_side and not limits.check_text_limits(left_side) else ''


def _run(job: dict, started: float, shown: Optional[str], timeout: Optional[float]) -> Verdict:
    remaining = None if timeout is None else max(0.05, timeout - (time.perf_counter() - started))
    result = pool.run_limited(_score_job, job, timeout=remaining)
    if not result.ok:
        reason = result.reason or 'error'
        short = 'error' if reason.startswith('error') else reason
        return _unscored(short, started, shown, reason)
    data = result.value
    return Verdict(eed=data.get('eed'), strict=data.get('strict'), lenient=data.get('lenient'),
                   reason=data['reason'], extracted=shown, seconds=time.perf_counter() - started,
                   detail=data.get('detail', ''))


def _cache_get(key: tuple) -> Optional[Verdict]:
    while True:
        with _cache_lock:
            if key in _cache:
                return _cache[key]
            event = _inflight.get(key)
            if event is None:
                _inflight[key] = threading.Event()
                return None
        event.wait()


def _cache_release(key: tuple) -> None:
    with _cache_lock:
        event = _inflight.pop(key, None)
    if event is not None:
        event.set()


def _cache_put(key: tuple, verdict: Verdict) -> None:
    with _cache_lock:
        if len(_cache) >= CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = verdict


def clear_cache() -> None:
    """Forget cached verdicts (tests and benchmarks that time cold scoring)."""
    with _cache_lock:
        _cache.clear()


def warm_up() -> None:
    """Runs in each scoring worker before it reports ready, so no answer's deadline pays for it."""
    from . import eed, equivalence, latex  # noqa: F401  (imports are the point)
    from .units import registry

    registry()
    latex.to_sympy('x')


pool.add_preload(__name__)
