"""The one answer model: what a reference or a model's final answer *means*, before any comparison.

Why a model at all: the old engine normalised text (kept the right-hand side of any relation, read
``\\pm`` as ``+``, cancelled the d's of ``dx/dt``) and then compared what was left, so meaning was
thrown away before the comparator could see it. Here the extractor (:mod:`.extract`) turns text
into one of the values below, keeping every distinction a physicist would make, and the comparator
(:mod:`.compare`) decides on those values. The model is pure data: LaTeX strings at the leaves,
no SymPy (it is built and compared inside the scoring workers, and tested without them).

Kinds of answer:

* :class:`Value` -- an expression, optionally with a :class:`Unit` (``46.3\\,\\text{kN}``);
* :class:`Relation` -- ``=``, ``<``, ``\\le``, ``\\neq``, ``\\approx``, ``\\propto``, ``\\to``, ``\\sim``
  with both sides; ``>``/``\\ge`` are stored oriented (``5 \\le x`` and ``x \\ge 5`` are one relation);
* :class:`Definition` -- ``name = value`` (``T = 2mg``): the name is kept, the value compared;
* :class:`Alternatives` -- ``a \\pm b`` (the set of both values), ``4 \\text{ or } 6``;
* :class:`Collection` -- an ordered tuple ``(3, 5)``, a set ``\\{1, 2\\}``, a ratio ``1 : 4``, a list of
  several answers (``a, b``; several boxes), a matrix row list;
* :class:`Interval` -- ``[a, b)`` and unions of them;
* :class:`Text` -- words (``counterclockwise``), compared without case or final punctuation;
* :class:`Truth`, :class:`Choice` -- yes/no and option letters, read only when the dataset says so;
* :class:`Unreadable` -- the model wrote something we cannot read (a model failure, with why);
* :class:`Empty` -- no final answer at all.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import FrozenSet, Optional, Tuple, Union

RELATION_KINDS = ('=', '<', '<=', '!=', 'approx', 'propto', 'to', 'sim', 'equiv', 'll', 'in', 'range')
"""Relation kinds after orientation (``>`` and ``>=`` are stored as ``<``/``<=`` with sides swapped)."""

COLLECTION_KINDS = ('tuple', 'set', 'ratio', 'list', 'boxes', 'matrix')
"""``tuple``/``ratio``/``matrix`` are ordered objects, ``set`` is unordered, ``list`` is several
answers (ordered or not as the caller says), ``boxes`` several boxed answers (the last is the final one
when one answer is expected)."""


@dataclass(frozen=True)
class Unit:
    """A unit as written after a value."""

    text: str
    """The unit's LaTeX or plain text, as written (``\\text{m/s}``, ``kN``, ``^\\circ``)."""
    plain: bool = False
    """Written as a bare word after a number (``4 mg``): it may be symbols after all."""
    apart: bool = False
    """Given by the dataset beside the reference (the question asks for a value in it): a bare
    number in the answer is then the expected form."""


@dataclass(frozen=True)
class Value:
    """An expression, with its unit when one was written."""

    latex: str
    unit: Optional[Unit] = None
    tolerance: Optional[float] = field(default=None, compare=False)
    """A reference part's own lenient tolerance (a dataset's per-answer error), if it has one."""

    @property
    def text(self) -> str:
        """Value and unit back together, as they were written."""
        return f'{self.latex} {self.unit.text}'.strip() if self.unit else self.latex


@dataclass(frozen=True)
class Relation:
    """``left kind right``, oriented: ``a > b`` is stored as ``b < a``."""

    kind: str
    left: 'Answer'
    right: 'Answer'


@dataclass(frozen=True)
class Definition:
    """``name = value``: a quantity given a value (``T = 2mg``, ``v_{\\max} \\approx 3\\,\\text{m/s}``)."""

    name: str
    value: 'Answer'
    approximate: bool = False
    steps: Tuple['Answer', ...] = ()
    """Earlier members of a chain ``v = \\sqrt{2gh} = 4.4\\,\\text{m/s}`` (the last is ``value``)."""


@dataclass(frozen=True)
class Alternatives:
    """Several values offered as one answer: ``\\pm`` branches (``kind='pm'``) or an ``or`` list."""

    options: Tuple['Answer', ...]
    kind: str = 'or'


@dataclass(frozen=True)
class Collection:
    """Several items that form one answer (see :data:`COLLECTION_KINDS`)."""

    kind: str
    items: Tuple['Answer', ...]
    shape: Tuple[int, ...] = ()
    """Rows and columns of a matrix (items row by row); () for the other kinds."""


@dataclass(frozen=True)
class Interval:
    """A union of intervals; each piece is (left closed, left end, right end, right closed)."""

    pieces: Tuple[Tuple[bool, 'Answer', 'Answer', bool], ...]


@dataclass(frozen=True)
class Text:
    """Words, compared as words (case and final punctuation ignored)."""

    words: str
    """Lower case, punctuation and LaTeX wrappers removed, single spaces."""
    raw: str = field(default='', compare=False)
    label: str = field(default='', compare=False)
    """The label written before the words and dropped by the reader (``(b)``), '' for none: the option the
    words name when the question lists options (:mod:`.compare.choices`)."""


@dataclass(frozen=True)
class Truth:
    """A yes/no answer (read only when the dataset's answer type says TF)."""

    value: bool


@dataclass(frozen=True)
class Choice:
    """Option letters (read only when the dataset's answer type says MC); order does not matter."""

    letters: FrozenSet[str]


@dataclass(frozen=True)
class Unreadable:
    """Text we could not read as any answer: the model's failure when it is the model's answer."""

    why: str
    raw: str = field(default='', compare=False)


@dataclass(frozen=True)
class Empty:
    """No final answer was given."""


Answer = Union[Value, Relation, Definition, Alternatives, Collection, Interval, Text, Truth, Choice,
               Unreadable, Empty]


def describe(answer: Answer) -> str:
    """A short human-readable form, for ``Verdict.extracted`` and test messages."""
    if isinstance(answer, Value):
        return answer.text
    if isinstance(answer, Relation):
        return f'{describe(answer.left)} {_RELATION_SPELLING[answer.kind]} {describe(answer.right)}'
    if isinstance(answer, Definition):
        relation = '\\approx' if answer.approximate else '='
        return f'{answer.name} {relation} {describe(answer.value)}'
    if isinstance(answer, Alternatives):
        return ' \\text{ or } '.join(describe(o) for o in answer.options)
    if isinstance(answer, Collection):
        inner = ', '.join(describe(i) for i in answer.items)
        return {'tuple': f'({inner})', 'set': f'\\{{{inner}\\}}', 'ratio': ' : '.join(describe(i) for i in answer.items),
                'list': ' ; '.join(describe(i) for i in answer.items), 'boxes': ' ; '.join(describe(i) for i in answer.items),
                'matrix': f'[{inner}]'}[answer.kind]
    if isinstance(answer, Interval):
        return ' \\cup '.join(f"{'[' if lc else '('}{describe(a)}, {describe(b)}{']' if rc else ')'}"
                              for lc, a, b, rc in answer.pieces)
    if isinstance(answer, Text):
        return answer.raw or answer.words
    if isinstance(answer, Truth):
        return 'yes' if answer.value else 'no'
    if isinstance(answer, Choice):
        return ', '.join(sorted(answer.letters))
    if isinstance(answer, Unreadable):
        return answer.raw[:200]
    return ''


_RELATION_SPELLING = {'=': '=', '<': '<', '<=': '\\le', '!=': '\\neq', 'approx': '\\approx',
                      'propto': '\\propto', 'to': '\\to', 'sim': '\\sim', 'equiv': '\\equiv',
                      'll': '\\ll', 'in': '\\in', 'range': '\\in'}


def values_in(answer: Answer) -> Tuple[Value, ...]:
    """Every :class:`Value` leaf, in order (for size checks and for EED over several parts)."""
    if isinstance(answer, Value):
        return (answer,)
    if isinstance(answer, Relation):
        return values_in(answer.left) + values_in(answer.right)
    if isinstance(answer, Definition):
        return values_in(answer.value)
    if isinstance(answer, (Alternatives,)):
        return tuple(v for o in answer.options for v in values_in(o))
    if isinstance(answer, Collection):
        return tuple(v for i in answer.items for v in values_in(i))
    if isinstance(answer, Interval):
        return tuple(v for _, a, b, _ in answer.pieces for v in values_in(a) + values_in(b))
    return ()
