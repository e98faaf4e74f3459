"""Two relation chains of the same shape (``\\Delta S = C_p(\\ldots) > 0``), compared link by link.

A chain that mixes relations (``=`` then ``>``) is one the reader refuses as a whole (it states a
value *and* a bound); when reference and answer are chains of the same relations in the same order,
each member is compared with the member in its place: all equal, the same chain; in a chain of three
members one read and different, another chain (``\\Delta S = A > 0`` is not ``\\Delta S = B > 0`` when
``A`` is not ``B``); a longer chain with another step (``x = a = 5 > 0`` for ``x = b = 5 > 0``), another
name first, or a member the engine cannot decide stays undecided.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from . import answers
from .outcome import Options, Outcome, ReferenceUnreadable, UNDECIDED, accepted, rejected
from .quantity_names import same_quantity_name
from ..read.reading import read_answer
from ..read.relations import is_name, relation_links

EQUALITY_LIKE = frozenset({'=', 'approx'})
"""Links that state the same result (``=`` and ``\\approx`` between the same members)."""


def _shape(kinds: List[Tuple[str, bool]]) -> Tuple[Tuple[str, bool], ...]:
    return tuple(('=', False) if kind in EQUALITY_LIKE else (kind, flipped) for kind, flipped in kinds)


def compare_chains(reference: str, answer: str, options: Options) -> Optional[Outcome]:
    """The verdict of two chains of one shape, member by member; None when the shapes differ or a
    member is undecided (then the chain is for the judge)."""
    ref_members, ref_kinds = relation_links(reference)
    ans_members, ans_kinds = relation_links(answer)
    if len(ref_kinds) < 2 or _shape(ref_kinds) != _shape(ans_kinds) or len(ref_members) != len(ans_members) \
            or not all(m.strip() for m in ref_members + ans_members):
        return None
    different = False
    for k, (ref_member, ans_member) in enumerate(zip(ref_members, ans_members)):
        if k == 0 and is_name(ref_member) and is_name(ans_member):
            if not same_quantity_name(ref_member, ans_member):
                return None  # another quantity named first: the names are for the judge
            continue
        try:
            outcome = answers.compared(read_answer(ref_member), read_answer(ans_member), options)
        except ReferenceUnreadable:
            return None
        if outcome.strict:
            continue
        if outcome.reason == UNDECIDED or outcome.lenient or outcome.reason in ('unparseable_answer', 'unknown_unit'):
            return None
        different = True
    if different:  # X = A > 0 against X = B > 0: another result; in a longer chain a step may differ
        return rejected('not_equivalent', 'a chain with another member') if len(ref_members) == 3 else None
    return accepted('equivalent', 'the same chain, member by member')
