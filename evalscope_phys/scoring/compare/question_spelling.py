"""A reference symbol the question writes in the other letter case: the question's symbol, misspelt.

Why: the question gives "initial velocity ``v_0``" and the reference writes ``V_0^2``; the answer, in the
question's notation, writes ``v_0``. A physicist reads the reference's ``V_0`` as the question's ``v_0``.
Only then, though: the question must write no ``V_0`` of its own and exactly one symbol that differs from
it only in the case of its (Latin) letter, the reference must not write that symbol too, and the answer
must write it and not the reference's spelling, and the question's text must not write the reference's
spelling even outside its formulas (``a mass m`` beside ``$M$``). ``\\Phi`` and ``\\phi`` (Greek) are two letters, never one.
"""
from __future__ import annotations

import re
from typing import Optional, Tuple

import sympy

from ..read.definitions import Givens, question_symbols

_LATIN_BASE_RE = re.compile(r'^[A-Za-z](?=_|$)')


def _other_case(name: str) -> Optional[str]:
    """``V_0`` -> ``v_0``, ``k`` -> ``K``; None for a name not built on one Latin letter."""
    if not _LATIN_BASE_RE.match(name):
        return None
    return name[0].swapcase() + name[1:]


def in_question_text(name: str, question: str) -> bool:
    """Whether the question's text writes the name anywhere, in a formula or not (``mass m``, ``V_0``)."""
    letter, _, script = name.partition('_')
    pattern = r'(?<![A-Za-z\\])' + re.escape(letter) + (r'_?\{?\s*' + re.escape(script) if script else '') + r'(?![A-Za-z])'
    return re.search(pattern, question) is not None


def respelt(reference: sympy.Expr, answer: sympy.Expr, givens: Optional[Givens]) -> Optional[Tuple]:
    """``(reference, answer, names)`` with the reference's misspelt symbols written as the question
    writes them (see the module docstring), or None when none applies."""
    if givens is None or not givens.question:
        return None
    written = question_symbols(givens.question_text)
    ref_names = {s.name: s for s in reference.free_symbols}
    ans_names = {s.name: s for s in answer.free_symbols}
    table, used = {}, []
    for name, symbol in ref_names.items():
        other = _other_case(name)
        if other is None or name in written or name in ans_names or other not in written \
                or other in ref_names or other not in ans_names or in_question_text(name, givens.question_text):
            continue
        table[symbol] = ans_names[other]
        used.append(name)
    if not table:
        return None
    return reference.xreplace(table), answer, tuple(sorted(used))


def names_a_given(reference_name: str, answer_name: str, givens: Optional[Givens]) -> bool:
    """Whether the answer's name is the reference's written in the other case *and* a symbol the question
    writes, the reference's is not: ``T = L/v`` for the time ``t = L/v`` where the question's ``T`` is a
    temperature. Respelling a symbol inside a value reads a misspelt reference; respelling the name asked
    for would read the answer as defining the question's own given, which is another quantity."""
    if givens is None or not givens.question:
        return False
    from .quantity_names import _sympy_name
    ref, ans = _sympy_name(reference_name), _sympy_name(answer_name)
    if not ref or not ans or _other_case(ref) != ans:
        return False
    written = question_symbols(givens.question_text)
    return ans in written and ref not in written

