"""Physics-R1's "strict" accuracy on PhysOlym-A, reproduced so our numbers can sit beside the paper's.

Their judge script (shanyang-me/physics-r1-neurips2026, ``judge/judge_olympiad.py``) counts a reply
strictly correct when one of its ``\\boxed{...}`` contents, normalised, equals the normalised gold or
contains it as a substring. The protocol, as that script implements it:

- **boxes**: every ``\\boxed{`` in the reply, in order, read to its matching ``}`` (braces nest); a
  box left open ends the scan, and the boxes before it are kept. A reply without a box is wrong.
- **normalisation** (of each box and of the gold): ``\\text{X}`` becomes ``X`` (one pass, innermost
  braces not special), all whitespace is removed, then ``$``, ``\\,``, ``\\!`` and ``\\;``, then the text
  is lower-cased.
- **match**: normalised box == normalised gold, or the normalised gold is non-empty and occurs in
  the normalised box. An empty gold is wrong.

It is a string test, not a physics check: ``15 m`` contains ``5m`` and passes for ``5 m``, while
``46.3 kN`` fails for ``46300 N``. When the gold is a whole worked solution, a box almost never
contains it. Use ``strict_acc`` for physics; this column is for comparing with the paper.
"""
from __future__ import annotations

import re
from typing import List, Sequence, Union

BOX_OPEN = '\\boxed{'
_TEXT_RE = re.compile(r'\\text\{([^}]*)\}')
_SPACE_RE = re.compile(r'\s+')
#: removed after whitespace, in this order
_DROPPED = ('$', '\\,', '\\!', '\\;')


def boxed_contents(text: str) -> List[str]:
    """The stripped contents of every ``\\boxed{...}`` in ``text``, in order (see the module docstring)."""
    found: List[str] = []
    start = text.find(BOX_OPEN)
    while start >= 0:
        body = start + len(BOX_OPEN)
        depth, pos = 1, body
        while pos < len(text) and depth:
            depth += {'{': 1, '}': -1}.get(text[pos], 0)
            pos += 1
        if depth:
            break  # an unclosed box: the scan stops here
        found.append(text[body:pos - 1].strip())
        start = text.find(BOX_OPEN, pos)
    return found


def normalise(text: str) -> str:
    """Physics-R1's normalisation: unwrap ``\\text{}``, drop whitespace, ``$`` and thin spaces, lower-case."""
    text = _SPACE_RE.sub('', _TEXT_RE.sub(r'\1', text))
    for mark in _DROPPED:
        text = text.replace(mark, '')
    return text.lower()


def box_matches(boxes: Sequence[str], gold: str) -> bool:
    """True when a box equals the gold or contains it, both normalised."""
    target = normalise(gold)
    return any(normalise(box) == target or (target and target in normalise(box)) for box in boxes)


def substring_strict(response: str, gold: Union[str, Sequence[str], None]) -> bool:
    """Physics-R1's strict verdict for one reply; a list gold (our schema's several answers) needs every part."""
    golds = [gold] if isinstance(gold, str) or gold is None else list(gold)
    boxes = boxed_contents(response or '')
    return bool(boxes) and bool(golds) and all(bool(g) and box_matches(boxes, g) for g in golds)
