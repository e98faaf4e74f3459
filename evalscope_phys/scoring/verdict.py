"""The result of scoring one answer."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Dict, Optional

#: Reasons for which the answer could not be scored at all (never reported as 0).
UNSCORED_REASONS = frozenset({
    'timeout', 'worker_crashed', 'error', 'input_too_large', 'unparseable_reference',
})

#: Every reason a verdict can carry, with what it means.
REASONS = {
    'equivalent': 'symbolically equal to the reference',
    'equivalent_numerically': 'equal to the reference at every random spot-check point',
    'numeric_match': 'numbers equal within relative 1e-6',
    'unit_converted': 'equal after converting the answer into the reference unit',
    'missing_unit': 'the answer has no unit but matches in the reference unit (lenient only)',
    'within_tolerance': 'not equal, but within the lenient tolerance (lenient only)',
    'not_equivalent': 'a different value or expression',
    'dimension_mismatch': 'the answer unit has other dimensions than the reference unit',
    'count_mismatch': 'a different number of answers than the reference has',
    'no_answer': 'no final answer found in the response',
    'unparseable_answer': 'the answer is not a mathematical expression we can read',
    'unparseable_reference': 'the reference could not be read (unscored)',
    'input_too_large': 'a size or nesting pre-check refused the input (unscored)',
    'timeout': 'the hard per-answer deadline fired (unscored)',
    'worker_crashed': 'the scoring worker died (unscored)',
    'error': 'an unexpected internal error (unscored)',
}


@dataclass(frozen=True)
class Verdict:
    """How one answer scored against its reference."""

    eed: Optional[float]
    """PHYBench EED score 0-100 (None when unscored or EED was not requested)."""
    strict: Optional[bool]
    """Symbolically equivalent, or numerically equal within 1e-6 after unit conversion."""
    lenient: Optional[bool]
    """Equal within the lenient tolerance (1e-2 or the record's own), units converted."""
    reason: str
    """Short machine-readable reason, one of :data:`REASONS`."""
    extracted: Optional[str]
    """The answer as extracted from the response (value and unit), None when nothing was found."""
    seconds: float
    """Wall time this call took (a cached result costs ~0)."""
    detail: str = ''
    """Free-text detail for humans (parse error, limit that fired); not for parsing."""

    @property
    def scored(self) -> bool:
        """False when the answer could not be scored (timeout, limits, unreadable reference)."""
        return self.reason not in UNSCORED_REASONS

    def to_dict(self) -> Dict[str, Any]:
        data = asdict(self)
        data['scored'] = self.scored
        return data
