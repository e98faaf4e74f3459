"""The result of scoring one answer, and what each reason means."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Dict, Optional, Tuple

#: Reasons for which the answer could not be scored at all: our failures and the reference's
#: (never reported as 0).
UNSCORED_REASONS = frozenset({
    'timeout', 'worker_crashed', 'error', 'input_too_large', 'unparseable_reference',
})

#: Reasons meaning "the rules cannot decide": wrong without a judge, and what a judge is for.
UNDECIDED_REASONS = frozenset({'undecided', 'unknown_unit'})

#: Every reason a verdict can carry, with what it means.
REASONS = {
    'equivalent': 'symbolically equal to the reference',
    'equivalent_numerically': 'equal to the reference at every sample point (no cheap symbolic proof)',
    'numeric_match': 'numbers equal within relative 1e-6',
    'unit_converted': 'equal after converting the answer into the reference unit',
    'missing_unit': 'the answer has no unit but matches in the reference unit (lenient only)',
    'extra_unit': 'the answer has a unit the reference does not state; the number matches (lenient only)',
    'within_tolerance': 'not equal, but within the lenient tolerance (lenient only)',
    'not_equivalent': 'a different value, expression or relation',
    'dimension_mismatch': 'the answer unit has other dimensions than the reference unit',
    'count_mismatch': 'a different number of answers (or of \\pm branches) than the reference has',
    'hedged': 'several alternative answers offered for one reference answer',
    'no_answer': 'no final answer found in the response',
    'unparseable_answer': 'the answer is not a mathematical expression we can read (the model\'s failure)',
    'answer_too_large': 'the answer is over the size or nesting limits (the model\'s failure)',
    'undefined_value': 'the answer is an undefined value such as x/0',
    'undecided': 'the engine cannot represent what one side means (a derivative, a cross product, '
                 'words, ...); wrong unless a judge decides',
    'unknown_unit': 'a unit the engine does not know, different from the other side\'s; wrong unless a judge decides',
    'unparseable_reference': 'the reference could not be read (unscored)',
    'input_too_large': 'the reference is over the size limits (unscored)',
    'timeout': 'the hard per-answer deadline fired (unscored)',
    'worker_crashed': 'the scoring worker died (unscored)',
    'error': 'an internal error or invalid scoring options (unscored)',
}


@dataclass(frozen=True)
class Verdict:
    """How one answer scored against its reference."""

    eed: Optional[float]
    """PHYBench EED score 0-100 (None when unscored or EED was not requested)."""
    strict: Optional[bool]
    """The same answer to a physicist: symbolically or numerically equal (1e-6) after unit conversion."""
    lenient: Optional[bool]
    """Equal within the lenient tolerance (1e-2 or the record's own), units converted, a missing unit allowed."""
    reason: str
    """Short machine-readable reason, one of :data:`REASONS`."""
    extracted: Optional[str]
    """The answer as read from the response, None when nothing was found."""
    seconds: float
    """Wall time this call took (a cached result costs ~0)."""
    detail: str = ''
    """Free-text detail for humans (parse error, limit that fired); not for parsing."""
    parts: Tuple['Verdict', ...] = ()
    """One verdict per reference part when the reference has several (in reference order)."""
    matched_by: str = ''
    """How the response's pieces were paired with several reference parts (``label``, ``content``;
    :data:`~.pairing.MATCHED_BY`); '' for one reference."""

    @classmethod
    def unscored(cls, reason: str, detail: str = '', extracted: Optional[str] = None,
                 seconds: float = 0.0) -> 'Verdict':
        """The one constructor for "no value": every score None, ``reason`` (one of :data:`UNSCORED_REASONS`) says why."""
        return cls(eed=None, strict=None, lenient=None, reason=reason, extracted=extracted, seconds=seconds,
                   detail=detail)

    @property
    def scored(self) -> bool:
        """False when the answer could not be scored (timeout, limits, unreadable reference)."""
        return self.reason not in UNSCORED_REASONS

    @property
    def undecided(self) -> bool:
        """True when the rules could not decide (a judge should, when one is configured)."""
        return self.reason in UNDECIDED_REASONS

    def to_dict(self) -> Dict[str, Any]:
        data = asdict(self)
        data['scored'] = self.scored
        data['parts'] = [p.to_dict() for p in self.parts]
        return data
