"""Symbols a problem defines or gives a value, and the definitions an answer states for its own notation.

Why: a physicist reads ``k_F = (3\\pi^2 Nq/V)^{1/3}`` as ``(3\\pi^2\\rho)^{1/3}`` when the question says
``\\rho \\equiv Nq/V``, and ``\\sqrt{\\mu/R}`` as ``\\sqrt{GM/R}`` when the answer adds ``\\mu = GM``. The
rules that keep this from accepting a wrong answer:

* the question's definitions apply to both sides (they hold throughout the problem); only a plain
  ``symbol = expression`` (``\\equiv``, ``:=``) introduced as a definition counts, never a condition
  (``at $r = 2R$``), and never a symbol the question defines twice (``conflicting``: undecided);
* an answer that is the bare defined symbol (``E`` for "show that $E = \\ldots$") is never one;
* the answer's own definitions apply to the answer only, to symbols the reference does not use, never
  to an answer that is the bare defined symbol, and never when the definition alone states the
  reference (``X = <reference>``, then ``X``: the answer restates, it does not answer);
* numbers the question gives (``$r = 4$ Å``) are :attr:`Givens.values`, used only where one side is
  a number and the other a formula (:mod:`.problem_values`), never the answer's own numbers.

Pure text work on the question (trusted) and the located answer; names are SymPy symbol names.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, FrozenSet, List, Optional, Tuple

MAX_QUESTION_CHARS = 20_000
"""Longer questions are read for definitions only this far (cost bound; real ones reach ~6,000)."""
MAX_DEFINITIONS = 40
"""Definitions kept per question or answer (the rest are ignored)."""
MAX_ITEMS_READ = 64
"""Items of one formula or answer read for definitions (a list longer than this defines nothing more)."""
MAX_SUBSTITUTION_ROUNDS = 3
"""Definitions in terms of other definitions are followed this deep."""

_MATH_RE = re.compile(r'\$\$(.+?)\$\$|\$(.+?)\$|\\\[(.+?)\\\]|\\\((.+?)\\\)', re.S)
_DEFINING_SIGN_RE = re.compile(r'\\equiv|:=|\\coloneqq|\\triangleq|\\stackrel\{\\text\{def\}\}\{=\}')
#: words that introduce a definition just before the formula ("where", "in terms of ... $\rho \equiv$")
_DEFINING_WORDS_RE = re.compile(r'\b(where|let|define[sd]?|defining|denote[sd]?|denoting|notation|in terms of|'
                                r'written as|with|given by|is|are|set|put|call(?:ed)?)\s*(?:the\s+\w+\s*)?[:,]?\s*$', re.I)
#: words that make ``x = a`` a condition or a point ("at $r = 2R$", "for $x = 0$")
_CONDITION_WORDS_RE = re.compile(r'\b(at|for|when|if|until|from|to|between|after|before|near|as|and|or|than|'
                                 r'unless|whenever|on|in)\s*$', re.I)
#: a unit word written after the formula (``$d = 300$ meters``); English words pint also reads are not units
_NOT_UNITS = frozenset({'in', 'a', 'at', 'is', 'and', 'or', 'to', 'of', 'on', 'by', 'as', 'for', 'the', 'it', 'if',
                        'an', 'are', 'be', 'with', 'from', 'then', 'than', 'so', 'we', 'i'})
_UNIT_AFTER_RE = re.compile(r'^\s*(\\?[A-Za-zÅ°Ω][A-Za-zÅ°Ω/\-\^0-9]*)')


@dataclass(frozen=True)
class Facts:
    """What one text defines: (name, value LaTeX) definitions, (name, number, unit) values, names given twice."""

    definitions: Tuple[Tuple[str, str], ...] = ()
    values: Tuple[Tuple[str, str, str], ...] = ()
    conflicting: FrozenSet[str] = frozenset()


@dataclass(frozen=True)
class Givens:
    """The question's and the answer's text, read for definitions only when a comparison asks (reading
    every formula costs; most comparisons never need it). Hashable; names are SymPy symbol names."""

    question_text: str = ''
    answer_text: str = ''
    """The located answer, when it may define symbols (two ``=`` or more), else ''."""
    question: bool = False
    """Whether a question was given at all."""
    references: Tuple[str, ...] = ()
    """Every reference part's text of the problem (the quantities it asks for, :func:`reference_names`)."""

    @property
    def definitions(self) -> Tuple[Tuple[str, str], ...]:
        """(name, value LaTeX) the question defines symbolically (``rho`` -> ``Nq/V``)."""
        return _question_facts(self.question_text).definitions if self.question else ()

    @property
    def values(self) -> Tuple[Tuple[str, str, str], ...]:
        """(name, number LaTeX, unit text) the question gives (``r`` -> ``4``, ``\\text{\\AA}``)."""
        return _question_facts(self.question_text).values if self.question else ()

    @property
    def answer(self) -> Tuple[Tuple[str, str], ...]:
        """(name, value LaTeX) the answer defines for its own notation (``mu`` -> ``GM``)."""
        return answer_facts(self.answer_text).definitions if self.answer_text else ()

    @property
    def conflicting(self) -> FrozenSet[str]:
        """Names defined (or given) twice with different values, in the question or the answer: never substituted."""
        question = _question_facts(self.question_text).conflicting if self.question else frozenset()
        return question | (answer_facts(self.answer_text).conflicting if self.answer_text else frozenset())

    def mentions(self, name: str) -> bool:
        """Whether the question writes the symbol ``name`` in a formula (a constant's letter it may use otherwise)."""
        return name in question_symbols(self.question_text)


def _symbol_name(latex: str) -> Optional[str]:
    """The SymPy name of a LaTeX text that is one symbol (``\\omega_{21}`` -> ``omega_21``), else None."""
    if len(latex) > 40:
        return None
    expr = _expression(latex)
    return expr.name if getattr(expr, 'is_Symbol', False) else None


def _free_names(latex: str) -> Optional[FrozenSet[str]]:
    expr = _expression(latex)
    return None if expr is None else frozenset(s.name for s in expr.free_symbols)


def _split_items(formula: str) -> List[str]:
    from .scan import top_level_split
    return [i for i in top_level_split(formula, (',', ';', '\\quad', '\\qquad', '\\text{and}', '\\text{ and }',
                                                   '\\\\', '\n')) if i.strip()][:MAX_ITEMS_READ]


def _definition(item: str) -> Optional[Tuple[str, str, str, bool]]:
    """(name, value LaTeX, unit text, defining sign) of ``name = value``, or None."""
    from ..answer import Definition, Value
    from .reading import read_answer
    from .scan import top_level_split
    defining = bool(_DEFINING_SIGN_RE.search(item))
    text = _DEFINING_SIGN_RE.sub('=', item)
    sides = top_level_split(text, ('=',))
    if len(sides) != 2 or not sides[0].strip() or not sides[1].strip():
        return None
    name = _symbol_name(sides[0].strip())
    if name is None:
        return None
    read = read_answer(f'{sides[0].strip()} = {sides[1].strip()}')
    if not isinstance(read, Definition) or read.steps or not isinstance(read.value, Value):
        return None
    value, unit = read.value, read.value.unit
    if unit is not None and unit.plain and not _is_unit(unit.text):
        return name, value.text, '', defining  # "2 GM", "2R": symbols written after a number
    return name, value.latex, unit.text if unit is not None else '', defining


def _is_unit(text: str) -> bool:
    from ..compare.units import parse_unit
    return text.strip().lower() not in _NOT_UNITS and parse_unit(text) is not None


def _collect(found: List[Tuple[str, str, str]], into: Dict[str, Tuple[str, str]], conflicting: set) -> None:
    for name, latex, unit in found:
        if name in conflicting:
            continue
        if name in into and (_compact(into[name][0]), _compact(into[name][1])) != (_compact(latex), _compact(unit)):
            conflicting.add(name)
            del into[name]
        elif len(into) < MAX_DEFINITIONS:
            into[name] = (latex.strip(), unit.strip())


def _compact(text: str) -> str:
    """A comparison key only (``\\omega t`` loses its space here): never a value to read."""
    return re.sub(r'\s+|\\[,;:! ]', '', text)


def read_question(question: str) -> Givens:
    """What a question gives (see the module docstring), read when first asked."""
    return Givens(question_text=question[:MAX_QUESTION_CHARS], question=True)


@lru_cache(maxsize=256)
def _question_facts(question: str) -> Facts:
    """The definitions and values a question states; cached per worker (every answer to it reuses them)."""
    text = question
    symbolic: List[Tuple[str, str, str]] = []
    numbers: List[Tuple[str, str, str]] = []
    for m in _MATH_RE.finditer(text):
        try:
            _read_formula(text, m, symbolic, numbers)
        except Exception:  # (never seen) a formula our reader trips on: the question defines nothing there
            continue
    return _facts(symbolic, numbers)


_NUMBER_GIVEN_RE = re.compile(r'=\s*[-+]?\s*(?:\d|\.\d)')
_RELATION_SIGNS = ('=', '\\equiv', ':=', '<', '>', '\\le', '\\ge', '\\leq', '\\geq', '\\approx', '\\sim', '\\to',
                   '\\rightarrow', '\\propto', '\\ll', '\\gg', '\\neq')


@lru_cache(maxsize=64)
def question_symbols(question: str) -> FrozenSet[str]:
    """Every symbol name the question's formulas write (each side of a relation read on its own)."""
    names: set = set()
    for m in _MATH_RE.finditer(question):
        formula = next(g for g in m.groups() if g is not None)
        if len(formula) < 400:
            names |= _formula_symbols(formula)[0]
    return frozenset(names)


@lru_cache(maxsize=64)
def reference_names(references: Tuple[str, ...]) -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """(every symbol name the reference parts write, the names their relations' left-hand sides define):
    the quantities a problem asks for, so a model's name that is one of them names that quantity."""
    symbols: set = set()
    defined: set = set()
    for text in references:
        found, left = _formula_symbols(text)
        symbols |= found
        defined |= left
    return frozenset(symbols), frozenset(defined)


def _formula_symbols(formula: str) -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """(the symbol names of every side of every item, the names of the items' left-hand sides)."""
    from .scan import top_level_split
    names: set = set()
    left: set = set()
    for item in _split_items(formula):
        sides = top_level_split(item, _RELATION_SIGNS)
        for index, side in enumerate(sides):
            try:
                found = _free_names(side) or set()
            except Exception:  # (never seen) our reader tripping on a side: it names nothing
                continue
            names |= found
            if index == 0 and len(sides) > 1:
                left |= found
    return frozenset(names), frozenset(left)


def _read_formula(text: str, m: 're.Match[str]', symbolic: list, numbers: list) -> None:
    """The definitions and numbers of one formula of the question."""
    formula = next(g for g in m.groups() if g is not None)
    if '=' not in formula and '\\equiv' not in formula and '\\coloneqq' not in formula:
        return
    before = text[max(0, m.start() - 60):m.start()]
    before = re.split(r'[.!?:]\s|\n\s*\n', before)[-1]
    items = _split_items(formula)
    introduced = _introduces_definition(before)
    for index, item in enumerate(items):
        if not (_NUMBER_GIVEN_RE.search(item) or _DEFINING_SIGN_RE.search(item) or (index == 0 and introduced)):
            continue  # neither a number nor a definition: not worth reading
        read = _definition(item)
        if read is None:
            continue
        name, latex, unit, defining = read
        free = _free_names(latex)
        if free is None or name in free:
            continue
        if not free:  # a number the question gives; 0 is an origin or a condition (t = 0, x = 0)
            if _compact(latex) in ('0', '0.0'):
                continue
            if not unit and index == len(items) - 1:
                unit = _unit_after(text[m.end():m.end() + 30])
            numbers.append((name, latex, unit))
            continue
        leading = before if index == 0 else ''
        if unit or not (defining or _introduces_definition(leading)):
            continue
        symbolic.append((name, latex, ''))


def _facts(symbolic: list, numbers: list) -> Facts:
    conflicting: set = set()
    definitions: Dict[str, Tuple[str, str]] = {}
    values: Dict[str, Tuple[str, str]] = {}
    _collect(symbolic, definitions, conflicting)
    _collect(numbers, values, conflicting)
    for name in set(definitions) & set(values):  # a symbol both defined and given a number: ambiguous
        conflicting.add(name)
        definitions.pop(name)
        values.pop(name)
    for name in conflicting:
        definitions.pop(name, None)
        values.pop(name, None)
    return Facts(tuple(sorted((n, v[0]) for n, v in definitions.items())),
                 tuple(sorted((n, v[0], v[1]) for n, v in values.items())), frozenset(conflicting))


def _introduces_definition(before: str) -> bool:
    """Whether the words just before a formula introduce a definition, not a condition."""
    before = before.rstrip()
    if _CONDITION_WORDS_RE.search(before):
        return False
    return bool(_DEFINING_WORDS_RE.search(before))


def _unit_after(text: str) -> str:
    """A unit word written right after a formula (``$m = 2$ kg``), or ''."""
    from ..compare.units import parse_unit
    m = _UNIT_AFTER_RE.match(text)
    if not m:
        return ''
    word = m.group(1).rstrip('.-/')
    if word.lower() in _NOT_UNITS or parse_unit(word) is None:
        return ''
    return word


_ANSWER_LEAD_RE = re.compile(r'^\s*(?:\\text\s*\{\s*|\\mbox\s*\{\s*|\\textrm\s*\{\s*)?(?:where|with|and|for|here|'
                             r'since|using|i\.e\.)\b\s*(?:\}\s*)?[:,]?\s*', re.I)


def answer_definitions(text: str) -> Tuple[Tuple[Tuple[str, str], ...], FrozenSet[str]]:
    """The definitions a located answer states for its own symbols (``\\mu = GM``), and the names it
    defines twice; values with a unit or without a symbol are measurements, not notation."""
    facts = answer_facts(text)
    return facts.definitions, facts.conflicting


@lru_cache(maxsize=256)
def answer_facts(text: str) -> Facts:
    """:func:`answer_definitions` as :class:`Facts`, cached per worker (several reference parts ask)."""
    from .notation import clean, to_latex
    if not text or len(text) > 4000:
        return Facts()
    latex = clean(to_latex(text))
    latex = re.sub(r'\\(?:text|mbox|textrm)\s*\{\s*(?:where|with|and)\s*\}', ',', latex)
    found = []
    for item in _split_items(latex):
        item = _ANSWER_LEAD_RE.sub('', item).strip()
        read = _definition(item) if item else None
        if read is not None:
            found.append(read[:3])
    conflicting: set = set()
    definitions: Dict[str, Tuple[str, str]] = {}
    _collect(found, definitions, conflicting)  # every value counts for a conflict: "mu = GM, mu = 5 kg"
    notation = []
    for name, (value, unit) in definitions.items():
        free = _free_names(value)
        if not unit and free and name not in free:
            notation.append((name, value))
    return Facts(tuple(sorted(notation)), (), frozenset(conflicting))


def substituted(reference, answer, givens: Givens):
    """``(reference, answer, names)`` with the question's definitions substituted on both sides and the
    answer's on the answer (under the module's rules), or None when none applies. SymPy in and out."""
    if reference.free_symbols == answer.free_symbols:
        return None  # a definition helps only where one side writes a symbol the other does not
    question = _expressions(givens.definitions)
    used: List[str] = []
    ref, ans = reference, answer
    if ans.is_Symbol and ans.name in question:
        return None  # "E" for "show that E = <reference>": the defined symbol is no answer
    for _ in range(MAX_SUBSTITUTION_ROUNDS):
        table = {s: e for s in (ref.free_symbols | ans.free_symbols) for n, e in question.items() if s.name == n}
        if not table:
            break
        used.extend(sorted(s.name for s in table))
        ref, ans = ref.xreplace(table), ans.xreplace(table)
    own = _expressions(givens.answer) if {s.name for s in ans.free_symbols} - {s.name for s in ref.free_symbols} \
        else {}
    if ans.is_Symbol and ans.name in own:
        return None
    if own:
        ref_names = {s.name for s in ref.free_symbols}
        table = {}
        for s in ans.free_symbols:
            value = own.get(s.name)
            if value is None or s.name in ref_names:
                continue
            value = value.xreplace({t: question[t.name] for t in value.free_symbols if t.name in question})
            if _states_reference(ref, value):
                return None  # "X = <reference>", then X: a restatement, not an answer
            table[s] = value
        if table:
            used.extend(sorted(s.name for s in table))
            ans = ans.xreplace(table)
    if not used:
        return None
    return ref, ans, tuple(dict.fromkeys(used))


def _states_reference(reference, value) -> bool:
    from ..compare.values import _expressions
    from ..compare.outcome import Options
    try:
        return bool(_expressions(reference, value, Options(eed=False)).strict)
    except Exception:  # no proof either way: treat as a restatement (never accept through it)
        return True


def _expression(latex: str):
    from .latex import read_latex
    return read_latex(latex)[0]


def _expressions(pairs: Tuple[Tuple[str, str], ...]) -> Dict[str, object]:
    out = {}
    for name, latex in pairs:
        expr = _expression(latex)
        if expr is not None:
            out[name] = expr
    return out


def unresolved_conflict(reference, answer, givens: Givens) -> Optional[str]:
    """A name defined twice that only one side uses (so a definition might have made them equal), else None."""
    ref_names = {s.name for s in reference.free_symbols}
    ans_names = {s.name for s in answer.free_symbols}
    for name in sorted(givens.conflicting):
        if (name in ref_names) != (name in ans_names):
            return name
    return None
