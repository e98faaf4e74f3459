"""Reading typed, multi-part answers: type labels, reference parts, and the parts of a response.

UGPhysics and OlympiadBench label each answer with a type (``NV`` numeric, ``EX`` expression,
``EQ`` equation, ``IN`` interval, ``TF`` true/false, ``MC`` multiple choice) and many answers have
several parts. This module turns labels, references and responses into :class:`AnswerPart` lists
and strings; :mod:`evalscope_phys.scoring.answer_types` compares them. Pure string work.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from .extract import boxed_contents, matching_brace, top_level_split

#: the answer type codes, as UGPhysics writes them
TYPE_NAMES = {
    'NV': 'numeric', 'EX': 'expression', 'EQ': 'equation', 'IN': 'interval',
    'TF': 'true_false', 'MC': 'multiple_choice',
}
TYPE_ALIASES = {
    'numerical': 'NV', 'numeric': 'NV', 'number': 'NV', 'expression': 'EX', 'tuple': 'EX',
    'equation': 'EQ', 'interval': 'IN', 'true/false': 'TF', 'truefalse': 'TF', 'boolean': 'TF',
    'multiplechoice': 'MC', 'choice': 'MC',
}
PART_SEPARATORS = (',', ';', '\\quad', '\\qquad', '\\text{and}', '\\text{ and }', '\\\\', ' and ')
MAX_PART_CHARS = 5_000
TEXT_WRAP_RE = re.compile(r'\\(text|textbf|mathrm|mathbf|textrm|mbox|rm)\s*\{([^{}]*)\}')
_ENVIRONMENT_RE = re.compile(r'\\begin\{(\w+\*?)\}.*?\\end\{\1\}', re.S)
_FORMULA_RES = (re.compile(r'\$\$(.+?)\$\$', re.S), re.compile(r'\\\[(.+?)\\\]', re.S),
                re.compile(r'\\\((.+?)\\\)', re.S), re.compile(r'(?<![$\\])\$([^$]+?)\$(?!\$)', re.S))


@dataclass(frozen=True)
class AnswerPart:
    """One part of a reference answer and how to compare it."""

    reference: str
    """LaTeX of the reference part (no ``\\boxed``, no ``$``)."""
    answer_type: str = 'EX'
    """One of :data:`TYPE_NAMES`."""
    unit: str = ''
    """The reference unit when the dataset keeps it apart ('' when none)."""
    tolerance: Optional[float] = None
    """Lenient relative tolerance for this part (None: the engine's default)."""


# --------------------------------------------------------------------------- reading labels

def parse_answer_types(raw: object) -> Tuple[str, ...]:
    """``'NV, EX'`` -> ``('NV', 'EX')``; raises ``ValueError`` when no line is a list of types.

    Datasets carry junk around the codes (``'\\\\\\nMC'``, ``'NV\\n\\nThe final answer is ...'``):
    the first line that is entirely a comma-separated list of known types wins.
    """
    text = str(raw or '')
    for line in text.splitlines():
        cleaned = line.strip().strip('\\').strip()
        if not cleaned:
            continue
        codes = [_type_code(item) for item in cleaned.split(',')]
        if codes and all(codes):
            return tuple(codes)  # type: ignore[arg-type]
    raise ValueError(f'unknown answer type {text[:60]!r}')


def _type_code(item: str) -> Optional[str]:
    word = item.strip().strip('.').strip()
    if word.upper() in TYPE_NAMES:
        return word.upper()
    return TYPE_ALIASES.get(re.sub(r'[\s_-]+', '', word.lower()))


def strip_answer_wrappers(text: str) -> str:
    """The answer inside ``\\boxed{}`` / ``$...$`` / ``\\(...\\)`` (several boxes joined by commas)."""
    text = str(text or '').strip()
    boxes = boxed_contents(text)
    if boxes:
        text = ', '.join(box.strip() for box in boxes)
    text = re.sub(r'\\\(|\\\)|\\\[|\\\]', ' ', text)
    text = text.replace('$', ' ')
    return re.sub(r'\s+', ' ', text).strip()


def split_parts(text: str) -> List[str]:
    """Top-level parts of a list answer (commas inside braces, brackets or a matrix do not split)."""
    environments: List[str] = []

    def hide(match: 're.Match[str]') -> str:
        environments.append(match.group(0))
        return '\x00%d\x00' % (len(environments) - 1)

    masked = _ENVIRONMENT_RE.sub(hide, text.replace('\x00', ''))
    parts = [p.strip() for p in top_level_split(masked, PART_SEPARATORS) if p.strip()]
    return [re.sub('\x00(\\d+)\x00', lambda m: environments[int(m.group(1))], p) for p in parts]


def split_labels(text: object, count: int) -> List[str]:
    """A dataset's per-part units or tolerances (``'A, V'``, ``',1e-2'``, ``'None, None'``) as ``count`` strings.

    Empty and ``None`` entries become ''; one label for several parts is shared; a list of the
    wrong length gives '' for every part (no unit is better than a wrong one).
    """
    raw = '' if text is None else str(text).strip()
    wrapped = re.match(r'\\text\s*\{', raw)
    if wrapped and matching_brace(raw, wrapped.end() - 1) == len(raw) - 1 and ',' in raw:
        raw = raw[wrapped.end():-1]  # '\\text{None, None}': one wrapper round the whole list
    items = [_clean_label(item) for item in top_level_split(raw, (',',))] if raw else ['']
    if len(items) == count:
        return items
    if len(items) == 1:
        return items * count
    return [''] * count


def _clean_label(item: str) -> str:
    item = item.strip().strip('"').strip()
    item = re.sub(r'^\$(.*)\$$', r'\1', item).strip()
    inner = re.fullmatch(r'\\(text|mathrm)\s*\{\s*(.*?)\s*\}', item)
    if inner and inner.group(2).lower() in ('none', ''):
        return ''
    return '' if item.lower() in ('none', 'null', '-') else item


# --------------------------------------------------------------------------- responses

def response_parts(response: str, count: int) -> List[str]:
    """The ``count`` answer texts of a response, relations kept (an equation keeps its left side).

    One box holding a list is split; several boxes are taken as one part each (the last
    ``count``); without boxes, the last formula (or the last line) is the answer.
    """
    boxes = boxed_contents(response or '')
    if count <= 1:
        if boxes:
            return [strip_answer_wrappers(boxes[-1])]
        text = final_text(response or '')
        return [text] if text else []
    if boxes:
        last = split_parts(strip_answer_wrappers(boxes[-1]))
        if len(last) == count or len(boxes) < count:
            return last
        return [strip_answer_wrappers(b) for b in boxes[-count:]]
    return split_parts(final_text(response or ''))


def final_text(response: str) -> str:
    """An unboxed response's answer with its relations kept: the last formula, else the last line."""
    formulas = [m for pattern in _FORMULA_RES for m in pattern.finditer(response)]
    if formulas:
        last = max(formulas, key=lambda m: m.end())
        return strip_answer_wrappers(next(g for g in last.groups() if g is not None))
    lines = [line.strip() for line in response.strip().splitlines() if line.strip()]
    return re.sub(r'^(final answer|answer)\s*[:：]\s*', '', lines[-1], flags=re.I).rstrip('.。') if lines else ''


def build_parts(reference: str, answer_types: Sequence[str], *, multiple: bool = False,
                units: object = None, tolerances: Sequence[Optional[float]] = (),
                tolerance: Optional[float] = None) -> List[AnswerPart]:
    """The typed parts of one reference answer; ``ValueError`` when types and parts disagree.

    The reference is split into parts when it is marked multiple or has several types. One type
    for several parts is shared by all of them; any other count mismatch is a broken record.
    """
    text = strip_answer_wrappers(reference)
    if not text:
        raise ValueError('empty reference answer')
    types = list(answer_types)
    pieces = split_parts(text) if (multiple or len(types) > 1) else [text]
    if len(types) == 1 and len(pieces) > 1:
        types = types * len(pieces)
    if len(pieces) != len(types):
        raise ValueError(f'{len(pieces)} answer parts but {len(types)} answer types')
    unit_list = split_labels(units, len(pieces))
    tolerance_list = list(tolerances) if len(tolerances) == len(pieces) else [tolerance] * len(pieces)
    return [AnswerPart(p, t, u, tol) for p, t, u, tol in zip(pieces, types, unit_list, tolerance_list)]


_NUMBER_RE = re.compile(
    r'^\s*([+-]?\s*(?:\d+(?:\.\d*)?|\.\d+))\s*(?:(?:\\times|\\cdot|\*|x)\s*10\s*\^\s*\{?\s*([+-]?\s*\d+)\s*\}?'
    r'|[eE]([+-]?\d+))?\s*$')


def number_value(text: str) -> Optional[float]:
    """The value of a plain decimal reference (``2.47``, ``3.4 \\times 10^{17}``, ``x_0 = 2.27``), else None."""
    from .extract import right_hand_side
    body = re.sub(r'\\[,;:! ]|~|\{,\}', '', right_hand_side(strip_answer_wrappers(text)))
    m = _NUMBER_RE.match(body)
    if not m:
        return None
    exponent = m.group(2) or m.group(3) or '0'
    try:
        return float(m.group(1).replace(' ', '')) * 10.0 ** int(exponent.replace(' ', ''))
    except (ValueError, OverflowError):
        return None


def absolute_to_relative(reference: str, error: object) -> Optional[float]:
    """A dataset's absolute tolerance (OlympiadBench ``error``) as a relative one at the reference value.

    ``0`` means an exact number (the engine's strict 1e-6); a missing error, or a reference
    that is not a plain number, leaves the engine's default (None).
    """
    try:
        absolute = float(str(error).strip())
    except ValueError:
        return None
    if absolute == 0:
        return 1e-6
    value = number_value(reference)
    if value is None or value == 0:
        return None
    return abs(absolute) / abs(value)
