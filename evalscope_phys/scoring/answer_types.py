"""Answers that are not a single number or expression: equations, intervals, yes/no, choices, lists.

UGPhysics and OlympiadBench label each answer with a type (``NV`` numeric, ``EX`` expression,
``EQ`` equation, ``IN`` interval, ``TF`` true/false, ``MC`` multiple choice) and many answers have
several parts (read by :mod:`evalscope_phys.scoring.answer_parts`). This module compares each part
by its type. It is pure string work: every mathematical comparison (numbers,
expressions, interval end points, the two sides of an equation) goes through
:func:`~evalscope_phys.scoring.engine.score_answer`, so it runs in the engine's limited workers and
nothing here ever evaluates text.

Rules, each chosen to be predictable rather than clever:

* **TF**: the first word of the answer against yes/true/correct and no/false/incorrect (English
  and Chinese).
* **MC**: the set of option letters; ``(B)``, ``\\text{B}``, ``B) 3 m/s`` and ``A, C`` are read.
* **IN**: unions of intervals with matching brackets and end points equal by :func:`score_answer`;
  an inequality (``x < a``) is compared as a relation.
* **EQ**: the same left-hand side -> the right-hand sides are compared as values (units and
  tolerance apply); otherwise ``lhs - rhs`` of both are compared, up to sign (a rearranged or
  swapped equation matches; a rescaled one does not).
* Several parts: ``ordered`` pairs part i with part i, ``unordered`` finds the best assignment;
  the whole answer is correct when every part is.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

from .answer_parts import MAX_PART_CHARS, TEXT_WRAP_RE, AnswerPart, response_parts
from .extract import top_level_split
from .verdict import Verdict

#: other spellings met in datasets (OlympiadBench writes the long names) -> code
#: separators between the parts of a multi-part answer (the engine's list separators)
#: relations an equation or inequality may use (commands match by their whole name)
RELATIONS = (('\\leqslant', '<='), ('\\geqslant', '>='), ('\\leq', '<='), ('\\geq', '>='),
             ('\\le', '<='), ('\\ge', '>='), ('\\lt', '<'), ('\\gt', '>'), ('\\neq', '!='),
             ('\\ne', '!='), ('<', '<'), ('>', '>'), ('=', '='))
TRUE_WORDS = frozenset({'yes', 'true', 'correct', 'right', 't', 'y', '是', '对', '正确', '会', '能', '可以', '成立'})
FALSE_WORDS = frozenset({'no', 'false', 'incorrect', 'wrong', 'f', 'n', '否', '不', '错', '错误', '不会', '不能',
                         '不对', '不是', '不成立', 'not'})
#: option letters a multiple-choice answer may use
CHOICE_LETTERS = 'ABCDEFGHIJ'
#: longest answer text the string rules look at (longer is refused as unscorable, like the engine)
_INFINITY_RE = re.compile(r'^\s*([+-]?)\s*\\infty\s*$')

ValueScorer = Callable[..., Verdict]


# --------------------------------------------------------------------------- one part by type

def _verdict(strict: Optional[bool], reason: str, extracted: Optional[str], started: float,
             lenient: Optional[bool] = None, detail: str = '') -> Verdict:
    return Verdict(eed=None, strict=strict, lenient=strict if lenient is None else lenient, reason=reason,
                   extracted=extracted, seconds=time.perf_counter() - started, detail=detail)


def _plain_words(text: str) -> str:
    for _ in range(3):
        text = TEXT_WRAP_RE.sub(r' \2 ', text)
    text = re.sub(r'\\[a-zA-Z]+', ' ', text)
    return re.sub(r'[{}()\[\]$.,;:!，。：；！"\'`*]', ' ', text).strip().lower()


def truth_value(text: str) -> Optional[bool]:
    """True/False for a yes/no answer's first word (English or Chinese), None if it is neither."""
    words = _plain_words(text).split()
    if not words:
        return None
    first = words[0]
    if first in TRUE_WORDS:
        return True
    if first in FALSE_WORDS:
        return False
    for word in sorted(FALSE_WORDS | TRUE_WORDS, key=len, reverse=True):
        if not word.isascii() and first.startswith(word):
            return word in TRUE_WORDS
    return None


def _score_read_values(read: Callable[[str], Any], reference: str, answer: str, unreadable: str) -> Verdict:
    """Both sides read by ``read`` (None when it cannot) and compared for equality."""
    started = time.perf_counter()
    expected, given = read(reference), read(answer)
    if expected is None:
        return _verdict(None, 'unparseable_reference', answer, started, lenient=None, detail=unreadable)
    if given is None:
        return _verdict(False, 'unparseable_answer' if answer.strip() else 'no_answer', answer, started)
    return _verdict(given == expected, 'equivalent' if given == expected else 'not_equivalent', answer, started)


def score_true_false(reference: str, answer: str) -> Verdict:
    """A yes/no answer against a yes/no reference."""
    return _score_read_values(truth_value, reference, answer, 'not yes/no')


def choice_letters(text: str) -> Optional[frozenset]:
    """The option letters of a multiple-choice answer, or None when it names no option."""
    plain = _plain_words(text).upper()
    plain = re.sub(r'\b(OPTIONS?|CHOICES?|ANSWER|AND|OR)\b|选项|答案|和|或', ' ', plain)
    tokens = plain.split()
    if tokens and all(re.fullmatch(f'[{CHOICE_LETTERS}]+', t) for t in tokens):
        letters = ''.join(tokens)
        if len(set(letters)) == len(letters):
            return frozenset(letters)
    m = re.match(rf'\s*\(?([{CHOICE_LETTERS}])(\)|\.|:|\s|$)', re.sub(r'\\text\s*\{|[{}$]', '', text.upper()))
    return frozenset(m.group(1)) if m else None


def score_choice(reference: str, answer: str) -> Verdict:
    """Option letters against option letters (order and case do not matter)."""
    return _score_read_values(choice_letters, reference, answer, 'no option letter')


def _compact(text: str) -> str:
    text = re.sub(r'\\(left|right|big|Big|bigg|Bigg)(?![a-zA-Z])', '', text)
    text = re.sub(r'\\[,;:! ]|~|\\quad|\\qquad|\\displaystyle', '', text)
    return re.sub(r'\s+', '', text)


def split_relation(text: str) -> Optional[Tuple[str, str, str]]:
    """``(lhs, relation, rhs)`` for text with exactly one top-level relation, relation in ``= < <= > >= !=``."""
    found: List[Tuple[str, str, str]] = []
    for spelling, relation in RELATIONS:
        parts = top_level_split(text, (spelling,))
        if len(parts) > 1:
            found.append((parts[0].strip(), relation, ''.join(parts[1:]).strip()))
            if len(parts) > 2:
                return None
    if len(found) != 1 or not found[0][0] or not found[0][2]:
        return None
    return found[0]


def score_relation(reference: str, answer: str, *, unit: str = '', tolerance: Optional[float] = None,
                   score_value: Optional[ValueScorer] = None, timeout: float = 5.0) -> Verdict:
    """An equation or inequality against a reference relation (see the module docstring)."""
    started = time.perf_counter()
    value = score_value or _engine_score
    if _compact(reference) == _compact(answer):
        return _verdict(True, 'equivalent', answer, started)
    ref = split_relation(reference)
    if ref is None:  # a chain or no relation: compare final values as the engine does
        return value(reference, answer, unit=unit or None, tolerance=tolerance, eed=False, timeout=timeout)
    ans = split_relation(answer)
    if ans is None:
        if ref[1] == '=' and '=' not in answer:  # only the right-hand side was given
            return value(ref[2], answer, unit=unit or None, tolerance=tolerance, eed=False, timeout=timeout)
        return _verdict(False, 'not_equivalent', answer, started, detail='not a single relation')
    ref, ans = _oriented(ref), _oriented(ans)
    if ref[1] != ans[1]:
        return _verdict(False, 'not_equivalent', answer, started, detail='different relation')
    if _compact(ref[0]) == _compact(ans[0]):
        return value(ref[2], ans[2], unit=unit or None, tolerance=tolerance, eed=False, timeout=timeout)
    if ref[1] in ('=', '!=') and _compact(ref[0]) == _compact(ans[2]) and _compact(ref[2]) == _compact(ans[0]):
        return _verdict(True, 'equivalent', answer, started)
    difference = f'\\left({ref[0]}\\right)-\\left({ref[2]}\\right)'
    candidates = [f'\\left({ans[0]}\\right)-\\left({ans[2]}\\right)']
    if ref[1] in ('=', '!='):
        candidates.append(f'\\left({ans[2]}\\right)-\\left({ans[0]}\\right)')
    best: Optional[Verdict] = None
    for candidate in candidates:
        verdict = value(difference, candidate, unit=None, tolerance=tolerance, eed=False, timeout=timeout)
        if not verdict.scored or verdict.strict:
            return _verdict(verdict.strict, verdict.reason, answer, started, lenient=verdict.lenient,
                            detail=verdict.detail)
        if best is None or (verdict.lenient and not best.lenient):
            best = verdict
    assert best is not None
    return _verdict(False, best.reason, answer, started, lenient=best.lenient, detail=best.detail)


def _oriented(relation: Tuple[str, str, str]) -> Tuple[str, str, str]:
    """``a > b`` as ``b < a`` so two inequalities compare by one orientation."""
    lhs, rel, rhs = relation
    flipped = {'>': '<', '>=': '<='}
    return (rhs, flipped[rel], lhs) if rel in flipped else relation


@dataclass(frozen=True)
class Interval:
    """One interval of a union; end points as LaTeX."""

    left_closed: bool
    left: str
    right: str
    right_closed: bool


def parse_intervals(text: str) -> Optional[List[Interval]]:
    """``(a, b] \\cup [c, \\infty)`` -> intervals; None when the text is not a union of intervals."""
    text = re.sub(r'\\(left|right|big|Big|bigl|bigr|Bigl|Bigr)(?![a-zA-Z])', '', text).strip()
    m = re.match(r'^[^()\[\]]*?\\in\s*', text)
    if m:
        text = text[m.end():]
    text = text.replace('\\lbrack', '[').replace('\\rbrack', ']')
    pieces = [p.strip() for p in re.split(r'\\cup|∪|\\bigcup', text)]
    intervals = []
    for piece in pieces:
        if len(piece) < 5 or piece[0] not in '([' or piece[-1] not in ')]':
            return None
        ends = top_level_split(piece[1:-1], (',',))
        if len(ends) != 2 or not all(e.strip() for e in ends):
            return None
        intervals.append(Interval(piece[0] == '[', ends[0].strip(), ends[1].strip(), piece[-1] == ']'))
    return intervals or None


def _end_points_equal(a: str, b: str, value: ValueScorer, unit: str, tolerance: Optional[float],
                      timeout: float) -> Verdict:
    started = time.perf_counter()
    inf_a, inf_b = _INFINITY_RE.match(a), _INFINITY_RE.match(b)
    if inf_a or inf_b:
        same = bool(inf_a and inf_b and (inf_a.group(1) == '-') == (inf_b.group(1) == '-'))
        return _verdict(same, 'equivalent' if same else 'not_equivalent', b, started)
    return value(a, b, unit=unit or None, tolerance=tolerance, eed=False, timeout=timeout)


def score_interval(reference: str, answer: str, *, unit: str = '', tolerance: Optional[float] = None,
                   score_value: Optional[ValueScorer] = None, timeout: float = 5.0) -> Verdict:
    """A union of intervals against the reference's: brackets equal, end points equal by value."""
    started = time.perf_counter()
    value = score_value or _engine_score
    if _compact(reference) == _compact(answer):
        return _verdict(True, 'equivalent', answer, started)
    ref = parse_intervals(reference)
    if ref is None:
        return score_relation(reference, answer, unit=unit, tolerance=tolerance, score_value=value, timeout=timeout)
    ans = parse_intervals(answer)
    if ans is None:
        return _verdict(False, 'unparseable_answer' if answer.strip() else 'no_answer', answer, started,
                        detail='not an interval')
    if len(ref) != len(ans):
        return _verdict(False, 'count_mismatch', answer, started)
    strict = lenient = True
    reasons = []
    for r, a in zip(ref, ans):
        if (r.left_closed, r.right_closed) != (a.left_closed, a.right_closed):
            return _verdict(False, 'not_equivalent', answer, started, detail='different brackets')
        for x, y in ((r.left, a.left), (r.right, a.right)):
            verdict = _end_points_equal(x, y, value, unit, tolerance, timeout)
            if not verdict.scored:
                return _verdict(None, verdict.reason, answer, started, lenient=None, detail=verdict.detail)
            strict, lenient = strict and bool(verdict.strict), lenient and bool(verdict.lenient)
            reasons.append(verdict.reason)
    reason = 'equivalent' if strict else next(
        (r for r in reasons if r not in ('equivalent', 'numeric_match', 'equivalent_numerically')), 'not_equivalent')
    return _verdict(strict, reason, answer, started, lenient=lenient)


def _engine_score(reference: str, answer: str, **options) -> Verdict:
    from .engine import score_answer
    return score_answer(reference, answer, **options)


def score_part(part: AnswerPart, answer: str, *, eed: bool = False, timeout: float = 5.0,
               score_value: Optional[ValueScorer] = None) -> Verdict:
    """One answer text against one reference part, by the part's type."""
    value = score_value or _engine_score
    if len(answer) > MAX_PART_CHARS or len(part.reference) > MAX_PART_CHARS:
        return Verdict(eed=None, strict=None, lenient=None, reason='input_too_large', extracted=None,
                       seconds=0.0, detail='answer part too long')
    kind = part.answer_type
    if kind == 'TF':
        return score_true_false(part.reference, answer)
    if kind == 'MC':
        return score_choice(part.reference, answer)
    if kind == 'IN':
        return score_interval(part.reference, answer, unit=part.unit, tolerance=part.tolerance,
                              score_value=value, timeout=timeout)
    if kind == 'EQ':
        return score_relation(part.reference, answer, unit=part.unit, tolerance=part.tolerance,
                              score_value=value, timeout=timeout)
    verdict = value(part.reference, answer, unit=part.unit or None, tolerance=part.tolerance,
                    eed=eed, timeout=timeout)
    if verdict.reason in ('unparseable_reference', 'unparseable_answer') and _identical(part.reference, answer):
        # an answer the parser cannot read (a term symbol, a matrix) still counts when it is
        # written exactly as the reference
        return Verdict(eed=100.0 if eed else None, strict=True, lenient=True, reason='equivalent',
                       extracted=verdict.extracted, seconds=verdict.seconds, detail='identical text')
    return verdict


def _identical(reference: str, answer: str) -> bool:
    return any(_compact(text) == _compact(reference) for text in [answer] + response_parts(answer, 1))


# --------------------------------------------------------------------------- whole answers

def score_typed_answer(parts: Sequence[AnswerPart], response: str, *, ordered: bool = True,
                       eed: bool = False, timeout: float = 5.0,
                       score_value: Optional[ValueScorer] = None) -> Verdict:
    """A whole response against a reference of one or more typed parts.

    Correct (strict or lenient) when every part is; any unscorable part makes the whole answer
    unscored. ``eed`` is reported only when every part is an expression (the mean over parts).
    """
    started = time.perf_counter()
    if not parts:
        return Verdict(None, None, None, 'unparseable_reference', None, 0.0, 'no reference parts')
    want_eed = eed and all(p.answer_type == 'EX' for p in parts)
    if len(parts) == 1 and parts[0].answer_type in ('NV', 'EX'):
        return score_part(parts[0], response or '', eed=want_eed, timeout=timeout, score_value=score_value)
    answers = response_parts(response or '', len(parts))
    shown = ' ; '.join(answers) or None
    if not answers:
        return Verdict(0.0 if want_eed else None, False, False, 'no_answer', None, time.perf_counter() - started)
    if len(answers) != len(parts):
        return Verdict(0.0 if want_eed else None, False, False, 'count_mismatch', shown,
                       time.perf_counter() - started, f'{len(answers)} answers for {len(parts)} parts')
    pairs = [(i, i) for i in range(len(parts))] if ordered else \
        [(i, j) for i in range(len(parts)) for j in range(len(answers))]
    table = {(i, j): score_part(parts[i], answers[j], eed=want_eed, timeout=timeout, score_value=score_value)
             for i, j in pairs}
    assignment = _best_assignment(table, len(parts), ordered)
    chosen = [table[p] for p in assignment]
    unscored = [v for v in chosen if not v.scored]
    if unscored:
        return Verdict(None, None, None, unscored[0].reason, shown, time.perf_counter() - started, unscored[0].detail)
    strict = all(v.strict for v in chosen)
    lenient = all(v.lenient for v in chosen)
    failing = [v.reason for v in chosen if not v.lenient] or [v.reason for v in chosen if not v.strict]
    reason = failing[0] if failing else 'equivalent'
    eed_value = sum(v.eed or 0.0 for v in chosen) / len(chosen) if want_eed else None
    return Verdict(eed_value, strict, lenient, reason, shown, time.perf_counter() - started)


def _best_assignment(table, n: int, ordered: bool) -> List[Tuple[int, int]]:
    """Part i -> answer j: the identity when ordered, else greedy by (strict, lenient) -- exact enough for n <= 6."""
    if ordered:
        return [(i, i) for i in range(n)]
    ranked = sorted(table, key=lambda p: (not table[p].strict, not table[p].lenient, not table[p].scored, p))
    assignment, rows, cols = [], set(), set()
    for i, j in ranked:
        if i not in rows and j not in cols:
            assignment.append((i, j))
            rows.add(i)
            cols.add(j)
    return sorted(assignment)


