"""An unboxed response that ends in labelled parts (``(a) ... $x = 1$. (b) ... $y = 2$``): each label's
final formula is that label's answer, so part (a) is not lost to "the last formula of the response".

Only used when the response has no box (a box is the model's own choice of answer). The result is one
text, ``(a) x = 1 \\\\ (b) y = 2``, that :func:`.labels.labelled_groups` splits by label like a boxed one;
a label whose text holds no formula is kept empty (no answer for that part, never a neighbour's).
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from .scan import math_spans

TAIL_WINDOW = 6000
"""Characters at the end of the response searched for the labelled block (a summary, not the derivation)."""

_LABEL_RE = re.compile(
    r'(?:^|(?<=\n)|(?<=[.;!?]\s)|(?<=[.;!?]\s\s))[ \t>*•\-]*(?:\*\*|__)?\s*'
    r'(?:(?:Part|Stage)\s+)?\((?P<key>[a-h]|i{1,3}|iv|v|vi{0,3}|[1-8])\)\s*(?:\*\*|__)?\s*[:.]?')
_ROMAN = ('i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii', 'viii')
_JOIN_GAP_RE = re.compile(r'[\s,;]*(?:(?:and|or|for|with|where)\s*)?[\s,;]*')
"""What may stand between two formulas of one answer: ``$T = ...$, $n \\in \\mathbb{Z}$``, ``$x = 1$ or $x = 2$``."""


def labelled_tail(text: str) -> Optional[str]:
    """``(a) formula \\\\ (b) formula`` when ``text`` ends in two or more labelled parts written in order
    from the first (``(a)``, ``(i)``, ``(1)``), else None."""
    start = max(0, len(text) - TAIL_WINDOW)
    tail = text[start:]
    spans = math_spans(tail)
    inside = [(a - 2, b + 2) for _, a, b in spans]
    labels = [m for m in _LABEL_RE.finditer(tail)
              if not any(a <= m.start('key') < b for a, b in inside)]
    block = _last_run(labels) if spans else None  # bare LaTeX (a reference, a box's content): read as written
    if block is None:
        return None
    answers = [_final_formula(tail, m.end(), block[index + 1].start() if index + 1 < len(block) else len(tail), spans)
               for index, m in enumerate(block)]
    if not any(answers):
        return None
    return ' \\\\ '.join('(%s) %s' % (m.group('key'), answer) for m, answer in zip(block, answers))


def _order(key: str, kind: str) -> int:
    if kind == 'roman':
        return _ROMAN.index(key) if key in _ROMAN else -1
    if kind == 'digit':
        return int(key) - 1 if key.isdigit() else -1
    return ord(key) - ord('a') if key.isalpha() and len(key) == 1 else -1


def _last_run(labels: List[re.Match]) -> Optional[List[re.Match]]:
    """The last labels (a), (b), ... in order that end the text, each once; None for fewer than two."""
    for first in range(len(labels) - 1, -1, -1):
        key = labels[first].group('key')
        kind = 'roman' if key == 'i' else 'digit' if key.isdigit() else 'letter'
        if _order(key, kind) != 0:
            continue
        run = labels[first:]
        if len(run) >= 2 and [_order(m.group('key'), kind) for m in run] == list(range(len(run))):
            return run
        return None
    return None


def _final_formula(text: str, begin: int, end: int, spans: List[Tuple[str, int, int]]) -> str:
    """The label's answer: its last formula, with the formulas joined to it by only a comma or ``or``
    (a condition, a hedge). When the label states a number in words after its last formula (``... $v^2 =
    2gh$, so the speed is 5 m/s``: the formula was a step) or holds no formula, its last sentence that
    states a number; '' for prose alone."""
    own = [(a, b) for _, a, b in spans if a >= begin and b <= end]
    after = re.sub(r'^(\$\$|\$|\\\]|\\\))', '', text[own[-1][1]:end]) if own else text[begin:end]
    if not own or (re.search(r'\d', after) and re.search(r'[A-Za-z]{2,}\W+[A-Za-z]{2,}', after)):
        return _stated_number(after)
    chosen = [own[-1]]
    joins = []
    for a, b in reversed(own[:-1]):
        gap = re.sub(r'^(\$\$|\$|\\\]|\\\))|(\$\$|\$|\\\[|\\\()$', '', text[b:chosen[0][0]])
        if len(gap) > 12 or not _JOIN_GAP_RE.fullmatch(gap):
            break
        chosen.insert(0, (a, b))
        joins.insert(0, ' \\text{ or } ' if re.search(r'\bor\b', gap) else ', ')
    from .locate import _unit_after
    out = text[chosen[0][0]:chosen[0][1]].strip()
    for join, (a, b) in zip(joins, chosen[1:]):
        out += join + text[a:b].strip()
    return out + _unit_after(out, text[:end], own[-1][1])


def _stated_number(prose: str) -> str:
    """The last sentence of ``prose`` that states a number, read by the sentence reader; '' for none."""
    sentences = [x for x in re.split(r'(?<=[.!?])\s+', prose.strip()) if re.search(r'\d', x)]
    if not sentences or '$' in sentences[-1] or '\\' in sentences[-1]:
        return ''
    return sentences[-1].strip()
