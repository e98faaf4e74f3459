"""Multi-part answers for the adapters: one verdict per reference part, and how the pieces were paired.

PHYSICS (Yale) and PHYSICS-Verified problems ask for several results, (a), (b), ..., and models
answer them in one box, in several boxes, or as labelled lines. The pairing itself is the engine's
one multi-part path (:mod:`evalscope_phys.scoring.pairing`, through ``score_answer`` with several
references): the model's labels first, then content, one to one. This module only shapes the
result for an adapter's review (:class:`PartVerdicts`). A single reference part is scored against
the whole response. Everything that reads model text runs in a scoring worker under the engine's
deadline: the answer's budget, once per reference part.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from evalscope_phys.scoring import Verdict, score_answer
from evalscope_phys.scoring.run.limits import ANSWER_DEADLINE
from evalscope_phys.scoring.pairing import MATCHED_BY

__all__ = ['MATCHED_BY', 'PartVerdicts', 'answer_items', 'labelled_answers', 'score_parts']


@dataclass(frozen=True)
class PartVerdicts:
    """One verdict per reference part, and how the response's pieces were matched to the parts."""

    parts: Tuple[Verdict, ...]
    matched_by: str
    """One of :data:`MATCHED_BY`."""
    pieces: Tuple[str, ...] = ()
    """The response's piece(s) each part was compared with ('' for none)."""


def labelled_answers(response: str, count: int) -> List[str]:
    """The response's labelled parts when it labels exactly ``count`` of them, else [] (runs inline)."""
    from evalscope_phys.scoring.read.labels import labelled_parts
    parts = labelled_parts(response)
    return parts if count > 1 and len(parts) == count else []


def answer_items(response: str) -> List[str]:
    """The items of the response's final answer as the pairing stage sees them (runs inline)."""
    from evalscope_phys.scoring.answer import describe
    from evalscope_phys.scoring.pairing import response_pieces
    pieces, _ = response_pieces(response, None) if isinstance(response, str) else ([], {})
    return [describe(p.answer) for p in pieces] if len(pieces) > 1 else []


def score_parts(references: Sequence[str], response: str, *, tolerance: Optional[float] = None,
                eed: bool = False, labels: Sequence[str] = (), timeout: Optional[float] = None,
                question: Optional[str] = None) -> PartVerdicts:
    """One engine verdict per reference part (see the module docstring). Never raises.

    ``question`` is the problem's text, passed to :func:`score_answer` (its definitions and values).
    """
    references = [str(r) for r in references]
    response = response if isinstance(response, str) else ''
    budget = timeout if timeout is not None else ANSWER_DEADLINE * max(1, len(references))
    if len(references) == 1:
        return PartVerdicts((score_answer(references[0], response, tolerance=tolerance, eed=eed, timeout=budget,
                                          question=question),), 'single')
    whole = score_answer(references, response, multiple='ordered', tolerance=tolerance, eed=eed, timeout=budget,
                         labels=labels, question=question)
    if len(whole.parts) != len(references):
        return PartVerdicts((whole,) * len(references), 'whole')
    return PartVerdicts(whole.parts, whole.matched_by or 'content', tuple(p.extracted or '' for p in whole.parts))
