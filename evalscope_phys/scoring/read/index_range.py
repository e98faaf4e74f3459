"""An index range written as a list (``n = 1, 2, 3, \\ldots``, ``k = 0, \\pm 1, \\pm 2, \\dots``): one condition.

Why: split at its commas, ``n = 0, 1, 2, \\dots`` was four answers (``n = 0``, ``1``, ``2``, ``\\dots``),
so an answer or a reference that states the integers its formula runs over counted several values
(``count_mismatch``). It is one statement, "n ranges over these integers": it is read as a
:class:`~..answer.Relation` of kind ``range`` whose right side is the set it names, written one way
(:func:`range_set`), so two ranges are compared as sets (``1, 2, \\ldots`` is ``1, 2, 3, \\ldots``;
``0, 1, \\ldots`` is not ``1, 2, \\ldots``). A list that is no arithmetic progression (``1, 2, 4,
\\ldots``) or that ends after its dots (``1, 2, \\ldots, N``) is left as it was.
"""
from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from ..answer import Relation, Value

RANGE_KIND = 'range'
"""The relation kind of an index range (:data:`~..answer.RELATION_KINDS`)."""

_INDEX = r"(?:\\ell|\\nu|\\mu|[A-Za-z])'*(?:_\{?[A-Za-z0-9]\}?)?"
_MEMBER = r'(\\pm\s*)?(-?\s*\d{1,4})'
_SPACE = r'(?:\s|\\[,;:! ]|\\q?quad(?![A-Za-z])|~)*'
"""Spacing left at the front of a list item (``\\ n = 1``)."""
_FIRST_RE = re.compile(rf'^{_SPACE}({_INDEX})\s*=\s*{_MEMBER}\s*$')
_MEMBER_RE = re.compile(rf'^{_SPACE}{_MEMBER}\s*$')
_DOTS_RE = re.compile('^' + _SPACE + r'\\(?:dots|ldots|cdots|dotsc)(?![A-Za-z])\s*(?:\\text\s*\{\s*[.,;]?\s*\}|[.,;])?\s*$')


_INTEGERS = '\\{0, \\pm 1, \\pm 2, \\pm 3, \\ldots\\}'
"""All integers, as :func:`range_set` writes them."""
_BRACKETED_RE = re.compile(r'^\(\s*(.*?)\s*\)$')
_MEMBER_OF_RE = re.compile(rf'^{_SPACE}({_INDEX})\s*\\in\s*(?:(\\mathbb\s*\{{?\s*Z\s*\}}?)|\\\{{(.*)\\\}})\s*$')


def join_ranges(items: Sequence[str]) -> List[str]:
    """``items`` (a list split at its commas) with each run ``n = a, b, ..., \\dots`` joined back into one
    item, which :func:`read_range` reads."""
    out: List[str] = []
    i = 0
    while i < len(items):
        end = _range_end(items, i)
        if end is None:
            out.append(items[i])
            i += 1
            continue
        out.append(', '.join(item.strip() for item in items[i:end]))
        i = end
    return out


def read_range(text: str) -> Optional[Relation]:
    """The index range ``text`` states (``n = 0, \\pm 1, \\ldots``, in brackets or not; ``n \\in
    \\mathbb{Z}``; ``n \\in \\{1, 2, \\ldots\\}``), or None when it states none."""
    text = text.strip()
    bare = _BRACKETED_RE.match(text)
    if bare:
        text = bare.group(1)
    member = _MEMBER_OF_RE.match(text)
    if member:
        if member.group(2) is not None:
            return Relation(RANGE_KIND, Value(member.group(1).strip()), Value(_INTEGERS))
        text = f'{member.group(1)} = {member.group(3)}'
    items = text.split(',')
    if _range_end(items, 0) != len(items):
        return None
    first = _FIRST_RE.match(items[0])
    members = [_member(first.group(2), first.group(3))] + [_member(*_MEMBER_RE.match(i).groups()) for i in items[1:-1]]
    return Relation(RANGE_KIND, Value(first.group(1).strip()), Value(range_set(members)))


def _member(sign: Optional[str], number: str) -> Tuple[bool, int]:
    return bool(sign), int(number.replace(' ', ''))


def _range_end(items: Sequence[str], start: int) -> Optional[int]:
    """The end of the index range that starts at ``items[start]``, or None."""
    first = _FIRST_RE.match(items[start])
    if first is None:
        return None
    members = [_member(first.group(2), first.group(3))]
    j = start + 1
    while j < len(items) and _MEMBER_RE.match(items[j]):
        members.append(_member(*_MEMBER_RE.match(items[j]).groups()))
        j += 1
    if j >= len(items) or not _DOTS_RE.match(items[j]) or len(members) < 2:
        return None
    if j + 1 < len(items) and '=' not in items[j + 1]:
        return None  # 1, 2, \ldots, N: a finite range, or a list we do not read as one
    if range_set(members) is None:
        return None
    return j + 1


def range_set(members: Sequence[Tuple[bool, int]]) -> Optional[str]:
    """The set an arithmetic progression of integers names, written one way, or None.

    ``members`` are (``\\pm`` written, integer) in the order written: ``0, \\pm1, \\pm2`` is
    ``\\{0, \\pm 1, \\pm 2, \\pm 3, \\ldots\\}``, ``1, 2`` is ``\\{1, 2, 3, \\ldots\\}``."""
    signed = [k for pm, k in members if pm]
    plain = [k for pm, k in members if not pm]
    if signed:
        if any(k <= 0 for k in signed) or plain not in ([], [0]) or members[0][0] != (not plain):
            return None
        step = _step(signed)
        if step is None:
            return None
        head = '0, ' if plain else ''
        return '\\{' + head + ', '.join(f'\\pm {signed[0] + i * step}' for i in range(3)) + ', \\ldots\\}'
    step = _step(plain)
    if step is None:
        return None
    return '\\{' + ', '.join(str(plain[0] + i * step) for i in range(3)) + ', \\ldots\\}'


def _step(values: Sequence[int]) -> Optional[int]:
    if len(values) < 2:
        return 1 if len(values) == 1 else None  # \pm 1, \ldots after 0: the integers one by one
    step = values[1] - values[0]
    if step <= 0 or any(b - a != step for a, b in zip(values, values[1:])):
        return None
    return step


#: ``(i = 1, 2, 3)``, ``(j=1,\\ldots,N)``: a bracketed index running over integers, the range of an equation
_BRACKETED_INDICES_RE = re.compile(r'^\(\s*[ijklmn]\s*=\s*\d+\s*(,\s*(\d+|\\[lc]?dots|\.\.\.|[a-zA-Z])\s*)+\)$')


def is_finite_indices(part: str) -> bool:
    """Whether ``part`` is the bracketed run of indices an equation holds for (``(i = 1, 2, 3)``,
    ``(j = 1, \\ldots, N)``): a condition beside the answer. An open one (``(k = 1, 2, \\dots)``) is an
    index range (:func:`read_range`), which is compared, not dropped."""
    return bool(_BRACKETED_INDICES_RE.match(part)) and read_range(part) is None


def is_range(answer: object) -> bool:
    """Whether ``answer`` is an index range read by :func:`join_ranges`."""
    return isinstance(answer, Relation) and answer.kind == RANGE_KIND
