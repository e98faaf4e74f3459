"""Datasets that label their answers: type codes, per-part units and tolerances -> the engine.

UGPhysics and OlympiadBench label each answer with a type (``NV`` numeric, ``EX`` expression, ``EQ``
equation, ``IN`` interval, ``TF`` true/false, ``MC`` multiple choice) and many answers have several
parts, each with its own unit (and, for OlympiadBench, an absolute error). This module reads those
labels; splitting the reference into parts and every comparison are the engine's
(:func:`evalscope_phys.scoring.read.extract.reference_parts`, :func:`evalscope_phys.scoring.score_answer`),
so a typed answer goes through the same reader and comparator as every other answer.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from evalscope_phys.scoring.answer_types import type_code
from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.read.labels import clean_label
from evalscope_phys.scoring.run.limits import ANSWER_DEADLINE
from evalscope_phys.scoring.read.scan import matching_brace, top_level_split
from evalscope_phys.scoring.verdict import Verdict


@dataclass(frozen=True)
class AnswerPart:
    """One part of a reference answer and how the dataset labels it."""

    reference: str
    """LaTeX of the reference part."""
    answer_type: str = 'EX'
    """One of :data:`evalscope_phys.scoring.answer_types.ANSWER_TYPES`."""
    unit: str = ''
    """The reference unit when the dataset keeps it apart ('' when none)."""
    tolerance: Optional[float] = None
    """Lenient relative tolerance for this part (None: the engine's default)."""


def parse_answer_types(raw: object) -> Tuple[str, ...]:
    """``'NV, EX'`` -> ``('NV', 'EX')``; raises ``ValueError`` when no line is a list of types.

    Datasets carry junk around the codes (``'\\\\\\nMC'``, ``'NV\\n\\nThe final answer is ...'``):
    the first line that is entirely a comma-separated list of known types wins.
    """
    text = str(raw or '')
    for line in text.splitlines():
        cleaned = line.strip().strip('\\').strip()
        if not cleaned:
            continue
        codes = [type_code(item) for item in cleaned.split(',')]
        if codes and all(codes):
            return tuple(codes)  # type: ignore[arg-type]
    raise ValueError(f'unknown answer type {text[:60]!r}')


def split_labels(text: object, count: int) -> List[str]:
    """A dataset's per-part units or errors (``'A, V'``, ``',1e-2'``, ``'None, None'``) as ``count`` strings.

    Empty and ``None`` entries become ''; one label for several parts is shared; a list of the
    wrong length gives '' for every part (no unit is better than a wrong one).
    """
    raw = '' if text is None else str(text).strip()
    wrapped = re.match(r'\\text\s*\{', raw)
    if wrapped and matching_brace(raw, wrapped.end() - 1) == len(raw) - 1 and ',' in raw:
        raw = raw[wrapped.end():-1]  # '\text{None, None}': one wrapper round the whole list
    items = [clean_label(item) for item in top_level_split(raw, (',',))] if raw else ['']
    if len(items) == count:
        return items
    if len(items) == 1:
        return items * count
    return [''] * count


def build_parts(reference: str, answer_types: Sequence[str], *, multiple: bool = False,
                units: object = None, tolerances: Sequence[Optional[float]] = (),
                tolerance: Optional[float] = None) -> List[AnswerPart]:
    """The typed parts of one reference answer; ``ValueError`` when types and parts disagree.

    The reference is split (by the engine's reader) when it is marked multiple or has several
    types. One type for several parts is shared by all of them; any other count mismatch is a
    broken record.
    """
    from evalscope_phys.scoring.read.extract import reference_parts
    text = str(reference or '').strip()
    if not text:
        raise ValueError('empty reference answer')
    types = list(answer_types)
    pieces = reference_parts(text) if (multiple or len(types) > 1) else [text]
    if not pieces:
        raise ValueError('empty reference answer')
    if len(types) == 1 and len(pieces) > 1:
        types = types * len(pieces)
    if len(pieces) != len(types):
        raise ValueError(f'{len(pieces)} answer parts but {len(types)} answer types')
    unit_list = split_labels(units, len(pieces))
    tolerance_list = list(tolerances) if len(tolerances) == len(pieces) else [tolerance] * len(pieces)
    return [AnswerPart(p, t, u, tol) for p, t, u, tol in zip(pieces, types, unit_list, tolerance_list)]


_NUMBER_RE = re.compile(
    r'^\s*([+-]?\s*(?:\d+(?:\.\d*)?|\.\d+))\s*(?:(?:\\times|\\cdot|\*|x)\s*10\s*\^\s*\{?\s*([+-]?\s*\d+)\s*\}?'
    r'|[eE]([+-]?\d+))?\s*$')


def number_value(text: str) -> Optional[float]:
    """The value of a plain decimal reference (``2.47``, ``3.4 \\times 10^{17}``, ``x_0 = 2.27``), else None."""
    body = str(text or '').replace('$', ' ').split('=')[-1]
    body = re.sub(r'\\[,;:! ]|~|\{,\}', '', body)
    m = _NUMBER_RE.match(body)
    if not m:
        return None
    exponent = m.group(2) or m.group(3) or '0'
    try:
        return float(m.group(1).replace(' ', '')) * 10.0 ** int(exponent.replace(' ', ''))
    except (ValueError, OverflowError):
        return None


def absolute_to_relative(reference: str, error: object) -> Optional[float]:
    """A dataset's absolute tolerance (OlympiadBench ``error``) as a relative one at the reference value.

    ``0`` means an exact number (the engine's strict 1e-6); a missing error, or a reference
    that is not a plain number, leaves the engine's default (None).
    """
    try:
        absolute = float(str(error).strip())
    except ValueError:
        return None
    if absolute == 0:
        return 1e-6
    value = number_value(reference)
    if value is None or value == 0:
        return None
    return abs(absolute) / abs(value)


def score_typed_parts(parts: Sequence[AnswerPart], response: str, *, ordered: bool, eed: bool = True,
                      timeout: float = ANSWER_DEADLINE) -> Verdict:
    """A response against typed parts, through the one engine call and its pairing stage (``Verdict.parts``
    per part, ``Verdict.matched_by`` how the response's pieces were paired with them).

    ``eed`` is reported only when every part is an expression.
    """
    want_eed = eed and all(p.answer_type == 'EX' for p in parts)
    if len(parts) == 1:
        part = parts[0]
        return score_answer(part.reference, response, answer_type=part.answer_type, unit=part.unit or None,
                            tolerance=part.tolerance, eed=want_eed, timeout=timeout)
    return score_answer([p.reference for p in parts], response, multiple='ordered' if ordered else 'unordered',
                        answer_type=[p.answer_type for p in parts], unit=[p.unit for p in parts],
                        tolerance=[p.tolerance for p in parts], eed=want_eed, timeout=timeout)
