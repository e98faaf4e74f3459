"""Numbers as physicists round them: the digits a number states, and whether two numbers agree to them.

Why: a reference ``1.5\\times10^4`` states two significant figures, so ``1.48\\times10^4`` (1.3% off,
outside the 1% tolerance) is the same answer to a physicist; ``0.011`` against ``0.0111`` is the
reference rounded to the answer's digits, right but less precise. Only numbers written as plain
decimals are read here (never an expression): ``3`` or ``1/2`` are exact values, not rounded ones.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Optional, Tuple

_NUMBER_RE = re.compile(
    r'^\s*(?P<sign>[-+]?)\s*(?P<mantissa>\d+(?:\.\d*)?|\.\d+)\s*'
    r'(?:(?:\\times|\\cdot|\*|x)\s*10\s*\^\s*(?:\{\s*(?P<exp1>[-+]?\s*\d{1,4})\s*\}|(?P<exp2>[-+]?\d))'
    r'|[eE](?P<exp3>[-+]?\d{1,4}))?\s*$')


ONE_FIGURE_RTOL = Decimal('0.05')
"""An answer stating one figure (``7\\times10^{19}``) is the reference rounded only this close to it."""


def stated_number(text: str) -> Optional[Tuple[Decimal, int, bool]]:
    """``(value, significant figures, has a decimal point)`` of a plain written number, else None.

    Trailing zeros of an integer (``2000``) are not counted: they may be placeholders.
    """
    m = _NUMBER_RE.match(text.replace('\\,', '').replace('{,}', '.').replace('\\!', ''))
    if not m:
        return None
    mantissa = m.group('mantissa')
    exponent = (m.group('exp1') or m.group('exp2') or m.group('exp3') or '0').replace(' ', '')
    try:
        value = Decimal(m.group('sign') + mantissa) * Decimal(10) ** int(exponent)
    except (InvalidOperation, ValueError):
        return None
    digits = mantissa.replace('.', '').lstrip('0')
    point = '.' in mantissa
    if not point:
        digits = digits.rstrip('0')
    return value, max(1, len(digits)), point


def round_to(value: Decimal, figures: int) -> Decimal:
    """``value`` rounded half-up to ``figures`` significant figures."""
    if value == 0:
        return value
    quantum = Decimal(1).scaleb(value.adjusted() - figures + 1)
    return value.quantize(quantum, rounding=ROUND_HALF_UP)


EXACT = 10 ** 6
"""The figures an exact value states (``\\frac{512}{729}``, ``96\\sqrt{2}``): as many as anyone asks."""


def agreement(reference_text: str, answer_text: str, answer_value: float, *, answer_exact: bool = False,
              measured: bool = False, exact_reference: Optional[Decimal] = None) -> Optional[str]:
    """How a number agrees with a reference as rounded, or None.

    * ``'strict'``: the reference is a decimal (or ``measured``: it carries a unit, so it is not a count)
      stating at least two figures, the answer states at least as many (an ``answer_exact`` value such as
      ``\\frac{512}{729}`` states them all), and the answer's value rounds to the reference (``1.48e4``
      for ``1.5e4``, ``8571`` for ``8.6e3``, ``\\frac{512}{729}`` for ``0.702``);
    * ``'lenient'``: one side rounds to the other's digits otherwise (``0.011`` for ``0.0111``), or the
      reference is an exact value (``exact_reference``, e.g. ``1/7``) the answer rounds to two figures or more.

    A reference stating one figure is never rounded (``3`` is not ``2.6``).

    ``answer_value`` is the answer's value in the reference's unit (converted), its text the digits stated.
    """
    reference, answer = stated_number(reference_text), stated_number(answer_text)
    if answer is None and answer_exact:
        answer = (None, EXACT, True)
    try:
        converted = Decimal(repr(float(answer_value)))
    except (InvalidOperation, ValueError, OverflowError):
        return None
    if reference is None and exact_reference is not None and answer is not None and answer[1] < EXACT:
        return _rounds_exact(exact_reference, converted, answer[1])
    if reference is None or answer is None:
        return None
    ref_value, ref_figures, ref_point = reference
    ans_figures = answer[1]
    if ref_value == 0 or converted == 0 or (ref_value < 0) != (converted < 0):
        return None
    if ref_figures < 2:
        return None  # 3, 0.5, 10^9: an exact value or an order of magnitude, not a rounded measurement
    if ans_figures >= ref_figures and round_to(converted, ref_figures) == ref_value:
        return 'strict' if ref_point or measured else 'lenient'
    close = ans_figures >= 2 or abs(converted - ref_value) <= abs(ref_value) * ONE_FIGURE_RTOL
    if ans_figures < ref_figures and close and round_to(ref_value, ans_figures) == round_to(converted, ans_figures):
        return 'lenient'
    return None


def _rounds_exact(reference: Decimal, answer: Decimal, figures: int) -> Optional[str]:
    """``'lenient'`` when a decimal answer stating two figures or more is the exact reference rounded."""
    if figures < 2 or reference == 0 or answer == 0 or (reference < 0) != (answer < 0):
        return None
    return 'lenient' if round_to(reference, figures) == round_to(answer, figures) else None
