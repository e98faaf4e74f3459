"""Piecewise answers (``f = \\begin{cases} a & x < 0 \\\\ b & x > 0 \\end{cases}``) read branch by branch.

Why: a ``cases`` block is one answer made of (value, condition) branches; comparing it as text
misses every rewritten branch, and splitting it into list items loses which value holds where. The
comparison itself (each branch's value and condition) is :mod:`.compare`'s; this module only reads.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from .scan import top_level_split, top_level_split_keeping

MAX_BRANCHES = 8
"""A cases block with more rows than this is left to the judge."""

_CASES_RE = re.compile(r'\\begin\s*\{cases\*?\}(.*)\\end\s*\{cases\*?\}', re.S)
_CONDITION_WORDS_RE = re.compile(r'^\s*(?:,|;)?\s*(?:\\(?:text|mbox|textrm|mathrm)\s*\{\s*(?:for|if|when|where)?\s*\}'
                                 r'|\\(?:text|mbox|textrm)\s*\{\s*(?:for|if|when|where)\s+|for\b|if\b|when\b)\s*', re.I)
_TRAILING_PUNCTUATION_RE = re.compile(r'(?:\\[,;!]|[\s,.;])+$')
_LINE_END_RE = re.compile(r'\\\\\s*(?:\[[^\]]*\])?')
_CLOSED_BOUNDARY_RE = re.compile(r'\\(?:leqslant|leq|le)(?![A-Za-z])|<=|\\(?:geqslant|geq|ge)(?![A-Za-z])|>=')


def open_boundary(condition: str) -> str:
    """A branch's condition with its boundary left open (``r \\le R`` reads ``r < R``): which branch
    holds on the boundary itself is a convention physicists do not grade (``r < R`` against
    ``r \\le R``); the side of the boundary still counts (``r < R`` is not ``r > R``)."""
    return _CLOSED_BOUNDARY_RE.sub(lambda m: ' < ' if 'l' in m.group(0) or '<' in m.group(0) else ' > ', condition)


def branches(text: str) -> Optional[Tuple[str, List[Tuple[str, str]]]]:
    """``(lead, [(value, condition), ...])`` of a text holding one ``cases`` block, or None.

    ``lead`` is what precedes the block without its ``=`` and the opening ``\\left\\{`` (``E(r)``);
    a branch without a condition ("otherwise" rows included) has the condition ``''``.
    """
    m = _CASES_RE.search(text)
    if not m or _CASES_RE.search(m.group(1)):
        return None
    lead = text[:m.start()].replace('\\left', '').replace('\\{', '').strip()
    if _LINE_END_RE.sub('', text[m.end():].replace('\\right', '').replace('.', '')).strip():
        return None  # something after the block: not one piecewise value
    if lead.endswith('='):
        lead = lead[:-1].strip()
    elif lead:
        return None
    rows = [re.sub(r'^\s*\[[^\]]*\]', '', r) for r in top_level_split(m.group(1), ('\\\\',)) if r.strip()]
    if not rows or len(rows) > MAX_BRANCHES:
        return None
    out = []
    for row in rows:
        cells = top_level_split(row, ('&',))
        if len(cells) > 2:
            return None
        if len(cells) == 1:
            cells = _inline_condition(row)
        value = _TRAILING_PUNCTUATION_RE.sub('', cells[0]).strip()
        condition = _TRAILING_PUNCTUATION_RE.sub('', _CONDITION_WORDS_RE.sub('', cells[1])).strip() if len(cells) == 2 else ''
        condition = condition.strip('()').strip() if condition.startswith('(') and condition.endswith(')') else condition
        if not value:
            return None
        out.append((value, condition))
    return lead, out


_INEQUALITY_RE = re.compile(r'<|>|\\(?:le|leq|ge|geq|leqslant|geqslant|lt|gt|in)(?![A-Za-z])')


def _inline_condition(row: str) -> List[str]:
    """``[value, condition]`` of a row written without ``&`` (``\\frac{Q}{r^2},\\quad r > R``): the condition is
    the last part after a ``,``/``\\quad`` that states an inequality; ``[row]`` when there is none."""
    row = _TRAILING_PUNCTUATION_RE.sub('', row)
    pieces, separators = top_level_split_keeping(row, (',', '\\quad', '\\qquad'))
    if len(pieces) < 2 or not _INEQUALITY_RE.search(pieces[-1]) or _INEQUALITY_RE.search(''.join(pieces[:-1])):
        return [row]
    value = ''.join(p + s for p, s in zip(pieces[:-2], separators[:-1])) + pieces[-2]
    return [value, pieces[-1]]
