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
_BOLD_RE = re.compile(r'\\(?:mathbf|boldsymbol|bm|vec)\s*\{([^{}]*)\}|\\(?:rm|bf)(?![A-Za-z])|&')
_ARGUMENTS_RE = re.compile(r'\((?:[^()]|\([^()]*\))*\)$')
_PRIME_RE = re.compile(r"([_^](?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9]))('+)")


def name_key(name: str) -> str:
    """The name with formatting removed: spacing, ``\\mathrm``/``\\text``/bold wrappers, alignment ``&``,
    braces around a one-token sub- or superscript, ``\\left``/``\\right``, where a prime stands."""
    key = _BOLD_RE.sub(lambda m: m.group(1) or '', name)
    key = _SIZING_RE.sub('', _SPACING_RE.sub('', key))
    key = _PRIME_RE.sub(r'\2\1', key)  # p_\phi' is p'_\phi
    for _ in range(3):
        unwrapped = _WRAPPER_RE.sub(r'\1', key)
        unwrapped = _SINGLE_GROUP_RE.sub(r'\1\2', unwrapped)
        if unwrapped == key:
            break
        key = unwrapped
    return key


def same_quantity_name(a: str, b: str) -> bool:
    """True when both left-hand sides name the same quantity up to formatting, or one is the other
    written with its arguments (an empty name matches anything: a bare value names no quantity)."""
    if not a or not b:
        return True
    key_a, key_b = name_key(a), name_key(b)
    if key_a == key_b or canonical_symbol(a) == canonical_symbol(b):
        return True
    bare_a, bare_b = _ARGUMENTS_RE.sub('', key_a), _ARGUMENTS_RE.sub('', key_b)
    # D(r) is the field D written as a function; P(s_x) and P(s_z) are two quantities
    return bool(bare_a) and bare_a == bare_b and (bare_a == key_a or bare_b == key_b)


def same_family(a: str, b: str) -> bool:
    """True when two different names are one symbol with different numbered subscripts (``\\omega_1``
    and ``\\omega_3``): a third frequency beside the two asked is a candidate answer, not commentary.
    Lettered subscripts name other quantities (``\\beta_c`` beside ``\\beta_0``: the centre of mass's)."""
    key_a, key_b = name_key(a), name_key(b)
    if key_a == key_b:
        return False
    base_a, _, sub_a = key_a.partition('_')
    base_b, _, sub_b = key_b.partition('_')
    return bool(base_a) and base_a == base_b and sub_a.isdigit() and sub_b.isdigit()
