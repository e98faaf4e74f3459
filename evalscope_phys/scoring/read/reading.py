"""What a located answer means, at the level of its structure: blocks, ``or`` lists, lists of answers.

The reader of the one extractor (:func:`read_answer`): ``aligned``/``cases`` blocks and matrices,
``or`` alternatives, ``,``/``;``/``\\quad``/``and`` lists with side conditions dropped; each item is
then read by :mod:`.relations` and :mod:`.values`.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import List, Optional, Sequence, Tuple

from . import relations
from . import values
from .index_range import is_finite_indices, join_ranges, read_range
from ..answer import Alternatives, Answer, Collection, Empty, Text, Unreadable
from .notation import BACKSLASH_SPACE_RE, clean, clean_and_label, plain_operators, to_latex
from .prose_tail import cut_at_sentence
from .scan import despace, group_at, top_level_split
from .words import is_connective, is_prose, words_of

MAX_ANSWER_CHARS = 10_000
"""A located final answer longer than this is refused as the model's failure (real ones reach 1,600)."""
MAX_ITEMS = 64
"""Parts of one answer (list items, alternatives, matrix entries) beyond this are refused."""
LIST_SEPARATORS = (',', ';', ' and ', '\\quad', '\\qquad', '\\text{and}', '\\text{ and }', '\\text{ and}', '\\text{and }',
                   '\\\\', '\n', '\\mbox{ and }', '\\textrm{ and }')


OR_SEPARATORS = ('\\text{ or }', '\\text{or}', '\\text{ or}', '\\text{or }', '\\mbox{ or }', '\\textrm{ or }',
                 '\\lor', '\\vee', ' or ')


_CONDITION_RE = re.compile(r'^\s*(\\text\s*\{\s*|\\mbox\s*\{\s*|\\textrm\s*\{\s*)?(for|when|if|where|with|since|as|'
                           r'assuming|provided|given|because|which|so|i\.e\.|e\.g\.|approximately|approx)\b', re.I)


_MARKDOWN_BOLD_RE = re.compile(r'\*\*([A-Za-z][A-Za-z :]{0,60}:?)\*\*')


def read_answer(text: str, expected: Optional[str] = None) -> Answer:
    """What a located answer text means (see the module docstring)."""
    text, label = clean_and_label(BACKSLASH_SPACE_RE.sub(r'\\,', despace(to_latex(text))))
    if len(text) > MAX_ANSWER_CHARS:
        return Unreadable('answer_too_large', text[:200])
    text = plain_operators(_MARKDOWN_BOLD_RE.sub(r'\1', text))
    if expected in ('TF', 'MC'):  # read as it stands: no trim follows
        text = clean(text)
    if not text:
        return Empty()
    if len(text) > MAX_ANSWER_CHARS:
        return Unreadable('answer_too_large', text[:200])
    text = drop_alignment(text)
    if expected == 'TF':
        return values.read_truth(text)
    if expected == 'MC':
        return values.read_choice(text)
    answer = read_structure(relations.trim(text), expected, 0)  # the trim cleans it again, bold marks gone
    return replace(answer, label=label) if label and isinstance(answer, Text) else answer


def read_structure(text: str, expected: Optional[str], depth: int) -> Answer:
    """A trimmed piece (:func:`.relations.trim`, done where it was split off) read for its structure."""
    if not text or _SPACING_ARTIFACT_RE.match(text) or is_connective(text):  # "[1mm]", "\text{and}": layout
        return Empty()
    if depth > 8:
        return Unreadable('too_deep', text)
    rows = environment_rows(text)
    if rows is not None:
        if isinstance(rows, Answer.__args__):  # a matrix
            return rows
        return _several([read_structure(relations.trim(r), expected, depth + 1) for r in rows], 'list')
    options = [o for o in top_level_split(text, OR_SEPARATORS) if o.strip()]
    if len(options) > 1 and not is_prose(text.replace('\\text{ or }', ' ')):
        read: List[Answer] = []
        for option in options:  # "21, 16 or 11": three alternatives
            item = read_structure(relations.trim(option), expected, depth + 1)
            read.extend(item.items if isinstance(item, Collection) and item.kind == 'list' else [item])
        return Alternatives(tuple(read[:MAX_ITEMS]), 'or')
    written = [i for i in list_items(text) if i.strip()]
    items = [cut_at_sentence(i) for i in written]  # a sentence after the formula's full stop is no part of it
    if len(items) > 1 and not all(is_prose(i) for i in written):
        read = [read_range(i) or read_structure(relations.trim(i), expected, depth + 1)
                for i in join_ranges(items)]  # n = 0, 1, 2, \dots is one index range
        return _several(read, 'list')
    sentence = relations.claim(text)
    if sentence:  # the words, and the formula exactly as written: n \to \pi^+ + e^- is not n \to \mu^+ + e^-
        return Text(words_of(sentence[0]) + ' ' + re.sub(r'\s+', '', sentence[1]), text)
    if is_prose(text) and not has_relation(text):
        return Text(words_of(text), text)
    # trimmed again: a sentence dropped off the front can bare spacing or a delimiter (``\text{so }\; v = 5``)
    return read_range(text) or relations.read_item(relations.trim(items[0] if items else text), expected, depth)


def _several(items: Sequence[Answer], kind: str) -> Answer:
    kept = [i for i in items if not isinstance(i, Empty)]
    if len(kept) > MAX_ITEMS:
        return Unreadable('too_many_parts')
    if not kept:
        return Empty()
    return kept[0] if len(kept) == 1 else Collection(kind, tuple(kept))


_ENV_RE = re.compile(r'\\begin\s*\{([A-Za-z]+\*?)\}(\s*\{[^{}]*\})?')


_MATRIX_ENVS = frozenset({'pmatrix', 'bmatrix', 'Bmatrix', 'matrix', 'smallmatrix', 'vmatrix', 'Vmatrix'})


def environment_rows(text: str):
    """Lines of an ``aligned``/``cases``/``array`` block, a matrix answer, or None."""
    m = _ENV_RE.search(text)
    if not m:
        return None
    name = m.group(1)
    end = text.rfind('\\end')
    if end < m.end():
        return None
    inner, nested = _mask_environments(text[m.end():end])  # a cases block inside an aligned one is one row
    before, after = text[:m.start()].strip(), re.sub(r'^\\end\s*\{[A-Za-z]+\*?\}', '', text[end:]).strip()
    rows = [r for r in top_level_split(inner, ('\\\\',)) if r.strip()]
    rows = [re.sub(r'^\s*\[[^\]]*\]', '', r) for r in rows]  # \\[1mm]
    bracketed = before.replace('\\left', '').strip() in ('(', '[') and after.replace('\\right', '').strip() in (')', ']')
    if name.rstrip('*') in _MATRIX_ENVS or (name == 'array' and bracketed):
        if name.startswith('v') or name.startswith('V'):
            return Unreadable('determinant', text)
        if (before or after) and not bracketed:
            return None  # a matrix inside an expression or a relation: read as such
        cells = [[c for c in top_level_split(r, ('&',))] for r in rows]
        width = len(cells[0]) if cells else 0
        if not cells or any(len(r) != width for r in cells) or width * len(cells) > MAX_ITEMS:
            return Unreadable('matrix_shape', text)
        items = tuple(relations.read_item(relations.trim(_unmask(c, nested)), None, 1) for r in cells for c in r)
        return Collection('matrix', items, (len(cells), width))
    if name.rstrip('*') == 'cases':
        rows = [top_level_split(r, ('&',))[0] + ('' if len(top_level_split(r, ('&',))) < 2 else '')
                for r in rows]
        lead = before.rstrip()
        if lead.endswith('\\left\\{') or lead.endswith('\\{'):
            lead = lead.rsplit('\\', 1)[0].replace('\\left', '').strip()
        if lead:
            return Unreadable('piecewise', text)
    out = join_continued([_unmask(r.replace('&', ' '), nested) for r in rows])
    if before and not before.endswith('='):
        out = [before] + out
    return out


#: ``840\,\text{keV and } \hbar\omega = 1``: a unit and the "and" after it in one ``\text{}``
_UNIT_AND_RE = re.compile(r'\\(text|mbox|textrm)\s*\{\s*([A-Za-z][A-Za-z/^0-9.-]{0,11})\s+and\s*\}')


def list_items(text: str) -> List[str]:
    """The top-level items of a list answer; an environment (a matrix) is never split inside.

    A unit written in one ``\\text{}`` with the "and" that follows it (``E = 840\\,\\text{keV and } \\hbar\\omega =
    1\\,\\text{keV}``) ends its item there: read whole, it was one chain, ``E = 1\\,\\text{keV}``."""
    text = _UNIT_AND_RE.sub(lambda m: f'\\{m.group(1)}{{{m.group(2)}}}\\text{{ and }}', text)
    masked, blocks = _mask_environments(_THOUSANDS_RE.sub(lambda m: m.group(0).replace(',', ''), text))
    if '\n' in masked or '\\\\' in masked:
        chunks = _LINE_BREAK_RE.split(masked)
        masked = ''.join(join_continued(chunks[::2], chunks[1::2]))
    items = []
    for part in top_level_split(masked, LIST_SEPARATORS):
        part = part.strip()
        part = re.sub(r'^(\\text\s*\{\s*and\s*\}|and\b)\s*', '', part).strip()
        part = drop_line_skip(part)
        if not part or _is_condition(part) or _SPACING_ARTIFACT_RE.match(part):
            continue
        items.append(_unmask(part, blocks))
    return items


_LINE_BREAK_RE = re.compile(r'(\n|\\\\(?:\s*\[[^\]]*\])?)')
_CHAIN_NEXT_RE = re.compile(r'^\s*(=|\\approx(?![A-Za-z])|\\simeq(?![A-Za-z]))')
_SUM_NEXT_RE = re.compile(r'^\s*\+')
_SUM_MINUS_RE = re.compile(r'^\s*-(?!\s*\d)')


def join_continued(lines: Sequence[str], breaks: Sequence[str] = ()) -> List[str]:
    """Lines of one answer with the lines that continue the one before joined to it: a line that opens
    with ``=``/``\\approx`` is the next link of a chain (``\\Delta x_2 = \\frac{2\\pi I}{\\omega M}``, then
    ``= \\frac{2\\pi I\\sqrt{m_1m_2}}{\\sqrt{k}M^{3/2}}``), one that opens with ``+`` the next term of a sum
    (up to its first list separator: ``+ mgb\\cos\\theta,\\quad \\ddot\\theta = \\ldots`` ends the sum, then a new
    item), and one that opens with ``-`` too once such a sum runs over lines or after a bare new line in the
    source (a space in LaTeX) that follows a relation. With ``breaks`` (the text between
    the lines) the lines and the breaks kept come back interleaved, as the text was.

    Why: a long result wrapped over lines was read as several answers (``count_mismatch``), or its
    first line alone as the answer; a new line that opens with a value (``-2``) still starts an item."""
    out: List[str] = [lines[0]] if lines else []
    in_sum = False
    for k, line in enumerate(lines[1:]):
        # "+ b = c" is an equation of its own; "+ b, \quad c = d" ends the sum before the next item
        wrapped = k < len(breaks) and breaks[k] == '\n' and has_relation(out[-1])  # a source new line is a space
        term = bool(_SUM_NEXT_RE.match(line) or ((in_sum or wrapped) and _SUM_MINUS_RE.match(line))) \
            and not has_relation(top_level_split(line.lstrip()[1:], LIST_SEPARATORS)[0])
        if k < len(breaks) and _wrapped_factor(out[-1], breaks[k], line):
            out[-1] = out[-1] + ' ' + line
            continue
        if out[-1].strip() and (term or _CHAIN_NEXT_RE.match(line)):
            out[-1] = out[-1] + ' ' + line
            in_sum = term
            continue
        in_sum = False
        if breaks:
            out.append(breaks[k])
        out.append(line)
    return out


_FACTOR_NEXT_RE = re.compile(r'^\s*\\(cdot|times|(?P<factor>sin|cos|tan|exp|sinh|cosh|ln|log|left[(\[]|Bigl|bigl))'
                             r'(?![A-Za-z])')
_FACTOR_END_RE = re.compile(r'[)\]}A-Za-z]\s*$')


def _wrapped_factor(before: str, newline: str, line: str) -> bool:
    """Whether ``line`` is the next factor of the formula ``before`` wrapped in the source: a bare new line
    (no ``\\\\``), a line stating no relation of its own that opens with ``\\cdot``/``\\times``, or with a
    function or a bracket after a formula ending in a factor (a bracket, a letter; never a number, a
    space or words, which may end an item).

    Why: a new line in LaTeX is a space; ``\\sqrt{\\frac{8}{L^3}}\\sin(\\frac{\\pi x}{L})`` wrapped before the
    next ``\\sin(\\frac{\\pi y}{L})`` was read as two answers (``count_mismatch``). A rendered break (``\\\\``), a
    line after a separator and a line with its own ``=`` still start new items."""
    m = _FACTOR_NEXT_RE.match(line)
    if newline != '\n' or m is None or has_relation(line) or not has_relation(before):
        return False
    return not m.group('factor') or bool(_FACTOR_END_RE.search(before)) and not _TEXT_END_RE.search(before)


_TEXT_END_RE = re.compile(r'(\\quad|\\qquad|\\text\s*\{[^{}]*\}|\\[,;:!])\s*$')


#: ``[1mm]`` left of a ``\\\\[1mm]`` line break, an ``\\end{cases}`` whose block was split, a lone ``\\Rightarrow``
#: between the links of a chain: layout, not an answer
_SPACING_ARTIFACT_RE = re.compile(r'^(\[\s*-?\d*\.?\d+\s*(mm|cm|pt|em|ex|in)\s*\]|\\end\s*\{[A-Za-z]+\*?\}|'
                                  r'\\(Longrightarrow|Rightarrow|implies|therefore|iff|Leftrightarrow))$')


_LINE_SKIP_RE = re.compile(r'^\[\s*-?\d*\.?\d+\s*(mm|cm|pt|em|ex|in)\s*\]\s*(?=\S)')


def drop_line_skip(row: str) -> str:
    """A row of a block without the skip of the line break before it (``\\\\[1mm] b = 2``: ``b = 2``)."""
    return _LINE_SKIP_RE.sub('', row.strip())


#: ``12,000,023`` (digit groups of three after commas, no spaces) is one number, not three answers
_THOUSANDS_RE = re.compile(r'(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d.,])')


_BLOCK_RE = re.compile(r'\\begin\s*\{([A-Za-z]+\*?)\}.*?\\end\s*\{\1\}', re.S)


def _mask_environments(text: str) -> Tuple[str, List[str]]:
    """Environments replaced by placeholders, so no separator inside a matrix splits the list."""
    blocks: List[str] = []
    if '\\begin' not in text:
        return text, blocks

    def hide(match: 're.Match[str]') -> str:
        blocks.append(match.group(0))
        return '\x00%d\x00' % (len(blocks) - 1)
    return _BLOCK_RE.sub(hide, text.replace('\x00', '')), blocks


def _unmask(text: str, blocks: List[str]) -> str:
    return re.sub('\x00(\\d+)\x00', lambda m: blocks[int(m.group(1))], text) if blocks else text


_ALIGNMENT_RE = re.compile(r'(?<!\\)&')


def drop_alignment(text: str) -> str:
    """Alignment marks outside any environment (``\\omega & = \\sqrt{..}``, copied out of an
    ``aligned`` block) are layout, not meaning; inside a matrix or array they separate cells and stay."""
    if '&' not in text:
        return text
    masked, blocks = _mask_environments(text)
    return _unmask(_ALIGNMENT_RE.sub(' ', masked), blocks)


def _is_condition(part: str) -> bool:
    """A side condition rather than an answer: ``\\text{for } v \\ll c``, ``(a < r < b)``, the indices an
    equation holds for (``(i = 1, 2, 3)``, ``(j = 1, \\ldots, N)``; see :func:`.index_range.is_finite_indices`)."""
    if _CONDITION_RE.match(part):
        return True
    if is_finite_indices(part):
        return True
    group = group_at(part, 0) if part.startswith('(') else None
    if group and group[1] == len(part) and has_relation(part[1:-1]) and '=' not in part:
        return True
    return False


def has_relation(text: str) -> bool:
    return len(top_level_split(text, tuple(relations.RELATIONS))) > 1
