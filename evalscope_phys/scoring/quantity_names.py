"""Whether two left-hand sides name the same quantity: ``T`` and ``N`` do not, ``v_{A}`` and ``v_A`` do.

One home for the name comparison; besides formatting it forgives only the curated aliases of
:mod:`.aliases` (``k_B`` for ``k``, ``m_{K^-}`` for ``m_K``), never a different letter.
"""
from __future__ import annotations

import re

from .aliases import canonical_symbol

_SPACING_RE = re.compile(r'\\[,;:! ]|\\quad|\\qquad|\s+')
_WRAPPER_RE = re.compile(r'\\(?:mathrm|text|textrm|operatorname|rm)\s*\{([^{}]*)\}')
_SINGLE_GROUP_RE = re.compile(r'([_^])\{(\\?[A-Za-z0-9]+|.)\}')
_SIZING_RE = re.compile(r'\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])')


def name_key(name: str) -> str:
    """The name with formatting removed: spacing, ``\\mathrm``/``\\text`` wrappers, braces around a
    one-token sub- or superscript, ``\\left``/``\\right``."""
    key = _SPACING_RE.sub('', name)
    key = _SIZING_RE.sub('', key)
    for _ in range(3):
        unwrapped = _WRAPPER_RE.sub(r'\1', key)
        unwrapped = _SINGLE_GROUP_RE.sub(r'\1\2', unwrapped)
        if unwrapped == key:
            break
        key = unwrapped
    return key


def same_quantity_name(a: str, b: str) -> bool:
    """True when both left-hand sides name the same quantity up to formatting (an empty name matches
    anything: a bare value names no quantity)."""
    if not a or not b:
        return True
    return name_key(a) == name_key(b) or canonical_symbol(a) == canonical_symbol(b)
