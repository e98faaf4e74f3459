"""Checks on the other items of a part that holds several values: they must not change the answer.

Why: a part may carry, beside its answer, the earlier links of the chain that ends in it, definitions
and conditions (:func:`~.compare._the_answer_among` tells them apart). Those are allowed only if they
leave the answer as stated: a chain whose links do not hold (``v = 2 + 3 = 4``, ``\\sqrt{2gh} =
\\sqrt{3gh}``) is no derivation of its last value, and a number given to a symbol of the reference
(``y = \\frac{1}{(1-x)^2},\\ x = 0``) turns a formula into one of its values, unless the question gave
that number (a restated given).
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Optional, Sequence

import sympy

from ..answer import Alternatives, Answer, Collection, Definition, Relation, Value
from .values import expressions, read_expression_safely
from .outcome import Options
from ..read.relations import is_name
from ..read.trailing_units import is_numeric

NUMBER_LINK_RTOL = 0.05
"""Numbers in a chain may be rounded from one link to the next (``= 0.1573 \\approx 0.16``); a link
between numbers that differ by more than this does not hold."""
MAX_LINKS = 6
"""Links beyond this are not checked (cost)."""


def broken_link(members: Sequence[Answer], approximate: bool, options: Options) -> Optional[str]:
    """The first link ``a = b`` of a chain that checkably does not hold, or None.

    Checked are links between two plain numbers (within :data:`NUMBER_LINK_RTOL`) and, in a chain of
    ``=`` only, links between two expressions in the same symbols. A link that substitutes a value or
    a definition (other symbols on each side, units) cannot be checked and is allowed, as before."""
    quiet = replace(options, givens=None)
    for left, right in list(zip(members, members[1:]))[:MAX_LINKS]:
        if not (isinstance(left, Value) and isinstance(right, Value)) or left.unit or right.unit:
            continue
        a, _ = read_expression_safely(left.latex)
        b, _ = read_expression_safely(right.latex)
        if a is None or b is None or not isinstance(a, sympy.Expr) or not isinstance(b, sympy.Expr):
            continue
        if a.free_symbols != b.free_symbols:
            continue
        if not a.free_symbols:
            if _numbers_differ(a, b):
                return f'{left.latex} = {right.latex} does not hold'
            continue
        if approximate:
            continue  # a series expansion or a limit between two formulas: not an identity
        outcome = expressions(a, b, replace(quiet, tolerance=None))
        if not outcome.lenient and outcome.reason == 'not_equivalent':
            return f'{left.latex} = {right.latex} does not hold'
    return None


def _numbers_differ(a: sympy.Expr, b: sympy.Expr) -> bool:
    try:
        x, y = complex(a), complex(b)
    except (TypeError, ValueError):
        return False
    scale = max(abs(x), abs(y))
    return scale > 0 and abs(x - y) > NUMBER_LINK_RTOL * scale


def specialises(reference: Answer, item: Answer, options: Options) -> bool:
    """Whether ``item`` gives a number to a symbol the reference's value is written in (``x = 0``
    beside ``y = \\frac{1}{(1-x)^2}``) that the question does not give: the answer is then that value
    at one point, not the formula asked."""
    if not isinstance(item, Definition) or not isinstance(item.value, Value) or not is_numeric(item.value.latex):
        return False
    symbol, _ = read_expression_safely(item.name)
    if not isinstance(symbol, sympy.Symbol) or symbol not in _reference_symbols(reference):
        return False
    return not _given_by_question(symbol.name, item.value, options)


def _reference_symbols(reference: Answer) -> frozenset:
    if isinstance(reference, Definition):
        reference = reference.value
    sides = (reference.left, reference.right) if isinstance(reference, Relation) else (reference,)
    found = set()
    for side in sides:
        if isinstance(side, Value):
            expr, _ = read_expression_safely(side.latex)
            if isinstance(expr, sympy.Expr):
                found |= expr.free_symbols
    return frozenset(found)


def _given_by_question(name: str, value: Value, options: Options) -> bool:
    """A restated given: the question gives ``name`` the same number."""
    if options.givens is None:
        return False
    stated, _ = read_expression_safely(value.latex)
    for given, number, _unit in options.givens.values:
        if given != name:
            continue
        expected, _ = read_expression_safely(number)
        if stated is not None and expected is not None and not _numbers_differ(stated, expected):
            return True
    return False


_OTHERWISE_RE = re.compile(r'^\\(?:text|mbox|textrm)\s*\{\s*(?:otherwise|elsewhere)\s*[.,;]?\s*\}\s*[.,;]?$', re.I)


def otherwise_branch(item: Answer, name: str) -> bool:
    """Whether ``item`` is the other branch of the answer ``name`` (``p(x) = 0\\text{ otherwise}`` after
    ``p(x) = \\ldots,\\ |x| \\le a``): the answer's domain stated, not a second value."""
    if not isinstance(item, Definition) or not isinstance(item.value, Value) or item.name != name:
        return False
    value = item.value
    tail = value.unit.text if value.unit is not None else ''
    if not tail:
        m = re.search(r'\\(?:text|mbox|textrm)\s*\{[^{}]*\}\s*[.,;]?\s*$', value.latex)
        tail = m.group(0) if m else ''
    return bool(_OTHERWISE_RE.match(tail.strip()))


_PM_NAME_RE = re.compile(r'\\pm(?![A-Za-z])')


def named_branches(reference: Answer) -> Optional[Collection]:
    """``n_\\pm = 1 \\pm x`` as the two results it names, ``n_+ = 1 + x`` and ``n_- = 1 - x``, or None.

    Why: a model that writes the branches on their own (``n_+ = \\ldots,\\ n_- = \\ldots``) gives both
    values asked, each under its own name; compared as one ``\\pm`` answer it was two answers for one.
    Only a name with one ``\\pm`` and a value with ``\\pm`` (never ``\\mp``) are split: the upper sign of
    the name goes with the first branch, as the reader orders them."""
    if not isinstance(reference, Definition) or not isinstance(reference.value, Alternatives) \
            or reference.value.kind != 'pm' or len(reference.value.options) != 2 or reference.steps:
        return None
    if len(_PM_NAME_RE.findall(reference.name)) != 1:
        return None
    upper, lower = (_PM_NAME_RE.sub(sign, reference.name) for sign in ('+', '-'))
    return Collection('list', tuple(Definition(name, option, reference.approximate)
                                    for name, option in zip((upper, lower), reference.value.options)))


_INDEXED_RE = re.compile(r'^(?P<base>.+?)_\{?\s*(?P<index>\d+)\s*\}?$')


def indexed_values(references: Sequence[Answer], answer: Answer) -> Optional[Collection]:
    """``\\lambda = 1, 2`` for ``\\lambda_1 = 1,\\ \\lambda_2 = 2``: the answer's list of values under the
    name the reference indexes, read as the indexed names in the order written, or None.

    Why: the values of one quantity listed under its bare name (the eigenvalues, the allowed energies)
    answer the reference that numbers them; compared as written it was ``\\lambda`` for ``\\lambda_1``,
    another quantity named. Only a reference whose every item is ``X_i = \\ldots`` with one base ``X`` and
    the indices counting up by one, and an answer of exactly as many items (``X = a``, then bare values),
    are read so; the values still have to be the reference's, in its order (``\\lambda = 2, 1`` is not
    taken for ``\\lambda_1 = 1,\\ \\lambda_2 = 2``)."""
    if not isinstance(answer, Collection) or answer.kind != 'list' or len(answer.items) != len(references) \
            or len(references) < 2:
        return None
    names = []
    for item in references:
        m = _INDEXED_RE.match(item.name.strip()) if isinstance(item, Definition) and not item.steps else None
        if m is None:
            return None
        names.append((m.group('base').strip(), int(m.group('index'))))
    base = names[0][0]
    if any(b != base for b, _ in names) or [i for _, i in names] != list(range(names[0][1], names[0][1] + len(names))):
        return None
    first, rest = answer.items[0], answer.items[1:]
    if not isinstance(first, Definition) or first.steps or first.name.strip() != base \
            or not all(isinstance(i, Value) for i in rest):
        return None
    values = (first.value,) + tuple(rest)
    return Collection('list', tuple(Definition(r.name, v) for r, v in zip(references, values)))


#: the general definitions of the thermodynamic potentials (name, value), as a textbook states them
#: before the result asked (``F = U - TS``, then ``F = -kT\\ln Z``): an identity, not a second value
GENERAL_DEFINITIONS = (
    ('F', 'U - TS'), ('F', 'E - TS'), ('A', 'U - TS'), ('A', 'E - TS'),
    ('G', 'H - TS'), ('G', 'F + pV'), ('G', 'U - TS + pV'), ('G', 'E - TS + pV'),
    ('H', 'U + pV'), ('H', 'E + pV'), ('\\Omega', 'F - \\mu N'), ('\\Omega', 'U - TS - \\mu N'),
)


MAX_DEFINITION_OPS = 12
"""A value with more operations than this is no definition of the table (and is not expanded: cost)."""


def general_definition(item: Answer) -> bool:
    """Whether ``item`` is one of :data:`GENERAL_DEFINITIONS` (``p`` or ``P`` for the pressure): the same
    name and the same expression in the same symbols. ``F = U + TS`` or ``F = U - TS + pV`` is none."""
    if not isinstance(item, Definition) or item.steps or not isinstance(item.value, Value) or item.value.unit:
        return False
    written, _ = read_expression_safely(item.value.latex)
    if not isinstance(written, sympy.Expr) or sympy.count_ops(written) > MAX_DEFINITION_OPS:
        return False
    for name, value in GENERAL_DEFINITIONS:
        if item.name.strip() != name:
            continue
        for spelling in {value, value.replace('p', 'P')}:
            expected, _ = read_expression_safely(spelling)
            if expected.free_symbols == written.free_symbols and sympy.expand(expected - written) == 0:
                return True
    return False


def stray_name(reference: Answer, chosen: Answer, item: Answer) -> bool:
    """Whether ``item`` is a bare name the equation ``chosen`` already writes, beside an equation asked
    (``\\frac{a}{b} + \\frac{c}{d} = 0`` and ``a``, a fragment of a sentence split at its comma): no
    second answer, since a name is no equation. Beside a definition (``x = 2a``, ``a``) a bare name
    could be a second value of ``x``, so it is not taken there; nor a name the equation does not write."""
    if not isinstance(reference, Relation) or not isinstance(chosen, Relation) or chosen.kind != '=':
        return False
    if not isinstance(item, Value) or item.unit is not None or not is_name(item.latex):
        return False
    symbol, _ = read_expression_safely(item.latex)
    return isinstance(symbol, sympy.Symbol) and symbol in _reference_symbols(chosen)


_AT_POINT_RE = re.compile(r"^(?P<base>[^()']+?)\s*(?P<primes>'{0,2})\s*(?:\\left)?\(\s*(?P<arg>[^()]+?)\s*(?:\\right)?\)$")
MAX_POINT_DERIVATIVE = 2
"""``x''(0)`` at most: a higher derivative at a point is no initial condition a model restates."""


def names_a_point(chosen: Answer, item: Answer) -> bool:
    """Whether ``item`` names the answer ``f(t) = \\ldots`` (or a derivative of it) at a number: ``f(0)``,
    ``f'(0)``, whatever it states there (:func:`at_a_point` checks that it holds)."""
    if not (isinstance(chosen, Definition) and isinstance(item, Definition)):
        return False
    general, point = _AT_POINT_RE.match(chosen.name.strip()), _AT_POINT_RE.match(item.name.strip())
    return general is not None and point is not None and not general.group('primes') \
        and general.group('base') == point.group('base') and is_numeric(point.group('arg'))


def at_a_point(chosen: Answer, item: Answer, options: Options) -> bool:
    """Whether ``item`` is the answer's own value, or its derivative's, at one point of its argument, and
    holds there (``x(0) = B``, ``x'(0) = A\\omega`` beside ``x(t) = A\\sin\\omega t + B``).

    Why: a model restates the initial or boundary conditions its solution meets; they are no second value
    of the quantity asked, though they carry its letter. Only a condition the formula checkably meets is
    one: ``x(0) = 2B`` beside that formula contradicts it and stays a second value."""
    return holds_at_point(chosen, item, options) is True


def holds_at_point(chosen: Answer, item: Answer, options: Options) -> Optional[bool]:
    """Whether the value ``item`` states at a point (:func:`names_a_point`) is the formula's there: True,
    False when it checkably is not, None when it cannot be checked (units, an opaque formula, steps)."""
    if not names_a_point(chosen, item) or item.steps:
        return None
    if not (isinstance(chosen.value, Value) and isinstance(item.value, Value)) or chosen.value.unit or item.value.unit:
        return None
    general, point = _AT_POINT_RE.match(chosen.name.strip()), _AT_POINT_RE.match(item.name.strip())
    if len(point.group('primes')) > MAX_POINT_DERIVATIVE:
        return None
    formula, _ = read_expression_safely(chosen.value.latex)
    variable, _ = read_expression_safely(general.group('arg'))
    where, _ = read_expression_safely(point.group('arg'))
    stated, _ = read_expression_safely(item.value.latex)
    if not all(isinstance(e, sympy.Expr) for e in (formula, variable, where, stated)) \
            or not isinstance(variable, sympy.Symbol) or variable not in formula.free_symbols:
        return None
    try:
        there = sympy.diff(formula, variable, len(point.group('primes'))).subs(variable, where)
    except (TypeError, ValueError, AttributeError):
        return None
    outcome = expressions(stated, there, replace(options, givens=None, tolerance=None))
    return True if outcome.strict else False if outcome.reason == 'not_equivalent' else None


_FUNCTION_NAME_RE = re.compile(r'^(?P<name>.+?)\s*(?:\\left)?\(\s*(?P<argument>\\?[A-Za-z]+(?:_\{?\w+\}?)?)\s*(?:\\right)?\)$')


def general_formula(reference: Answer, chosen: Optional[Answer], item: Answer) -> bool:
    """Whether ``item`` is the general formula of which the reference asks one value: ``v(\\theta) =
    \\sqrt{2gR(1-\\cos\\theta)}`` beside ``v_c = \\sqrt{2gR/3}`` for ``v = \\sqrt{2gR/3}``. The item names a
    function of an argument its value writes, and neither the reference's value nor the ``chosen`` one
    (None: not yet chosen) writes that argument (they are its value at one point); ``v(\\theta)`` against
    a reference in ``\\theta`` is the answer itself, and a bare second name stays a second candidate."""
    if not isinstance(item, Definition) or item.steps or not isinstance(item.value, Value):
        return False
    m = _FUNCTION_NAME_RE.match(item.name.strip())
    if m is None:
        return False
    if chosen is not None and (not isinstance(chosen, Definition) or not isinstance(chosen.value, Value)
                               or _FUNCTION_NAME_RE.match(chosen.name.strip())):
        return False
    argument, _ = read_expression_safely(m.group('argument'))
    general, _ = read_expression_safely(item.value.latex)
    if not isinstance(argument, sympy.Symbol) or not isinstance(general, sympy.Expr) \
            or argument not in general.free_symbols or argument in _reference_symbols(reference):
        return False
    if chosen is None:
        return True
    asked, _ = read_expression_safely(chosen.value.latex)
    return isinstance(asked, sympy.Expr) and argument not in asked.free_symbols
