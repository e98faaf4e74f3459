"""Multi-part answers: which piece of a response answers which reference part, one verdict per part.

PHYSICS (Yale) and PHYSICS-Verified problems ask for several results, (a), (b), ..., and models
answer them in one box, in several boxes, or as labelled lines. The pieces are found, in this order:

1. **labelled**: the response labels exactly as many parts as the reference has
   (``extract.labelled_parts``: ``(a) ... (b) ...``, ``\\text{(i)}``, aligned rows), so piece ``i``
   answers part ``i`` and each pair is scored on its own;
2. **ordered**: otherwise the reference parts are scored as an ordered list against the response
   (``score_answer(references, response, multiple='ordered')``: boxes or list items in order,
   a missing piece is ``no_answer``);
3. **items**: when that fails as a whole (one unreadable reference part makes the list unscored),
   the final answer's items as the engine reads them, when there are exactly as many, pair up in order.
   Otherwise every part carries the whole verdict.

A single reference part is scored against the whole response. Splitting reads model text, so it
runs in a scoring worker under the engine's deadline, like every other reading of model output.
``scripts/bench_scoring.py yale`` uses :func:`labelled_answers` for the same alignment.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from evalscope_phys.scoring import Verdict, score_answer
from evalscope_phys.scoring.run import pool

MATCHED_BY = ('single', 'labelled', 'ordered', 'items', 'whole')
SPLIT_TIMEOUT = 5.0
"""Seconds for finding the labelled parts and items of one response (linear-time string work)."""


@dataclass(frozen=True)
class PartVerdicts:
    """One verdict per reference part, and how the response's pieces were matched to the parts."""

    parts: Tuple[Verdict, ...]
    matched_by: str
    """One of :data:`MATCHED_BY`."""
    pieces: Tuple[str, ...] = ()
    """The response's piece for each part when matched piece by piece (labelled, items)."""


def labelled_answers(response: str, count: int) -> List[str]:
    """The response's labelled parts when it labels exactly ``count`` of them, else [] (runs inline)."""
    from evalscope_phys.scoring.extract import labelled_parts
    parts = labelled_parts(response)
    return parts if count > 1 and len(parts) == count else []


def answer_items(response: str) -> List[str]:
    """The items of the response's final answer as the engine reads them (list items, several boxes)."""
    from evalscope_phys.scoring.answer import Collection, describe
    from evalscope_phys.scoring.extract import extract_answer
    read = extract_answer(response).answer
    if isinstance(read, Collection) and read.kind in ('list', 'boxes'):
        return [describe(item) for item in read.items]
    return []


def _split_job(response: str, count: int) -> dict:
    return {'labelled': labelled_answers(response, count), 'items': answer_items(response)}


def score_parts(references: Sequence[str], response: str, *, tolerance: Optional[float] = None,
                eed: bool = False, timeout: float = SPLIT_TIMEOUT, question: Optional[str] = None) -> PartVerdicts:
    """One engine verdict per reference part (see the module docstring). Never raises.

    ``question`` is the problem's text, passed to :func:`score_answer` (its definitions and values).
    """
    references = [str(r) for r in references]
    response = response if isinstance(response, str) else ''
    if len(references) == 1:
        return PartVerdicts((score_answer(references[0], response, tolerance=tolerance, eed=eed, timeout=timeout,
                                          question=question),),
                            'single')
    split = pool.run_limited(_split_job, response, len(references), timeout=timeout)
    if not split.ok:
        reason = split.reason or 'error'
        failed = Verdict(eed=None, strict=None, lenient=None, reason='error' if reason.startswith('error') else reason,
                         extracted=None, seconds=split.seconds, detail=f'splitting the response: {reason}')
        return PartVerdicts((failed,) * len(references), 'whole')
    labelled, items = split.value['labelled'], split.value['items']
    if labelled:
        return _pairwise(references, labelled, 'labelled', tolerance, eed, timeout, question)
    whole = score_answer(references, response, multiple='ordered', tolerance=tolerance, eed=eed, timeout=timeout,
                         question=question)
    if whole.parts and len(whole.parts) == len(references):
        return PartVerdicts(tuple(whole.parts), 'ordered')
    if not whole.scored and len(items) == len(references):
        return _pairwise(references, items, 'items', tolerance, eed, timeout, question)
    return PartVerdicts((whole,) * len(references), 'whole')


def _pairwise(references: Sequence[str], pieces: Sequence[str], matched_by: str, tolerance: Optional[float],
              eed: bool, timeout: float, question: Optional[str] = None) -> PartVerdicts:
    verdicts = tuple(score_answer(ref, piece, tolerance=tolerance, eed=eed, timeout=timeout, question=question)
                     for ref, piece in zip(references, pieces))
    return PartVerdicts(verdicts, matched_by, tuple(pieces))
