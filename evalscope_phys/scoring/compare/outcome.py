"""What a comparison returns, and the options it takes: the comparator's small shared vocabulary."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Tuple

from ..read.definitions import Givens


STRICT_RTOL = 1e-6
"""Numbers (after unit conversion) closer than this, relatively, are the same answer."""
LENIENT_RTOL = 1e-2
"""Default relative tolerance of the lenient verdict."""


class ReferenceUnreadable(Exception):
    """The reference cannot be read: the answer is unscored (reason ``unparseable_reference``)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(frozen=True)
class Options:
    """How to compare: the record's tolerance, a unit given apart, list order, whether to compute EED,
    and what the problem and the answer define (:mod:`.definitions`; None: no question given)."""

    tolerance: Optional[float] = None
    unit: str = ''
    ordered: bool = False
    eed: bool = True
    givens: Optional[Givens] = None

    @property
    def rtol(self) -> float:
        return LENIENT_RTOL if self.tolerance is None else max(float(self.tolerance), STRICT_RTOL)


@dataclass(frozen=True)
class Outcome:
    """The verdict on one (reference, answer) pair; ``parts`` holds the per-reference outcomes of a list."""

    strict: bool
    lenient: bool
    reason: str
    eed: Optional[float] = None
    """The edit distance score; inside a comparison it may still be a :class:`~.pending_eed.PendingEed`,
    which :func:`~.answers.compare` settles (a number, or None when no EED is asked)."""
    detail: str = ''
    error: Optional[float] = None
    parts: Tuple['Outcome', ...] = ()
    answer: str = ''
    """The answer part this outcome judged (for the parts of a list)."""


def rejected(reason: str, detail: str = '', eed: Optional[float] = 0.0) -> Outcome:
    return Outcome(False, False, reason, eed, detail)


def accepted(reason: str, detail: str = '', error: float = 0.0) -> Outcome:
    return Outcome(True, True, reason, 100.0, detail, error)


UNDECIDED = 'undecided'


UNSUPPORTED_STRUCTURES = frozenset({'piecewise', 'determinant', 'relation_chain'})


"""Structures the extractor recognises but the comparator does not represent: undecided, not wrong."""


def strict_if_readable(compare: Callable[[], Outcome]) -> bool:
    """Whether a probing comparison (is this the same value written as a limit?) is strict; False when the
    reference cannot be read for it: a probe must not turn a verdict the rules reach without reading the
    reference's sides (``\\to`` for ``=``: a different relation) into an unscored one."""
    try:
        return bool(compare().strict)
    except ReferenceUnreadable:
        return False
