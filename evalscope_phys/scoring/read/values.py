"""One value: a tuple, interval, set or ratio, the two branches of ``\\pm``, or an expression with its unit.

Also yes/no and option-letter answers, read only when the dataset's answer type says so.
"""
from __future__ import annotations

import re
from typing import Optional

from . import reading
from . import relations
from ..answer import Alternatives, Answer, Choice, Collection, Definition, Empty, Interval, Truth, Unreadable, Value
from .scan import strip_trailing, top_level_split
from .trailing_units import split_unit
from .words import words_of

_CHOICE_LETTERS = 'ABCDEFGHIJ'


TRUE_WORDS = frozenset({'yes', 'true', 'correct', 'right', 't', 'y', '是', '对', '正确', '会', '能', '可以', '成立'})


FALSE_WORDS = frozenset({'no', 'false', 'incorrect', 'wrong', 'f', 'n', '否', '不', '错', '错误', '不会', '不能',
                         '不对', '不是', '不成立', 'not'})


def read_value(text: str, expected: Optional[str], depth: int) -> Answer:
    """A trimmed piece (:func:`.relations.trim`) as a value: a tuple, interval, set or ratio, ``\\pm``
    branches, or an expression with its unit."""
    if not text:
        return Empty()
    if text.startswith('\\begin') or text.startswith('\\left'):
        rows = reading.environment_rows(text)
        if isinstance(rows, (Collection, Unreadable)):
            return rows  # a matrix (or a determinant) as the value
    bracketed = _bracketed(text, expected, depth)
    if bracketed is not None:
        return bracketed
    label = _LABEL_COLON_RE.match(text)
    if label and (label.group(2) or label.group(3)) and not (label.group(2) and label.group(3)):
        # \mbox{B} : {}^2P_{1/2}, \text{C: } {}^3P_0
        value = read_value(relations.trim(text[label.end():]), expected, depth + 1)
        if isinstance(value, Value):
            return Definition('\\text{%s}' % label.group(1), value)
    ratio = [p for p in top_level_split(text, (':',)) if p.strip()]
    if len(ratio) > 1 and ':=' not in text:
        return Collection('ratio', tuple(read_value(relations.trim(p), None, depth + 1)
                                         for p in ratio[:reading.MAX_ITEMS]))
    if re.search(r'\\pm(?![A-Za-z])|\\mp(?![A-Za-z])', text):
        return _plus_minus(text, expected, depth)
    value, unit = split_unit(text)
    if unit and _PRESCRIPT_END_RE.search(value):
        value, unit = text, None  # {}^{14}\mathrm{N}: the isotope's letter, not newtons
    return Value(strip_trailing(value), unit)


_PRESCRIPT_END_RE = re.compile(r'\{\s*\}\s*\^\s*(?:\{[^{}]*\}|\w)\s*$')


#: ``\\text{H: }``, ``\\mbox{B} :``: an upright short name and one colon label the value after it (an element, a
#: state, a case); a colon between two values (``3 : 2``) is a ratio
_LABEL_COLON_RE = re.compile(r'^\\(?:text|mbox|textrm|mathrm)\s*\{\s*([A-Za-z][A-Za-z0-9]{0,11})\s*(:?)\s*\}\s*(:?)\s*(?=\S)')


def _bracketed(text: str, expected: Optional[str], depth: int) -> Optional[Answer]:
    """``(a, b)`` tuple, ``[a, b)`` interval (unions with ``\\cup``), ``\\{a, b\\}`` set, or None."""
    plain = re.sub(r'\\(left|right|big|Big|bigl|bigr|Bigl|Bigr)(?![A-Za-z])\s*', '', text).strip()
    plain = plain.replace('\\lbrack', '[').replace('\\rbrack', ']')
    if plain.startswith('\\{') or plain.startswith('\\lbrace'):
        opener = 2 if plain.startswith('\\{') else 7
        closer = '\\}' if plain.endswith('\\}') else '\\rbrace' if plain.endswith('\\rbrace') else None
        inner_end = plain.rfind(closer) if closer else -1
        if inner_end > 0 and not top_level_split(plain[opener:inner_end], ('\\}',))[1:]:
            items = [i for i in top_level_split(plain[opener:inner_end], (',', ';')) if i.strip()]
            return Collection('set', tuple(relations.read_item(relations.trim(i), None, depth + 1)
                                           for i in items[:reading.MAX_ITEMS]))
        return None
    pieces = [p.strip() for p in top_level_split(plain, ('\\cup',))]
    intervals = []
    for piece in pieces:
        if len(piece) < 3 or piece[0] not in '([' or piece[-1] not in ')]':
            return None
        if _group_end(piece) != len(piece):
            return None
        ends = top_level_split(piece[1:-1], (',',))
        if len(pieces) == 1 and piece[0] == '(' and piece[-1] == ')' and expected != 'IN':
            if len(ends) < 2:
                return None
            return Collection('tuple', tuple(relations.read_item(relations.trim(e), None, depth + 1)
                                             for e in ends[:reading.MAX_ITEMS]))
        if len(ends) != 2 or not all(e.strip() for e in ends):
            return None
        intervals.append((piece[0] == '[', read_value(relations.trim(ends[0]), None, depth + 1),
                          read_value(relations.trim(ends[1]), None, depth + 1),
                          piece[-1] == ']'))
    if len(pieces) == 1 and plain[0] == '[' and plain[-1] == ']' and expected not in ('IN',):
        ends = top_level_split(plain[1:-1], (',',))
        if len(ends) != 2:
            return Collection('tuple', tuple(relations.read_item(relations.trim(e), None, depth + 1)
                                             for e in ends[:reading.MAX_ITEMS]))
    return Interval(tuple(intervals)) if intervals else None


def _group_end(text: str) -> int:
    """End of the bracket group that opens ``text``, treating ``(`` and ``[`` alike (``[a, b)``)."""
    depth = 0
    for j, c in enumerate(text):
        if c in '([':
            depth += 1
        elif c in ')]':
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def _plus_minus(text: str, expected: Optional[str], depth: int) -> Answer:
    """``a \\pm b`` -> the set of both values (signs of several ``\\pm`` move together, ``\\mp`` opposite)."""
    def branch(sign: int) -> str:
        def swap(m: 're.Match[str]') -> str:
            plus = (m.group(0) == '\\pm') == (sign > 0)
            return ' + ' if plus else ' - '
        return re.sub(r'\\pm(?![A-Za-z])|\\mp(?![A-Za-z])', swap, text)
    options = []
    for sign in (1, -1):
        value, unit = split_unit(branch(sign).strip())
        value = re.sub(r'^\s*\+\s*', '', value)
        options.append(Value(strip_trailing(value), unit))
    return Alternatives(tuple(options), 'pm')


def read_truth(text: str) -> Answer:
    words = words_of(text).split()
    if not words:
        return Unreadable('not_yes_no', text)
    first = words[0]
    if first in TRUE_WORDS:
        return Truth(True)
    if first in FALSE_WORDS:
        return Truth(False)
    for word in sorted(FALSE_WORDS | TRUE_WORDS, key=len, reverse=True):
        if not word.isascii() and first.startswith(word):
            return Truth(word in TRUE_WORDS)
    return Unreadable('not_yes_no', text)


def read_choice(text: str) -> Answer:
    plain = words_of(text).upper()
    plain = re.sub(r'\b(OPTIONS?|CHOICES?|ANSWER|AND|OR|IS|THE)\b|选项|答案|和|或', ' ', plain)
    tokens = plain.split()
    if tokens and all(re.fullmatch(f'[{_CHOICE_LETTERS}]+', t) for t in tokens):
        letters = ''.join(tokens)
        if len(set(letters)) == len(letters):
            return Choice(frozenset(letters))
    m = re.match(rf'\s*\(?([{_CHOICE_LETTERS}])(\)|\.|:|\s|$)', re.sub(r'\\text\s*\{|[{}$]', '', text.upper()))
    return Choice(frozenset(m.group(1))) if m else Unreadable('no_option_letter', text)
