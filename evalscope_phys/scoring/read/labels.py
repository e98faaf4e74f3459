"""Labels, the one home: the labelled parts of a multi-part answer (``(a) ... (b) ...``, ``\\text{(i)}``,
``Part 2``, ``Stage 1``), the key a label stands for, and a dataset's empty per-part labels (``None``)."""
from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from .locate import final_answer
from .scan import brace_pairs, matching_brace, strip_leading, strip_trailing, top_level_split_keeping

_ROMAN = ('i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii', 'viii', 'ix', 'x')


_KEY = r'[a-z]|[ivx]{1,4}|[1-9]'
_PART_LABEL_RE = re.compile(
    r'(?:^|(?<=\\\\)|(?<=\n)|(?<=&)|(?<=;)|(?<=,)|(?<=\\quad)|(?<=\\qquad)|(?<=\]))'
    r'(?P<lead>(?:\s|&|\\[,;:! ]|\\quad|\\qquad)*)'
    r'(?:\\(?:text(?:bf)?|mbox|textrm)\s*\{\s*(?:\((?P<inner>' + _KEY + r')\)|(?:Part|Stage)\s+\(?(?P<named_inner>' + _KEY
    + r')\)?\s*[:.]?)(?P<rest>[^{}]*)\}'
    r'|(?:Part|Stage)\s+\(?(?P<named>' + _KEY + r')\)?\s*[:.]'
    r'|\((?P<bare>' + _KEY + r')\))')


def _label_order(label: str, kind: str) -> int:
    if kind == 'roman':
        return _ROMAN.index(label) if label in _ROMAN else -1
    if kind == 'digit':
        return int(label) - 1 if label.isdigit() else -1
    return ord(label) - ord('a') if len(label) == 1 and label.isalpha() else -1


def labelled_parts(response: str) -> List[str]:
    """The parts of a labelled multi-part answer, in label order: ``(a) ... (b) ...`` -> two texts."""
    return [text for _, text in sorted(labelled_groups(response))]


def labelled_groups(response: str) -> List[Tuple[int, str]]:
    """(label order, text) of each labelled part, in the order written: ``(b) y (a) x`` -> [(1, y), (0, x)].

    Labels are ``(a)``/``(i)``/``(1)``, ``Part 2``/``Stage 1:`` (bare or in ``\\text{}``/``\\textbf{}``)
    where a part can start (text start, a new ``\\\\`` line, a ``&`` column, after ``;``/``,``/
    ``\\quad``). Either every label of the first one's kind appears once and together they are the
    first k of that kind (any order: a label is a label), or they are taken in sequence from the first
    one: a ``(r)`` in ``E(r)``, or a nested ``(i)`` inside part (b), does not split. Text before the
    first label is dropped. Fewer than two labels: [].
    """
    if not isinstance(response, str) or not response.strip():
        return []
    texts, _ = final_answer(response)
    if not texts:
        return []
    located = ' \\\\ '.join(texts)
    text = _lettered_truths(_hoist_labels(re.sub(r'^\s*(\$\$|\$|\\\[|\\\()|(\$\$|\$|\\\]|\\\))\s*$', '', located.strip())))
    found = []
    for m in _PART_LABEL_RE.finditer(text):
        label = m.group('inner') or m.group('named_inner') or m.group('named') or m.group('bare')
        found.append((m.start() + len(m.group('lead')), m.end(), label, m.group('rest')))
    if len(found) < 2:
        return []
    first = found[0][2]
    kind = 'roman' if first == 'i' or (first in _ROMAN and len(first) > 1) else 'digit' if first.isdigit() \
        else 'letter'
    orders = [_label_order(label, kind) for _, _, label, _ in found]
    if -1 not in orders and sorted(orders) == list(range(len(orders))):
        chosen = [(start, end, rest, order) for (start, end, _, rest), order in zip(found, orders)]
    else:
        if _label_order(first, kind) != 0:
            return []
        chosen, expected = [], 0
        for (start, end, _, rest), order in zip(found, orders):
            if order == expected:
                chosen.append((start, end, rest, order))
                expected += 1
    if len(chosen) < 2:
        return []
    parts = []
    for index, (start, end, rest, order) in enumerate(chosen):
        stop = chosen[index + 1][0] if index + 1 < len(chosen) else len(text)
        body = text[end:stop]
        if rest and rest.strip():
            body = '\\text{%s}%s' % (rest, body)
        parts.append((order, _strip_part_edges(body)))
    return parts


def label_key(label: object) -> str:
    """The part a label names, as one key: ``(a)``, ``a)``, ``\\text{(A)}``, ``Part a`` -> ``'a'``; ``(ii)``
    -> ``'ii'``; ``2`` -> ``'2'``; '' when it is no label."""
    text = clean_label(str(label or '')).lower()
    text = re.sub(r'\\text(?:bf)?\s*\{([^{}]*)\}', r'\1', text)
    text = re.sub(r'^(?:part|stage)\s+', '', text.strip())
    m = re.fullmatch(r'\(?\s*(' + _KEY + r')\s*[).:]?', text.strip())
    return m.group(1) if m else ''


_LABEL_SEGMENT = r'\s*(?:\\(?:text(?:bf)?|mbox|textrm)\s*\{\s*)?(?:(?:Part|Stage)\s+)?\(\s*(?:%s)\s*\)\s*[:.]?\s*\}?\s*'
#: a part's label alone, or a part's and its numbered sub-part's (``\\text{(b)(i)}``, ``(b)\\text{(ii)}``, ``(a)(2)``;
#: never two letters, ``(a)(b)``, a product)
_LABEL_ONLY_RE = re.compile(_LABEL_SEGMENT % _KEY + '(?:%s)?' % (_LABEL_SEGMENT % r'[ivx]{1,4}|[1-9]'))


def is_label(text: str) -> bool:
    """Whether a piece of text is only a part's label (``(b)``, ``\\text{(ii)}``, ``\\text{(b)(i)}``), no answer."""
    return bool(_LABEL_ONLY_RE.fullmatch(text or ''))


def label_orders(keys: Sequence[str]) -> Optional[List[int]]:
    """The place (0, 1, ...) each label key names, read as one kind (letters, roman numerals when every
    key is one, digits); None when a key is of another kind."""
    kind = 'roman' if all(k in _ROMAN for k in keys) and any(k in ('i', 'ii') for k in keys) \
        else 'digit' if all(k.isdigit() for k in keys) else 'letter'
    orders = [_label_order(k, kind) for k in keys]
    return None if -1 in orders else orders


def clean_label(item: str) -> str:
    """A dataset's per-part label (unit, error, part name) without wrappers; '' for none (``None``,
    ``\\text{None}``, ``null``, ``-``)."""
    item = re.sub(r'^(\\[,;: ]|~|\s)+', '', item).strip().strip('"').strip()
    item = re.sub(r'^\$(.*)\$$', r'\1', item).strip()
    inner = re.fullmatch(r'\\(text|mathrm)\s*\{\s*(.*?)\s*\}', item)
    if inner and inner.group(2).lower() in ('none', ''):
        return ''
    return '' if item.lower() in ('none', 'null', '-') else item


_TEXT_OPEN_RE = re.compile(r'\\text(?:bf)?\s*\{')


_INNER_LABEL_RE = re.compile(r'(?:^|(?<=[,;])|(?<=\\quad)|(?<=\\qquad))\s*\(([a-z]|[ivx]{1,4}|[1-9])\)')


_SEPARATOR_TAIL_RE = re.compile(r'(?:\s|[,;]|\\q?quad(?![A-Za-z]))+$')


def _hoist_labels(text: str) -> str:
    """Labels inside one text group (``\\text{(a) yes, (b) no}``) brought out, each on a new line."""
    out, pos = [], 0
    pairs = brace_pairs(text)
    for m in _TEXT_OPEN_RE.finditer(text):
        if m.start() < pos:
            continue
        close = pairs.get(m.end() - 1, -1)
        if close < 0:
            break
        content = text[m.end():close]
        cuts = list(_INNER_LABEL_RE.finditer(content))
        if not cuts:
            continue
        out.append(text[pos:m.start()])
        before = _SEPARATOR_TAIL_RE.sub('', content[:cuts[0].start()])  # " m/s, \quad": the unit, not the comma
        if before.strip():
            out.append('\\text{%s}' % before)
        for index, cut in enumerate(cuts):
            stop = cuts[index + 1].start() if index + 1 < len(cuts) else len(content)
            piece = strip_trailing(content[cut.end():stop])
            if re.fullmatch(r'\s*[+-]?\d+(\.\d+)?\s*', piece):
                out.append('\n(%s) %s' % (cut.group(1), piece.strip()))
            else:
                out.append('\n(%s)' % cut.group(1) + ('\\text{%s}' % piece if piece.strip() else ''))
        pos = close + 1
    out.append(text[pos:])
    return ''.join(out)


_ITEM_SEPARATORS = (',', ';', '\\quad', '\\qquad', '\\\\', '\n')
#: one item of a list of lettered truth values: ``a\ T``, ``b: F``, ``c) True``, ``\text{d. False}``
_TRUTH_ITEM_RE = re.compile(
    r'(?P<lead>(?:\s|\\[,;:! ]|\\q?quad(?![A-Za-z]))*)(?P<open>\\text(?:bf)?\s*\{\s*)?(?P<letter>[a-z])'
    r'(?P<gap>(?:\s|\\[,;:! ]|[:).]|\\quad(?![A-Za-z]))+)(?P<open2>\\text(?:bf)?\s*\{\s*)?'
    r'(?P<truth>T|F|True|False|TRUE|FALSE|true|false)\s*(?:\}\s*){0,2}')


def _lettered_truths(text: str) -> str:
    """A list whose every item is a letter and a truth value, the letters ``a, b, c, ...`` in order
    (``a\\ T,\\quad b\\ F``, ``a: T \\\\ b: F``): the letters are the parts' labels, ``(a)\\ T, (b)\\ F``.

    Why: a letter beside ``T`` or ``F`` is otherwise read as a product (``a`` times ``T``) and every
    part of a true/false problem is rejected, the right ones too. Only a whole list of at least two
    such items, lettered from ``a`` in order, is read so; anything else in it keeps its reading."""
    pieces, found = top_level_split_keeping(text, _ITEM_SEPARATORS)
    items = [(i, item) for i, item in enumerate(pieces) if item.strip() and not re.fullmatch(r'(?:\s|\\q?quad)*', item)]
    if len(items) < 2:
        return text
    matches = [_TRUTH_ITEM_RE.fullmatch(item) for _, item in items]
    if not all(matches) or [m.group('letter') for m in matches] != [chr(ord('a') + k) for k in range(len(items))]:
        return text
    for (index, _), m in zip(items, matches):
        pieces[index] = '%s(%s) %s' % (m.group('lead'), m.group('letter'), m.group('truth'))
    return ''.join(p + (found[k] if k < len(found) else '') for k, p in enumerate(pieces))


def _strip_part_edges(text: str) -> str:
    """A part's text without the separators around it (``&``, ``\\\\[1mm]``, ``;``, ``\\quad``)."""
    text = strip_leading(text).lstrip('&: ')
    previous = None
    while previous != text:
        previous = text
        text = strip_trailing(text, '&').rstrip()
        text = re.sub(r'\\\\\s*(\[[^\]]*\])?$', '', text).rstrip()
        text = _strip_unopened_end(text)
    return text.strip()


_TRAILING_END_RE = re.compile(r'\\end\s*\{([a-zA-Z*]+)\}$')


def _strip_unopened_end(text: str) -> str:
    """``text`` without a trailing ``\\end{aligned}`` of the block the part was cut out of; an ``\\end{cases}``
    that closes the part's own ``cases`` block is the answer's and stays."""
    m = _TRAILING_END_RE.search(text)
    if not m:
        return text
    name = re.escape(m.group(1))
    opened = len(re.findall(r'\\begin\s*\{%s\}' % name, text))
    closed = len(re.findall(r'\\end\s*\{%s\}' % name, text))
    return text[:m.start()].rstrip() if closed > opened else text
