"""The scoring engine: one answer model, one extractor, one comparator; EED and strict/lenient verdicts.

Knows nothing of EvalScope except :mod:`evalscope_phys.scoring.metrics`. The public facade is
:func:`score_answer`; names are imported lazily so ``import evalscope_phys.scoring.answer`` (or a
test of the extractor) does not start the engine.
"""
from typing import Any

__all__ = ['Verdict', 'extract_final_answer', 'score_answer']


def __getattr__(name: str) -> Any:
    if name == 'score_answer':
        from .engine import score_answer
        return score_answer
    if name == 'extract_final_answer':
        from .read.extract import extract_final_answer
        return extract_final_answer
    if name == 'Verdict':
        from .verdict import Verdict
        return Verdict
    raise AttributeError(name)
