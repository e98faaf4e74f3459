"""Two index ranges (:mod:`~..read.index_range`), and an answer's index letter spelt as the reference's.

Why: ``n = 0, 1, 2, \\ldots`` is one claim, "n runs over these integers". Two ranges say the same when
they name the same set over the same letter; another set is another claim (``0, 1, \\ldots`` is not
``1, 2, \\ldots``). Another letter over the same set (``m = 0, \\pm 1, \\ldots`` for ``k = 0, \\pm 1,
\\ldots``) is a naming question the engine leaves to the judge: :func:`renamed` spells the answer's
letter as the reference's only to tell whether the rest then agrees (``undecided``, never accepted).
"""
from __future__ import annotations

import re
from dataclasses import fields, is_dataclass, replace
from typing import Optional

from ..answer import Answer, Definition, Relation, Value
from ..read.index_range import is_range
from .aliases import canonical_symbol
from .outcome import UNDECIDED, Outcome, accepted, rejected


def compare_ranges(reference: Answer, answer: Answer) -> Outcome:
    """An index range against an answer item (either side a range)."""
    if not (is_range(reference) and is_range(answer)):
        return rejected('not_equivalent', 'an index range for a value' if is_range(answer)
                        else 'a value for an index range')
    if reference.right != answer.right:
        return rejected('not_equivalent', 'a different index range')
    if not same_index(reference, answer):
        return rejected(UNDECIDED, f'{answer.left.latex} for {reference.left.latex}: the index named differently',
                        eed=None)
    return accepted('equivalent', 'the same index range')


def same_index(reference: Relation, answer: Relation) -> bool:
    return canonical_symbol(reference.left.latex) == canonical_symbol(answer.left.latex)


def renamed(answer: Answer, old: str, new: str) -> Optional[Answer]:
    """``answer`` with the single letter ``old`` written ``new`` everywhere, or None when ``new`` is
    already one of its letters (the two would merge) or either is not one plain letter."""
    if not (re.fullmatch(r'[A-Za-z]', old) and re.fullmatch(r'[A-Za-z]', new)):
        return None
    if _letter(new).search(_texts(answer)):
        return None
    return _mapped(answer, lambda text: _letter(old).sub(new, text))


def _letter(letter: str) -> 're.Pattern[str]':
    return re.compile(rf'(?<![\\A-Za-z]){letter}(?![A-Za-z])')


def _texts(answer: Answer) -> str:
    found = []
    _mapped(answer, lambda text: found.append(text) or text)
    return ' '.join(found)


def _mapped(answer, fn):
    """``answer`` with ``fn`` applied to every value's LaTeX and every definition's name."""
    if isinstance(answer, Value):
        return replace(answer, latex=fn(answer.latex))
    if not is_dataclass(answer):
        return answer
    changes = {}
    for f in fields(answer):
        value = getattr(answer, f.name)
        if isinstance(answer, Definition) and f.name == 'name':
            changes['name'] = fn(value)
        elif is_dataclass(value):
            changes[f.name] = _mapped(value, fn)
        elif isinstance(value, tuple) and any(is_dataclass(v) for v in value):
            changes[f.name] = tuple(_mapped(v, fn) if is_dataclass(v) else v for v in value)
    return replace(answer, **changes) if changes else answer
