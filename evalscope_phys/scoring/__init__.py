"""The scoring engine: final-answer extraction, LaTeX -> SymPy, EED, strict/lenient verdicts.

Knows nothing of EvalScope except :mod:`evalscope_phys.scoring.metrics`.
"""
from evalscope_phys.scoring.engine import score_answer
from evalscope_phys.scoring.extract import extract_final_answer
from evalscope_phys.scoring.verdict import Verdict

__all__ = ['Verdict', 'extract_final_answer', 'score_answer']
