"""Unbalanced braces in a located answer: repaired only where the missing brace can go in one place.

Why: a model's ``\\frac{a}{b`` (cut off before its last ``}``) means ``\\frac{a}{b}``: the one unclosed
group holds a single token, so no other closing point exists. ``\\frac{a}{b+c`` could be
``\\frac{a}{b}+c`` or ``\\frac{a}{b+c}``: left as written, the reader reports ``unbalanced_braces``
(the model's failure, ``unparseable_answer``), never a guess.
"""
from __future__ import annotations

import re

from .scan import unclosed_braces

_ONE_TOKEN_RE = re.compile(r"^(?:\\[A-Za-z]+|[A-Za-z]'*|[-+]?\d+(?:\.\d+)?)$")
#: commands whose argument is words or a unit: closing it at the end is the only reading
_TEXT_COMMAND_RE = re.compile(r'\\(?:text|mathrm|textrm|rm|mbox|operatorname)\s*$')


def repair_braces(text: str) -> str:
    """``text`` with its one missing closing brace appended, when that is the only place it can go
    (see the module docstring); otherwise ``text`` unchanged."""
    unclosed = unclosed_braces(text)
    if unclosed is None or len(unclosed) != 1:  # a closing brace too many, or no or several open groups
        return text
    start = unclosed[0]
    content = text[start + 1:].strip()
    if not content:
        return text
    if _ONE_TOKEN_RE.match(content) or (_TEXT_COMMAND_RE.search(text[:start]) and not re.search(r'[{}$\\]', content)):
        return text.rstrip() + '}'
    return text


def close_reference_groups(text: str) -> str:
    """A dataset reference with its missing closing braces appended at the end (``\\sqrt{\\frac{a}{b}``).

    Why: a reference is curated and all answer, so a missing ``}`` is a typo in the dataset, and the
    end is where its author left the group open: every token after the opener was typed inside it.
    A model's answer is never repaired this way (:func:`repair_braces`). A closing brace too many,
    or no missing one, leaves ``text`` unchanged."""
    unclosed = unclosed_braces(text)
    depth = len(unclosed) if unclosed is not None else 0
    return text.rstrip() + '}' * depth if 0 < depth <= 3 else text
