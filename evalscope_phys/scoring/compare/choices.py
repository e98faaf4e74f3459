"""The unit of the choices a question offers: ``10^3, 10^6, 10^9, 10^{12} years``.

Why: a multiple-choice question lists its values with one unit at the end, and the reference keeps
only the number (``10^9``); an answer ``10^9 \\text{ years}`` then states the question's own unit, not
one the reference cannot check. Only a list of plain numbers that holds the reference's value counts,
and only the unit written right after it.
"""
from __future__ import annotations

import re
from typing import Optional

_NUMBER = (r'\$*\s*[-+]?\d+(?:\.\d+)?(?:\s*(?:\\times|\\cdot)\s*10)?'
           r'(?:\s*\^\s*(?:\{\s*[-+]?\s*\d+\s*\}|[-+]?\d))?\s*\$*')
_LIST_RE = re.compile(rf'(?P<list>{_NUMBER}(?:\s*(?:,|\bor\b)\s*{_NUMBER}){{2,}})\s*(?P<unit>[^.\n,;:?]{{1,40}}?)\s*(?:[.;:?\n]|$)')
MAX_QUESTION_CHARS = 20_000
"""Only this much of a question is searched (the search is linear, but questions are short)."""


def offered_unit(question: str, value: float) -> Optional[str]:
    """The unit written after a list of choices that holds ``value``, else None."""
    from ..read.latex import LatexError, to_sympy
    for m in _LIST_RE.finditer(question[:MAX_QUESTION_CHARS]):
        unit = m.group('unit').strip().strip('$').strip()
        if not unit:
            continue
        for item in re.split(r',|\bor\b', m.group('list')):
            try:
                number = float(to_sympy(item.strip().strip('$').strip()))
            except (LatexError, TypeError, ValueError, RecursionError):
                continue
            if number == value or (value and abs(number - value) <= 1e-9 * abs(value)):
                return unit
    return None


def is_offered_unit(question: str, value: float, unit_text: str) -> bool:
    """Whether ``unit_text`` is the unit of the question's choices that hold ``value`` (one pint unit)."""
    from .units import parse_unit
    offered = offered_unit(question, value)
    if offered is None:
        return False
    mine, theirs = parse_unit(unit_text), parse_unit(offered)
    return mine is not None and theirs is not None and mine == theirs
