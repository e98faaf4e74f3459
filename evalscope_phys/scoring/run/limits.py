"""Input limits for scoring untrusted answers, checked before SymPy sees anything.

Some inputs are cheap to write and ruinous to evaluate (``2^{99999999}``, ``10^{10^{10}}``,
10k-character sums). ``check_text_limits`` runs on the LaTeX before parsing and
``check_expr_limits`` on the parsed expression before ``simplify``; both return a short reason or
None, so an answer is reported as unscored with that reason instead of burning the deadline. The
deadline is :data:`ANSWER_DEADLINE` (enforced by :mod:`evalscope_phys.scoring.run.pool`, which kills the worker).
"""
from __future__ import annotations

import math
import re
from typing import Any, List, Optional

ANSWER_DEADLINE = 5.0
"""Seconds to score one answer in total (engine, SEED, reward, the scoring CLI); the worker is killed after."""
MAX_TEXT_CHARS = 10_000
"""The longest real final answer (PHYBench, OlympiadBench, UGPhysics, Yale PHYSICS) is 1,603 chars and
the longest equivalent rewrite in the EED dev pairs 5.7k; the canonical parser reads 10k in milliseconds."""
MAX_NESTING = 30
"""Brace/paren/bracket depth; real answers reach 9, and the ANTLR parser recurses per level."""
MAX_EXPONENT = 10_000
"""|numeric exponent|; real answers reach 371 (e^{371}); 2^10000 still evaluates in microseconds."""
MAX_NUMBER_DIGITS = 100
"""Digits in one number; real answers use at most 16; arithmetic on longer literals adds nothing."""
MAX_FACTORIAL = 1_000
"""Largest n in n!; real answers use 15!; 10^6! would take SymPy seconds and megabytes."""
MAX_EXPR_NODES = 20_000
"""Expression size; real answers are 10-200 nodes (expanded rewrites reach a few thousand). Sampling
is linear in it; EED has its own, smaller cap (``compare.EED_MAX_NODES``)."""
MAX_EXPR_DEPTH = 100
"""Expression depth; SymPy's recursive algorithms approach Python's recursion limit beyond this."""


_OPEN, _CLOSE = '{([', '})]'
_TOKEN = re.compile(r'\s+|\d+\.?\d*|\.\d+|\\[a-zA-Z]+|\\.|.', re.S)
_SKIP = {r'\left', r'\right', r'\,', r'\;', r'\!', r'\ ', r'\quad'}
_PRODUCT = {r'\cdot', r'\times', '*'}
_LOG10_MAX_EXPONENT = math.log10(MAX_EXPONENT)
_LOG10_MAX_FACTORIAL = math.log10(MAX_FACTORIAL)
_HUGE = 1e300  # an estimate this large is "infinite" for our purposes


def check_text_limits(text: str) -> Optional[str]:
    """Reason the LaTeX ``text`` must not be parsed ('nul_byte', 'too_long', ...), or None."""
    if not isinstance(text, str):
        return 'not_text'
    if '\x00' in text:
        return 'nul_byte'
    if len(text) > MAX_TEXT_CHARS:
        return 'too_long'
    depth = deepest = 0
    for char in text:
        if char in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif char in _CLOSE:
            depth = max(0, depth - 1)
    if deepest > MAX_NESTING:
        return 'too_deep'
    if re.search(r'\d{%d}' % (MAX_NUMBER_DIGITS + 1), text):
        return 'number_too_long'
    for match in re.finditer(r'\^', text):
        estimate = _text_log10(_operand_after(text, match.end()))
        if estimate is not None and estimate > _LOG10_MAX_EXPONENT:
            return 'exponent_too_large'
    for match in re.finditer(r'!', text):
        estimate = _text_log10(_operand_before(text, match.start()))
        if estimate is not None and estimate > _LOG10_MAX_FACTORIAL:
            return 'factorial_too_large'
    return None


def _group_end(text: str, start: int) -> int:
    """Index after the bracket group opening at ``start`` (or the end of text if unbalanced)."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] in _OPEN:
            depth += 1
        elif text[index] in _CLOSE:
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def _operand_after(text: str, pos: int) -> str:
    """The exponent after a '^': a group, a whole digit run (conservative), a command, or a char."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text):
        return ''
    if text[pos] in _OPEN:
        return text[pos:_group_end(text, pos)]
    match = re.compile(r'\d+\.?\d*|\\[a-zA-Z]+(?:\s*\{[^{}]*\}){0,2}|.', re.S).match(text, pos)
    return match.group(0) if match else ''


def _operand_before(text: str, end: int) -> str:
    """The operand of a postfix '!': a digit run or the bracket group ending just before it."""
    pos = end
    while pos > 0 and text[pos - 1].isspace():
        pos -= 1
    if pos == 0:
        return ''
    if text[pos - 1] in _CLOSE:
        depth = 0
        for index in range(pos - 1, -1, -1):
            if text[index] in _CLOSE:
                depth += 1
            elif text[index] in _OPEN:
                depth -= 1
                if depth == 0:
                    return text[index:pos]
        return ''
    match = re.search(r'\d+\.?\d*$', text[:pos])
    return match.group(0) if match else ''


def _text_log10(text: str) -> Optional[float]:
    """Estimate log10|value| of a purely numeric LaTeX snippet; None if it has anything else."""
    tokens = [t for t in _TOKEN.findall(text) if not t.isspace() and t not in _SKIP]
    if not tokens:
        return None
    try:
        value, rest = _sum_log10(tokens, 0)
    except (_NotNumeric, IndexError, RecursionError):
        return None
    return value if rest == len(tokens) else None


class _NotNumeric(Exception):
    pass


def _sum_log10(tokens: List[str], pos: int):
    terms: List[float] = []
    while True:
        while pos < len(tokens) and tokens[pos] in '+-':
            pos += 1
        value, pos = _product_log10(tokens, pos)
        terms.append(value)
        if pos < len(tokens) and tokens[pos] in '+-':
            continue
        return max(terms) + math.log10(len(terms)), pos


def _product_log10(tokens: List[str], pos: int):
    total, pos = _power_log10(tokens, pos)
    while pos < len(tokens) and tokens[pos] not in '+-)}]':
        sign = 1.0
        if tokens[pos] in _PRODUCT or tokens[pos] == '/':
            sign = -1.0 if tokens[pos] == '/' else 1.0
            pos += 1
        value, pos = _power_log10(tokens, pos)
        total += sign * value
    return total, pos


def _power_log10(tokens: List[str], pos: int):
    # Right-associative chain a ^ b ^ c, folded from the right without recursion.
    chain = []
    while True:
        value, pos = _atom_log10(tokens, pos)
        chain.append(value)
        if pos < len(tokens) and tokens[pos] == '^':
            pos += 1
            continue
        break
    exponent = chain.pop()
    while chain:
        base = chain.pop()
        exponent = abs(base) * 10 ** exponent if exponent < 300 else _HUGE
        exponent = min(exponent, _HUGE)
    return exponent, pos


def _atom_log10(tokens: List[str], pos: int):
    token = tokens[pos]
    if token in '+-':
        return _atom_log10(tokens, pos + 1)
    if token[0].isdigit() or (token[0] == '.' and token != '.'):  # a lone '.' is punctuation, not a number
        number = float(token)
        return (math.log10(number) if number else -_HUGE), pos + 1
    if token in _OPEN:
        value, pos = _sum_log10(tokens, pos + 1)
        if tokens[pos] not in _CLOSE:
            raise _NotNumeric(token)
        return value, pos + 1
    if token == r'\frac':
        numerator, pos = _atom_log10(tokens, pos + 1)
        denominator, pos = _atom_log10(tokens, pos)
        return numerator - denominator, pos
    raise _NotNumeric(token)


def check_expr_limits(expr: Any) -> Optional[str]:
    """Reason the parsed ``expr`` must not be simplified ('too_many_nodes', ...), or None."""
    import sympy  # here, not at module level: the parent process never needs SymPy

    stack = [(expr, 1)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_EXPR_NODES:
            return 'too_many_nodes'
        if depth > MAX_EXPR_DEPTH:
            return 'too_deep'
        if not isinstance(node, sympy.Basic):
            continue
        if isinstance(node, sympy.Rational):  # Integer too
            if max(abs(node.p), node.q).bit_length() > MAX_NUMBER_DIGITS * 3.33:
                return 'number_too_large'
        elif isinstance(node, sympy.Pow):
            estimate = _expr_log10(node.exp)
            if estimate is not None and estimate > _LOG10_MAX_EXPONENT:
                return 'exponent_too_large'
        elif isinstance(node, (sympy.factorial, sympy.factorial2, sympy.subfactorial, sympy.gamma)):
            estimate = _expr_log10(node.args[0])
            if estimate is not None and estimate > _LOG10_MAX_FACTORIAL:
                return 'factorial_too_large'
        stack.extend((arg, depth + 1) for arg in node.args)
    return None


def _expr_log10(expr: Any, depth: int = 0) -> Optional[float]:
    """Estimate log10|value| of a numeric SymPy expression without evaluating it; None if symbolic."""
    import sympy

    if depth > MAX_EXPR_DEPTH:
        return _HUGE
    if isinstance(expr, sympy.Rational):
        if expr == 0:
            return -_HUGE
        return math.log10(abs(expr.p)) - math.log10(expr.q)
    if isinstance(expr, sympy.Float):
        _, mantissa, exponent, bits = expr._mpf_
        return -_HUGE if not mantissa else (exponent + bits) * math.log10(2)
    if isinstance(expr, sympy.NumberSymbol):
        return 0.5
    parts = [_expr_log10(arg, depth + 1) for arg in getattr(expr, 'args', ())]
    if not parts or any(part is None for part in parts):
        return None
    if isinstance(expr, sympy.Add):
        return max(parts) + math.log10(len(parts))
    if isinstance(expr, sympy.Mul):
        return sum(parts)
    if isinstance(expr, sympy.Pow):
        base, exponent = parts
        return min(_HUGE, abs(base) * 10 ** exponent) if exponent < 300 else _HUGE
    return None
