"""The engine's answer-type codes and the words datasets label answers with: one home for both.

``score_answer(answer_type=...)`` takes the codes; UGPhysics and OlympiadBench label answers with
codes or words (``'Numerical'``, ``'true/false'``), CMPhysBench with its own type names.
"""
from __future__ import annotations

import re
from typing import Optional

TYPE_NAMES = {
    'NV': 'numeric', 'EX': 'expression', 'EQ': 'equation', 'IN': 'interval',
    'TF': 'true_false', 'MC': 'multiple_choice',
}
"""The codes ``score_answer`` reads, and what each means."""
ANSWER_TYPES = tuple(TYPE_NAMES)
TYPE_ALIASES = {
    'numerical': 'NV', 'numeric': 'NV', 'number': 'NV', 'expression': 'EX', 'tuple': 'EX',
    'equation': 'EQ', 'interval': 'IN', 'true/false': 'TF', 'truefalse': 'TF', 'boolean': 'TF',
    'multiplechoice': 'MC', 'choice': 'MC',
}
"""A dataset's word for a type (lower case, without spaces, ``_`` or ``-``) -> its code."""


def type_code(item: str) -> Optional[str]:
    """``'NV'``, ``'Numerical'``, ``'true/false'`` -> the code; None for a word that names no type."""
    word = item.strip().strip('.').strip()
    if word.upper() in TYPE_NAMES:
        return word.upper()
    return TYPE_ALIASES.get(re.sub(r'[\s_-]+', '', word.lower()))
