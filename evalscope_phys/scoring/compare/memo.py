"""Comparisons remembered within one scoring job.

Why: one job asks the same question several times -- the pairing table compares every part with
every piece, a definition's equation route compares the values that its value route compares again,
and the final verdict repeats what the table found. Every comparison is a pure function of its
(reference, answer, options), all frozen and hashable, so the first outcome is the answer to every
repeat. The memory lives only as long as the job (:func:`remembering`), so it is bounded by the
job's own size, and it is per thread (a :class:`~contextvars.ContextVar`): EvalScope's worker
threads never share one.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Dict, Iterator, Optional, Tuple

from .outcome import Outcome

_memo: ContextVar[Optional[Dict[Tuple, Outcome]]] = ContextVar('evalscope_phys_comparisons', default=None)


@contextmanager
def remembering() -> Iterator[None]:
    """Within the block, :func:`remembered` computes each distinct comparison once."""
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)


def remembered(compare: Callable[..., Outcome], *key) -> Outcome:
    """``compare(*key)``, or its outcome for the same ``key`` earlier in the job. An exception is not
    remembered (the next call raises it again); outside :func:`remembering` nothing is."""
    memo = _memo.get()
    if memo is None:
        return compare(*key)
    full = (compare, *key)
    try:
        return memo[full]
    except KeyError:
        pass
    except TypeError:  # an unhashable part: compared every time
        return compare(*key)
    outcome = compare(*key)
    memo[full] = outcome
    return outcome
