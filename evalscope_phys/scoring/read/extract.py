"""The one extractor: a model response (or a reference) -> an :class:`~.answer.Answer`.

Two steps, both pure string work and linear in the text they see:

1. **Locate** the final answer (:func:`locate`): the last ``\\boxed{}``/``\\fbox{}`` (several boxes are
   kept as several answers), else the text after the last "final answer" phrase, else the last
   display formula (``\\[..\\]``, ``$$..$$``, an ``equation``/``align`` block), else the last inline
   formula, else the whole text when it is short or a bare formula, else its last line. Only the
   last :data:`EXTRACT_WINDOW` characters are examined: final answers are at the end.
2. **Read** what it means (:func:`read_answer`): ``aligned``/``cases`` blocks become their lines,
   ``or`` lists become :class:`~.answer.Alternatives`, ``,``/``;``/``\\quad``/``and`` lists several
   answers (conditions such as ``\\text{for } v \\ll c`` dropped), relations keep their kind and
   direction, ``name = value`` is a definition, ``\\pm`` is two values, brackets make tuples,
   intervals and sets, a trailing unit is split off, words are text.

Unicode and plain-text math (``√``, ``π``, ``v₀``, ``⁻³``, ``≈``, ``sqrt()``, ``**``, ``>=``) are
rewritten to LaTeX first, so everything downstream sees one notation.

The pieces, one job each: :mod:`.notation` (Unicode, plain text, wrappers), :mod:`.locate` (where the
answer is), :mod:`.reading` (blocks and lists), :mod:`.relations` (relations and definitions),
:mod:`.values` (tuples, intervals, ``\\pm``, yes/no), :mod:`.trailing_units`, :mod:`.words`,
:mod:`.labels`. This module is the extractor's face: what callers import.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional

from ..answer import Answer, Collection, Empty, Text, Unreadable
from .labels import labelled_parts
from .locate import (WHOLE_TEXT_MAX_CHARS, final_answer, is_long_prose, is_sentence, locate, sentence_answer,
                     stated_in_a_sentence)
from .notation import clean, to_latex
from .prose_tail import drop_prose_around_value
from .braces import close_reference_groups, repair_braces
from .index_range import join_ranges
from .reading import MAX_ANSWER_CHARS, MAX_ITEMS, environment_rows, has_relation, list_items, read_answer
from .relations import is_name
from .scan import boxed_contents, boxed_spans, matching_brace, top_level_split
from .trailing_units import is_numeric, split_unit
from .words import is_prose

__all__ = ['Extracted', 'MAX_ANSWER_CHARS', 'SOURCES', 'clean', 'extract_answer', 'extract_final_answer', 'is_name',
           'is_numeric', 'is_prose', 'labelled_parts', 'locate', 'read_answer', 'read_reference', 'reference_parts',
           'split_unit', 'to_latex']

SOURCES = ('boxed', 'boxes', 'final_answer_line', 'display', 'inline', 'whole', 'last_line', 'unclosed_box', 'none')


@dataclass(frozen=True)
class Extracted:
    """A located and read final answer."""

    answer: Answer
    source: str
    """Where it came from: one of :data:`SOURCES`."""
    text: str
    """The located answer text (LaTeX, wrappers removed), '' when none."""

    @property
    def empty(self) -> bool:
        return isinstance(self.answer, Empty)


def extract_answer(response: object, expected: Optional[str] = None) -> Extracted:
    """The final answer of a response (or of a bare answer: reading an extracted answer gives it back).

    ``expected`` is a dataset's answer type (``TF``, ``MC``, ``IN``, ``EQ``, ``NV``, ``EX``) when it
    has one: yes/no and option letters are read only when the dataset says so.
    """
    if not isinstance(response, str) or not response.strip():
        return Extracted(Empty(), 'none', '')
    texts, source = final_answer(response)
    if source == 'unclosed_box':  # the model's failure: where its box ends cannot be read
        return Extracted(Unreadable('unclosed_box'), source, '')
    if not texts:
        return Extracted(Empty(), 'none', '')
    texts = [drop_prose_around_value(repair_braces(t)) for t in texts]  # a value is decided on itself, not on words beside it
    if (source in ('final_answer_line', 'last_line') and is_sentence(texts[0])) \
            or (source == 'whole' and stated_in_a_sentence(texts[0])):
        texts = [sentence_answer(texts[0])]
    if len(texts) > 1:
        items = tuple(read_answer(t, expected) for t in texts[-MAX_ITEMS:])
        items = tuple(i for i in items if not isinstance(i, Empty))
        shown = ' ; '.join(clean(t) for t in texts)
        if not items:
            return Extracted(Empty(), 'none', '')
        return Extracted(items[0] if len(items) == 1 else Collection('boxes', items), source, shown)
    answer = read_answer(texts[0], expected)
    return Extracted(answer, source if not isinstance(answer, Empty) else 'none', clean(texts[0]))


extract_final_answer = extract_answer


_DELIMITER_RE = re.compile(r'\$\$|(?<!\\)\$|\\\[|\\\]|\\\(|\\\)')


def reference_parts(text: str) -> List[str]:
    """The texts of a reference's parts as the reader splits them (boxes, then a top-level list):
    datasets that label each part with a type or unit need them one by one."""
    latex = to_latex(str(text or ''))
    boxes = boxed_contents(latex)
    if len(boxes) > 1:
        return [c for c in map(clean, boxes) if c]
    body = clean(boxes[0]) if boxes else clean(_DELIMITER_RE.sub(' ', latex))
    if environment_rows(body) is not None:
        return [body]
    return [c for c in map(clean, join_ranges(list_items(body))) if c] or ([body] if body else [])


def read_reference(text: object, expected: Optional[str] = None) -> Answer:
    """A dataset's reference answer. Unlike a response it is all answer: boxes are its parts, and
    otherwise the whole text is read with its math delimiters removed (``$1$ and $2$``); only a long
    worked solution is searched for its final answer as a response would be."""
    if not isinstance(text, str) or not text.strip():
        return Empty()
    latex = close_reference_groups(to_latex(text))
    if boxed_spans(latex) or '\\\\boxed' in latex or (len(latex) > WHOLE_TEXT_MAX_CHARS and is_long_prose(latex)):
        return extract_answer(latex, expected).answer
    latex = _DELIMITER_RE.sub(' ', latex)
    return _formula_in_text(latex, expected) or read_answer(latex, expected)


_TEXT_GROUP_RE = re.compile(r'^\\(?:text|textrm|mbox)\s*\{')
_DEFINING_CLAUSE_RE = re.compile(r'\\(?:text|textrm|mbox)\s*\{\s*(?:where|with|here)\b', re.I)
#: ``n = [5, 7, 9]`` written as plain text: the values of ``n``, listed
_LISTED_VALUES_RE = re.compile(r'^(?P<name>[^=\[\]]+?)\s*=\s*\[(?P<values>[^\[\]]*)\]\s*$')


def _formula_in_text(latex: str, expected: Optional[str]) -> Optional[Answer]:
    """A reference written wholly inside one ``\\text{}`` group that holds a formula, read as that formula
    (``\\text{(b) : \\mathcal{E} = p c}`` is ``\\mathcal{E} = pc``), or None.

    Why: a dataset's author sometimes wraps the whole answer in ``\\text{}``; read as one value the text
    was ``text_in_expression`` against every answer. Only a content that states a relation, reads as a
    formula and is no prose is taken (``\\text{\\(S\\) commutes with \\(H\\)}`` stays words). A plain-text
    list of three or more numbers under one name (``\\text{n = [5, 7, 9]}``) is the values of that name,
    read as the list ``n = 5, 7, 9`` is; two (``[0, 1]``) could be an interval and stay as written. A
    content with a clause that defines a symbol (``\\text{where } n = \\frac{N}{V}``) is left as written:
    the reader drops such a clause, and it may be what makes an answer in other symbols right (the
    judge's)."""
    text = clean(latex)
    m = _TEXT_GROUP_RE.match(text)
    if not m or matching_brace(text, m.end() - 1) != len(text) - 1:
        return None
    inner = text[m.end():-1].strip()
    if not has_relation(inner) or is_prose(inner) or _DEFINING_CLAUSE_RE.search(inner):
        return None
    listed = _LISTED_VALUES_RE.match(clean(inner))
    if listed:
        values = [v.strip() for v in top_level_split(listed.group('values'), (',',))]
        if len(values) >= 3 and all(v and is_numeric(v) for v in values) and is_name(listed.group('name')):
            inner = '%s = %s' % (listed.group('name').strip(), ', '.join(values))
    read = read_answer(inner, expected)
    return None if isinstance(read, (Text, Unreadable, Empty)) else read
