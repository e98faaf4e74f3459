"""A unit written after a value (``46.3\\,\\text{kN}``, ``9.8 meters``, ``3e8 m/s``): split off, kept as written.

Only the last :data:`MAX_UNIT_CHARS` characters are searched, so the split is linear; whether pint
knows the unit is decided here, what it converts to is :mod:`.units`' job.
"""
from __future__ import annotations

import re
from typing import Optional, Tuple

from ..answer import Unit
from .scan import balanced, strip_trailing

_UNIT_GROUP_RE = re.compile(r'((\\mu|\\micro)\s*(?=\\(text|mathrm|textrm|rm|mbox|textnormal|textbf)\b)|'
                            r'\\(text|mathrm|textrm|rm|mbox|operatorname|mathit|textnormal|textbf|mathbf)\b|'
                            r'\{\\rm\b|\^\s*\{?\s*\\circ|\\circ|\\degree|\\%|%|\\AA\b|\\Omega\b)')


_TEXT_UNIT_RE = re.compile(r'^\\(text|mathrm|rm|mbox|textnormal|textbf)\s*\{\s*[A-Za-zÅΩμ°/.\s^0-9-]{1,16}\}\s*$')


_NUMERIC_CMDS_RE = re.compile(r'\\(times|cdot|frac|dfrac|tfrac|sqrt|pi|left|right|,|;|!| |quad)')


_PLAIN_UNIT_RE = re.compile(r'(?:\\(?:mu|micro)\s*)?(?:\\Omega|\\AA|[A-Za-zΩÅ°])(?:[A-Za-z0-9ΩÅ°/^*.\-{}()\s]|\\[,;! ])*')


#: where a plain unit may start: after a digit (not the e of 1.5e-3), a space, a thin space, a tie or a '*'
_PLAIN_UNIT_START_RE = re.compile(r'(?:(?<=\d)(?![eE][+-]?\d)|\s+|\\,|~|\*)(?=\\mu|\\micro|\\Omega|\\AA|[A-Za-zΩÅ°])')


#: minutes and seconds of arc written as primes after a number (``3.31'``, ``12''``, ``5^{\prime}``)
_ARC_PRIMES_RE = re.compile(r"(?:''?|\^\s*\{?\s*\\prime\s*\}?|\^\s*\{\s*\\prime\s*\\prime\s*\})$")


MAX_UNIT_CHARS = 200
"""A unit is looked for in this many final characters of a value (keeps the search linear)."""


def is_numeric(text: str) -> bool:
    """Digits and numeric operators only (``3\\times10^{8}``, ``\\frac{1}{2}``, ``1.5e-3``)."""
    stripped = _NUMERIC_CMDS_RE.sub(' ', text)
    stripped = re.sub(r'(?<=\d)[eE](?=[+-]?\d)', ' ', stripped)
    return bool(re.search(r'\d', stripped)) and not re.search(r'[A-Za-z\\]', stripped)


def split_unit(text: str) -> Tuple[str, Optional[Unit]]:
    """``(value, unit)``: a trailing unit split off when it is a unit (known, or a word after a number)."""
    from ..compare.units import parse_unit, plain_word_is_unit
    text = text.strip()
    if text.endswith(("'", 'prime', 'prime}', "'}")):
        arc = _arc_primes(text)
        if arc is not None:
            return arc
    window = max(0, len(text) - MAX_UNIT_CHARS)
    for m in _UNIT_GROUP_RE.finditer(text, window):
        value, unit = text[:m.start()].strip(), text[m.start():].strip()
        if value.endswith(('^', '_')):
            continue  # E_n^{\\rm Ps}: a label in a superscript, not a unit
        if not value or not balanced(value) or not balanced(unit):
            continue
        value = re.sub(r'(\\cdot|\\times|\*)\s*$', '', strip_trailing(value)).strip()
        if unit.startswith(('\\Omega', '\\AA', '\\mu')) and not is_numeric(value):
            continue  # after a formula, \Omega is the symbol Omega
        if unit.startswith(('\\mathbf', '\\textbf')) and not is_numeric(value):
            continue  # after a formula, bold is a vector: \nabla \times \mathbf{B} is a curl, not nabla in bels
        if value and (parse_unit(unit) is not None or (is_numeric(value) and _TEXT_UNIT_RE.match(unit))):
            return value, Unit(unit)
    for m in _PLAIN_UNIT_START_RE.finditer(text, window):
        start = m.end()
        value, unit = text[:start].rstrip(' *~').strip(), text[start:].strip()
        value = strip_trailing(value[:-2] if value.endswith('\\,') else value)
        if value and is_numeric(value) and balanced(unit) and _PLAIN_UNIT_RE.fullmatch(unit) \
                and not _single_letters(unit) and parse_unit(unit) is not None and plain_word_is_unit(unit):
            return value, Unit(unit, plain=True)
    return text, None


def _arc_primes(text: str) -> Optional[Tuple[str, Unit]]:
    """``3.31'`` is 3.31 minutes of arc and ``12''`` 12 seconds of arc: after a plain number a prime is a
    unit (after a symbol, ``x'``, it stays part of the name). None when the primes follow no plain number."""
    m = _ARC_PRIMES_RE.search(text)
    value = text[:m.start()].strip() if m else ''
    if not value or not is_numeric(value) or not re.search(r'\d\s*$', value):
        return None
    return value, Unit(m.group(0), plain=False)


def _single_letters(unit: str) -> bool:
    words = unit.split()
    return len(words) > 1 and all(len(w) == 1 for w in words)  # "2 m g" is a product, not metre-grams
