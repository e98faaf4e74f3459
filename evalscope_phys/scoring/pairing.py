"""The pairing stage: which pieces of a response answer which reference part, one outcome per part.

Every multi-part caller goes through here (``score_answer`` with several references, so the
``physics_yale``, ``ugphysics``, ``olympiadbench``, ``physreason``, ... adapters alike). It runs in
the scoring worker, after the answer is located and read, before each pair is compared:

1. **Pieces.** The response's labelled parts (:func:`.labels.labelled_groups`: ``(a)``, ``(ii)``,
   ``Part 2``, ``Stage 1``), each read on its own, and the final answer's items (boxes, list items,
   aligned and table rows), in the order written.
2. **By label** (``matched_by='label'``). When the response labels exactly as many parts as there
   are references, or the references carry labels of their own, a labelled piece is compared only
   with the part of its label: swapped labels are wrong, never re-paired by value.
3. **By content** (``matched_by='content'``). Otherwise every (part, item) pair is compared and the
   items are assigned one to one, maximising (strictly equal, leniently equal, same left-hand-side
   name, paired at all) in that order of weight. For ordered parts with as many unnamed answers as
   parts, the places pair them; with more or fewer, the assignment keeps the written
   order (:func:`ordered_assignment`, exact dynamic programming): an unlabelled, unnamed value is
   identified only by its place, so ``2, 1`` does not answer ``1, 2``; a merged line, an extra basis
   line or a table only shifts the places. Items naming a part's quantity on the left pair with it
   first, in any order (the name is the model's own label). Unordered parts use the optimal
   assignment of :mod:`.matching`. The response's own labels, when they do not pair the parts, only
   break ties (the item under ``(a)`` answers the first of two parts alike) and bound the segments.
4. **Segments.** An item left unpaired joins the part whose quantity it names, or, unnamed, the part
   of the nearest paired item before it, so the part is compared with all it says: a derivation step, a definition or a
   condition beside the answer is allowed by the comparator's several-values rules, a second
   candidate makes the part ``count_mismatch``. One item never answers two parts, so two pieces
   cannot both match one ``= 0`` reference, and names are compared (``y = 0`` is no ``x = 0``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Sequence, Tuple

from .answer import Alternatives, Answer, Collection, Definition, Empty, Relation, Text, Unreadable, Value, describe
from .compare.matching import best_assignment
from .compare.outcome import Options, Outcome, ReferenceUnreadable, rejected
from .compare.quantity_names import name_key, same_family, same_letter, same_quantity_name
from .read.index_range import is_range

MATCHED_BY = ('single', 'label', 'content', 'whole')
"""How a multi-part response was paired: one reference, by labels, by content, or not at all (unscored)."""
MAX_PAIRS = 120
"""Comparisons made to pair one response (parts x items); beyond it, only pairs near the written
order are compared (cost: each comparison may read an expression)."""

WEIGHT_STRICT, WEIGHT_LENIENT, WEIGHT_NAME, WEIGHT_PAIRED = 8.0, 4.0, 2.0, 1.0
WEIGHT_LABEL_PLACE = 1e-3
"""An item under the response's label ``(a)`` beside the first part: a tie-break only, far below the
smallest step of the other weights (a quarter), so content always decides first."""


@dataclass(frozen=True)
class Piece:
    """One piece of the response: what it says and the label it was written under ('' for none)."""

    answer: Answer
    label: str = ''


@dataclass(frozen=True)
class Pairing:
    """One outcome per reference part (None: the reference part is unreadable) and how they were paired."""

    parts: Tuple[Optional[Outcome], ...]
    matched_by: str
    unreadable: Tuple[str, ...] = ()
    """Why each unreadable reference part is unreadable ('' for the readable ones)."""


def flatten(answer: Answer) -> List[Answer]:
    """The items of a final answer: nested lists and boxes opened, objects (tuples, sets) kept whole."""
    if isinstance(answer, Collection) and answer.kind in ('list', 'boxes'):
        return [item for inner in answer.items for item in flatten(inner)]
    return [] if isinstance(answer, Empty) else [answer]


def response_pieces(response: str, expected: Optional[str], answer: Optional[Answer] = None
                    ) -> Tuple[List[Piece], Dict[str, Answer]]:
    """(the items of the final answer in the order written; label -> the reading of that labelled part).
    ``answer`` is the response's final answer when the caller has read it already."""
    from .read.extract import extract_answer
    from .read.labels import labelled_groups
    groups = {str(order): extract_answer(text, expected).answer for order, text in labelled_groups(response)}
    tabled = _table_pieces(response, expected)
    if tabled is not None:
        return tabled, groups
    if answer is None:
        answer = extract_answer(response, expected).answer
    items = flatten(answer)
    if len(groups) > len(items):  # an item spans two labels (\text{ cm/s, \quad (b) } 12): the labels cut it
        return labelled_pieces(groups), groups
    return [Piece(item) for item in items], groups


def labelled_pieces(groups: Dict[str, Answer]) -> List[Piece]:
    """The items of each labelled part, labelled, in label order."""
    return [Piece(item, key) for key in sorted(groups, key=int) for item in flatten(groups[key])]


_TABLE_RE = re.compile(r'\\begin\{(array|tabular)\}\s*(?:\{[^{}]*\})?(.*?)\\end\{\1\}', re.S)


def _table_pieces(response: str, expected: Optional[str]) -> Optional[List[Piece]]:
    """A final answer holding a table (``array``/``tabular``): the items around it and its cells, row by
    row. A header row (no digit in any cell) names the columns and a leading number labels its row
    (``25 & \\frac{3}{2}R``: the value at 25 K), so neither is an answer; in a table with no digit at all
    (``\\mu^+ \\to e^+ + \\gamma & \\text{violates ...}``) every row is one answer, its cells read together.
    None without a table."""
    from .read.locate import final_answer
    from .read.reading import read_answer
    from .read.trailing_units import is_numeric
    texts, _ = final_answer(response) if isinstance(response, str) else ([], '')
    if not any(_TABLE_RE.search(t) for t in texts):
        return None
    pieces: List[Piece] = []
    for text in texts:
        position = 0
        for m in _TABLE_RE.finditer(text):
            pieces.extend(Piece(i) for i in flatten(read_answer(text[position:m.start()], expected)))
            rows = _table_rows(m.group(2))
            if not any(re.search(r'\d', c) for cells, _ in rows for c in cells):
                rows = [([' '.join(c for c in cells if c)], True) for cells, _ in rows]  # a table of words: rows
            for cells, joined in rows:
                if joined:  # a row written "left & = & right": one relation, or one value named
                    pieces.extend(Piece(i) for c in cells for i in flatten(read_answer(c, expected)))
                    continue
                if not any(re.search(r'\d', c) for c in cells):
                    continue
                if len(cells) > 1 and is_numeric(cells[0]):
                    cells = cells[1:]
                pieces.extend(Piece(i) for c in cells if c for i in flatten(read_answer(c, expected)))
            position = m.end()
        pieces.extend(Piece(i) for i in flatten(read_answer(text[position:], expected)))
    return pieces


_RELATION_CELL_RE = re.compile(r'^(=|:|\\approx|\\simeq|\\sim|\\equiv|\\propto|<|>|\\le|\\ge|\\leq|\\geq|\\ll|\\gg|'
                               r'\\to|\\rightarrow|\\longrightarrow)$')


def _table_rows(body: str) -> List[Tuple[List[str], bool]]:
    """(the cells, whether they were joined) of each row of a table's body; a row whose second cell is
    only a relation sign (``\\begin{array}{rcl} E &=& mc^2``, ``\\mbox{H} & : & {}^2S_{1/2}``) as one
    cell: its text joined.

    Why: such an array aligns one relation per row on its sign; read cell by cell, ``E``, ``=`` and
    ``mc^2`` were three answers (and a row with no digit a header). A row opening with the sign
    (``& = & b``) continues the relation of the row before. A ``:`` cell names the row by what
    stands left of it (an element, a case), so the row is the value right of it, as a leading number
    labels its row."""
    from .read.reading import drop_line_skip
    rows: List[Tuple[List[str], bool]] = []
    for row in re.split(r'\\\\', body):
        cells = [c.strip() for c in drop_line_skip(row).replace('\\hline', ' ').split('&')]
        if len(cells) >= 3 and _RELATION_CELL_RE.match(cells[1]):
            right = ' '.join(c for c in cells[2:] if c)
            if cells[1] == ':':
                rows.append(([right] if right else [], True))
            elif not cells[0] and rows and rows[-1][1] and rows[-1][0]:
                rows[-1] = (['%s %s %s' % (rows[-1][0][-1], cells[1], right)], True)
            else:
                rows.append((['%s %s %s' % (cells[0], cells[1], right)], True))
            continue
        rows.append((cells, False))
    return rows


def pair(references: Sequence[Answer], pieces: List[Piece], groups: Dict[str, Answer], options: Options,
         ordered: bool, labels: Sequence[str] = (), written: Sequence[str] = ()) -> Pairing:
    """Each reference part's outcome against the pieces that answer it (see the module docstring).

    ``written`` is each reference part's text as the dataset wrote it (a name in words on its left,
    ``\\text{Length rate} = R\\omega``, is not read into the answer but still says what the part is).

    ``ordered`` is about the parts; a part's own list (``V_c = 3b, p_c = \\ldots``) compares as one answer does."""
    from .compare.answers import compare, name_of
    options = replace(options, ordered=False)
    if not any(isinstance(r, Unreadable) and r.why == 'piecewise' for r in references):
        pieces = [b for p in pieces for b in _branch_pieces(p)]
    pieces = _pm_pieces(references, pieces, options)
    n = len(references)
    refs_labels = _reference_labels(labels, n, groups)
    if refs_labels is not None and len(set(refs_labels)) == n and set(refs_labels) <= set(groups):
        outcomes, why = [], []
        for reference, label in zip(references, refs_labels):
            outcome, unreadable = _compare(compare, reference, groups[label], options)
            outcomes.append(outcome if outcome is None else replace(outcome, answer=describe(groups[label])))
            why.append(unreadable)
        return Pairing(tuple(outcomes), 'label', tuple(why))
    if refs_labels is not None:  # the dataset's labels, several parts under one: only that label's items
        pieces = labelled_pieces(groups)
    if refs_labels is None and groups:  # the response's labels do not pair the parts, but bound its items
        places = _label_places(pieces, groups)
        pieces = [replace(p, label=str(places[j])) if j in places else p for j, p in enumerate(pieces)]
    formulas = [p for p in pieces if not isinstance(p.answer, Text)]
    if ordered and refs_labels is None and len(formulas) == n:
        in_place = [_compare(compare, r, p.answer, options) for r, p in zip(references, formulas)]
        if all(o is not None and o.strict for o, _ in in_place):  # every place right: nothing to pair (cost)
            return Pairing(tuple(replace(o, answer=describe(p.answer)) for (o, _), p in zip(in_place, formulas)),
                           'content', ('',) * n)
    rows, owner = sub_parts(references)
    row_labels = None if refs_labels is None else [refs_labels[i] for i in owner]
    # as many unnamed answers as ordered parts: the places pair them, no comparison is needed to pair
    by_place = ordered and refs_labels is None and len(formulas) == len(rows) and \
        not any(name_of(p.answer) for p in formulas)
    at_label = frozenset((row, j) for row, part in enumerate(owner) for j, p in enumerate(pieces)
                         if refs_labels is None and p.label == str(part))
    table, row_unreadable, row_seen = _table(rows, pieces, row_labels, options, names_only=by_place,
                                             at_label=at_label)
    chosen = _assign(table, list(range(len(rows))), pieces, ordered, by_place)
    row_segments, row_candidates = _segments(chosen, rows, pieces, named_across_labels=refs_labels is None)
    segments, candidates, unreadable, seen = _merge_rows(owner, n, row_segments, row_candidates, row_unreadable,
                                                        row_seen)
    outcomes: List[Optional[Outcome]] = []
    for i, reference in enumerate(references):
        if unreadable[i]:
            outcomes.append(None)
            continue
        items = segments.get(i, [])
        if not items:
            outcomes.append(rejected('no_answer', 'no answer for this part'))
            continue
        if candidates.get(i):
            rivals = ', '.join(describe(pieces[j].answer) for j in candidates[i])
            outcomes.append(replace(rejected('count_mismatch', f'another candidate beside the parts asked: {rivals}'),
                                    answer=describe(pieces[items[0]].answer)))
            continue
        answer = pieces[items[0]].answer if len(items) == 1 else \
            Collection('list', tuple(pieces[j].answer for j in items))
        known = seen.get((i, items[0])) if len(items) == 1 else None
        if known is not None and options.eed:
            known = _with_full_score(known)
        outcome, why = (known, '') if known is not None else _compare(compare, reference, answer, options)
        if outcome is None:
            unreadable[i] = why
        outcomes.append(outcome if outcome is None else replace(outcome, answer=describe(answer)))
    if not groups or len(groups) < n:  # a response labelling its parts answers each label once (see there)
        _share_restated(references, pieces, segments, outcomes, unreadable, options, adjacent=bool(groups),
                        written=written)
    if refs_labels is None:
        _share_range(references, pieces, segments, outcomes, options)
    return Pairing(tuple(outcomes), 'label' if refs_labels is not None else 'content', tuple(unreadable))


def _share_restated(references: Sequence[Answer], pieces: Sequence[Piece], segments: Dict[int, List[int]],
                    outcomes: List[Optional[Outcome]], unreadable: List[str], options: Options,
                    adjacent: bool = False, written: Sequence[str] = ()) -> None:
    """A part left without an answer whose reference restates another part's reference is compared with
    what answers that part (in place).

    Why: the dataset often writes one result twice (the same ``\\frac{d\\sigma}{d\\Omega} = \\ldots`` for
    three parts, ``\\frac{1}{4}`` and ``25\\%``, a time in seconds and in minutes); one answer then answers
    both, where the one-to-one pairing left the restatement ``no_answer``. Restating means: the two
    references are strictly equal, and either both name the same quantity on the left, or they are written
    differently (one value in two forms). Two identical unnamed values (``0`` and ``0``) may be two
    quantities that happen to agree, so one unnamed ``0`` does not answer both; two identical texts
    naming their quantity on the left (``\\text{Length rate} = R\\omega`` twice: the reader keeps only
    the value) are one named result written twice.

    A response that labels its parts answers each label once, so (a)'s piece is no answer to (c):
    it shares only when it labels fewer parts than the reference has (the reference wrote one asked
    result twice), and only with the part written just before or after (``adjacent``: ``1200 s``
    then ``20 min``), never across a part it skipped."""
    from .compare.answers import compare, name_of
    quiet = replace(options, eed=False)
    for i, outcome in enumerate(outcomes):
        if outcome is None or outcome.reason != 'no_answer' or segments.get(i):
            continue
        for k, items in sorted(segments.items()):
            if k == i or not items or unreadable[k] or outcomes[k] is None or (adjacent and abs(k - i) != 1):
                continue
            same_words = len(written) == len(references) and _named_alike(written[i], written[k])
            if not _restates(compare, name_of, references[i], references[k], quiet, same_words):
                continue
            answer = pieces[items[0]].answer if len(items) == 1 else \
                Collection('list', tuple(pieces[j].answer for j in items))
            shared, why = _compare(compare, references[i], answer, options)
            if shared is None:
                unreadable[i] = why
                outcomes[i] = None
            else:
                outcomes[i] = replace(shared, answer=describe(answer))
            break


def _share_range(references: Sequence[Answer], pieces: Sequence[Piece], segments: Dict[int, List[int]],
                 outcomes: List[Optional[Outcome]], options: Options) -> None:
    """A part whose reference states an index range, answered without one, is compared again with the
    response's one index range beside its answer (in place).

    Why: a response writes the range once for all its formulas (``k = \\ldots,\\ E_n = \\ldots,\\ n \\in
    \\mathbb{Z}``) where the reference repeats it in each part; one to one, the range answered one part
    and left the other ``undecided``. Only when the response states exactly one range (two ranges may
    belong to different formulas), under the label of the part's answer if the response labels it."""
    from .compare.answers import compare
    ranges = [j for j, p in enumerate(pieces) if is_range(p.answer)]
    if len(ranges) != 1:
        return
    for i, reference in enumerate(references):
        items = segments.get(i, [])
        if outcomes[i] is None or not items or ranges[0] in items or not isinstance(reference, Collection) \
                or not any(is_range(r) for r in reference.items):
            continue
        if any(pieces[j].label != pieces[ranges[0]].label for j in items):
            continue  # the range stands under another label: another part's
        answer = Collection('list', tuple(pieces[j].answer for j in items + ranges))
        shared, _ = _compare(compare, reference, answer, options)
        if shared is not None:
            outcomes[i] = replace(shared, answer=describe(answer))


def _restates(compare, name_of, a: Answer, b: Answer, options: Options, same_words: bool = False) -> bool:
    """Whether reference ``a`` is reference ``b`` again (see :func:`_share_restated`); ``same_words``: the
    two were written as one text that names its quantity on the left (:func:`_named_alike`)."""
    name_a, name_b = name_of(a), name_of(b)
    if bool(name_a) != bool(name_b) or (name_a and not same_quantity_name(name_a, name_b)):
        return False
    if not name_a and not same_words and re.sub(r'\s+', '', describe(a)) == re.sub(r'\s+', '', describe(b)):
        return False
    for first, second in ((a, b), (b, a)):
        outcome, _ = _compare(compare, first, second, options)
        if outcome is None or not outcome.strict:
            return False
    return True


_WORD_NAME_RE = re.compile(r'^\s*\\text\s*\{[^{}]*[A-Za-z]{2,}[^{}]*\}\s*=')


def _named_alike(first: str, second: str) -> bool:
    """Two reference texts that are one text naming its quantity in words on the left
    (``\\text{Length rate} = R\\omega``): the same result, however the reader reads the value."""
    return re.sub(r'\s+', '', first) == re.sub(r'\s+', '', second) and bool(_WORD_NAME_RE.match(first))


def _pm_pieces(references: Sequence[Answer], pieces: List[Piece], options: Options) -> List[Piece]:
    """A ``\\pm`` piece as its two branches when they answer two reference parts (in place).

    Why: ``(s_x \\pm i s_y)^3 = 0`` states the two parts ``(s_x + i s_y)^3 = 0`` and ``(s_x - i s_y)^3 = 0``
    at once; read as one piece it answers one part, with two values. Split only when each branch is
    strictly one part's reference (two different parts) and no reference writes a ``\\pm`` itself
    (then the piece is compared whole: ``1 \\pm 0.1`` as an uncertainty answers only a reference with one)."""
    from .compare.answers import compare
    if len(references) < 2 or not any(_pm_branches(p.answer) for p in pieces) or any(_has_pm(r) for r in references):
        return pieces
    quiet = replace(options, eed=False)
    out: List[Piece] = []
    for piece in pieces:
        branches = _pm_branches(piece.answer)
        if branches is not None:
            hits = [{i for i, r in enumerate(references) if _strict(compare, r, b, quiet)} for b in branches]
            if hits[0] and hits[1] and len(hits[0] | hits[1]) >= 2:
                out.extend(Piece(b, piece.label) for b in branches)
                continue
        out.append(piece)
    return out


def _strict(compare, reference: Answer, answer: Answer, options: Options) -> bool:
    outcome, _ = _compare(compare, reference, answer, options)
    return outcome is not None and outcome.strict


def _pm_branches(answer: Answer) -> Optional[Tuple[Answer, Answer]]:
    """The ``+`` and ``-`` branches of ``lhs = a \\pm b``, ``(x \\pm y)^3 = 0`` or ``\\omega_\\pm = a \\pm b``."""
    def two(side: Answer) -> Optional[Tuple[Answer, Answer]]:
        ok = isinstance(side, Alternatives) and side.kind == 'pm' and len(side.options) == 2
        return tuple(side.options) if ok else None
    if isinstance(answer, Relation):
        left, right = two(answer.left), two(answer.right)
        if left and not right and not _has_pm(answer.right):
            return tuple(Relation(answer.kind, o, answer.right) for o in left)
        if right and not left and not _has_pm(answer.left):
            return tuple(Relation(answer.kind, answer.left, o) for o in right)
    if isinstance(answer, Definition) and not answer.steps and two(answer.value):
        first, second = two(answer.value)
        name = answer.name
        plus, minus = (name.replace('\\pm', '+').replace('\\mp', '-'),
                       name.replace('\\pm', '-').replace('\\mp', '+'))
        return (Definition(plus, first, answer.approximate), Definition(minus, second, answer.approximate))
    return None


def _has_pm(answer: Answer) -> bool:
    """Whether a ``\\pm`` (or ``\\mp``) is written anywhere in the answer."""
    text = describe(answer)
    return isinstance(answer, Alternatives) or '\\pm' in text or '\\mp' in text or ' or ' in text


def _branch_pieces(piece: Piece) -> List[Piece]:
    """A piecewise piece as one piece per branch (``E(r) = a`` for ``r < R``, ...) when no reference part is
    piecewise: the parts then ask for the branches one by one (the field in each region)."""
    from .read.piecewise import branches
    from .read.reading import read_answer
    answer = piece.answer
    read = branches(answer.raw) if isinstance(answer, Unreadable) and answer.why == 'piecewise' else None
    if read is None:
        return [piece]
    lead, rows = read
    return [Piece(read_answer('%s = %s' % (lead, value) if lead else value), piece.label) for value, _ in rows]


def sub_parts(references: Sequence[Answer]) -> Tuple[List[Answer], List[int]]:
    """(the rows pieces are paired with, the reference part of each row): a part that is itself a list
    of named results (``E_1 = \\ldots, E_2 = \\ldots``) is one row per result, so each result claims its
    own piece, one to one like the parts; every other part is one row.

    Why: paired as one row, such a part took one piece and left its sibling results unpaired, so a
    right ``a = 3p_cV_c^2,\\ b = V_c/3`` was ``1 answers for 2``. The part is still compared as a whole
    (its reference list against all the pieces of its rows), so nothing is accepted piece by piece."""
    from .compare.answers import name_of
    rows: List[Answer] = []
    owner: List[int] = []
    for i, reference in enumerate(references):
        items = reference.items if isinstance(reference, Collection) and reference.kind == 'list' else ()
        names = [name_of(item) or (item.left.latex if is_range(item) else '') for item in items]  # n = 1, 2, ..
        distinct = all(names) and all(not same_quantity_name(a, b) for k, a in enumerate(names) for b in names[k + 1:])
        if 1 < len(items) <= MAX_SUB_PARTS and distinct:
            rows.extend(items)
            owner.extend([i] * len(items))
        else:
            rows.append(reference)
            owner.append(i)
    return rows, owner


MAX_SUB_PARTS = 6
"""A reference part listing more named results than this is paired as one row (cost, and such long
lists are tables the judge reads better)."""


def _merge_rows(owner: Sequence[int], n: int, row_segments: Dict[int, List[int]],
                row_candidates: Dict[int, List[int]], row_unreadable: Sequence[str],
                row_seen: Dict[Tuple[int, int], Outcome]):
    """The rows' segments, rival candidates, unreadable reasons and outcomes, per reference part."""
    segments: Dict[int, List[int]] = {}
    candidates: Dict[int, List[int]] = {}
    unreadable = [''] * n
    for k, i in enumerate(owner):
        if k in row_segments:
            segments.setdefault(i, []).extend(row_segments[k])
        if k in row_candidates:
            candidates.setdefault(i, []).extend(row_candidates[k])
        unreadable[i] = unreadable[i] or row_unreadable[k]
    for items in segments.values():
        items.sort()
    single = {k: i for k, i in enumerate(owner) if owner.count(i) == 1}
    seen = {(single[k], j): o for (k, j), o in row_seen.items() if k in single}
    return segments, candidates, unreadable, seen


def _label_places(pieces: Sequence[Piece], groups: Dict[str, Answer]) -> Dict[int, int]:
    """Item -> the place of the response's label it stands under, for the items that read the same
    under exactly one label."""
    under: Dict[str, set] = {}
    for key, answer in groups.items():
        for item in flatten(answer):
            under.setdefault(describe(item), set()).add(int(key))
    return {j: next(iter(under[describe(p.answer)])) for j, p in enumerate(pieces)
            if len(under.get(describe(p.answer), ())) == 1}


def _reference_labels(labels: Sequence[str], n: int, groups: Dict[str, Answer]) -> Optional[List[str]]:
    """The label of each reference part as a group key: the dataset's own labels, else the part's
    place when the response labels exactly as many parts; None when parts are paired by content."""
    from .read.labels import label_key, label_orders
    keys = [label_key(label) for label in labels] if len(labels) == n else []
    if groups and keys and all(keys):
        orders = label_orders(keys)
        if orders is not None:
            return [str(o) for o in orders]
    if groups and len(groups) == n and set(groups) == {str(i) for i in range(n)}:
        return [str(i) for i in range(n)]
    return None


def _with_full_score(outcome: Outcome) -> Optional[Outcome]:
    """The table's outcome (compared without EED) as the verdict with EED, where that is known without
    comparing again: a strict outcome of one answer scores 100, but a number accepted at the digits the
    reference states keeps the official distance (``numeric_match``: compared again); None otherwise (a
    rejection's distance depends on how it was reached)."""
    if outcome.strict and not outcome.parts and outcome.reason != 'numeric_match':
        return replace(outcome, eed=100.0)
    return None


def _compare(compare, reference: Answer, answer: Answer, options: Options) -> Tuple[Optional[Outcome], str]:
    try:
        return compare(reference, answer, options), ''
    except ReferenceUnreadable as exc:
        return None, exc.detail or 'unreadable reference'


Table = Dict[Tuple[int, int], Tuple[float, bool]]
"""(part, item) -> (weight, whether both name the same quantity on the left)."""


def _table(references: Sequence[Answer], pieces: Sequence[Piece], refs_labels: Optional[List[str]],
           options: Options, names_only: bool = False, at_label: frozenset = frozenset()
           ) -> Tuple[Table, List[str], Dict[Tuple[int, int], Outcome]]:
    """The weight of every allowed (part, item) pair, why each unreadable part is unreadable, and the
    outcomes compared on the way (``names_only``: only the names are compared; ``at_label``: the pairs
    where the item stands under the label of the part's place, :func:`_label_places`)."""
    from .compare.answers import compare, name_of
    quiet = replace(options, eed=False)
    n, m = len(references), len(pieces)
    band = None if n * m <= MAX_PAIRS else max(2.0, MAX_PAIRS / (2.0 * n))
    unreadable = [''] * n
    table: Table = {}
    seen: Dict[Tuple[int, int], Outcome] = {}
    for i, reference in enumerate(references):
        ref_name = name_of(reference)
        for j, piece in enumerate(pieces):
            if refs_labels is not None and piece.label and piece.label != refs_labels[i]:
                continue  # a labelled piece answers only the part of its label
            if band is not None and abs(j - i * m / n) > band:
                continue
            if is_range(reference) != is_range(piece.answer):
                continue  # an index range answers an index range only, and takes no formula's place
            if unreadable[i]:
                table[(i, j)] = (WEIGHT_PAIRED, False)  # an unreadable part still keeps its place
                continue
            if names_only:
                item_name = name_of(piece.answer)
                table[(i, j)] = (WEIGHT_PAIRED, bool(ref_name and item_name and same_quantity_name(ref_name, item_name)))
                continue
            if isinstance(reference, Definition) and isinstance(piece.answer, Definition) and ref_name \
                    and piece.answer.name and not same_quantity_name(ref_name, piece.answer.name) \
                    and not same_letter(ref_name, piece.answer.name):
                # another quantity named: a place, never a match (cost); one letter (v_c for v) is compared,
                # as the comparator may tie the names (the question's own spelling, an alias)
                table[(i, j)] = (WEIGHT_PAIRED / 2, False)
                continue
            outcome, why = _compare(compare, reference, piece.answer, quiet)
            if outcome is None:
                unreadable[i] = why
                table.update({(i, k): (WEIGHT_PAIRED, False) for k in range(j) if (i, k) in table})
                table[(i, j)] = (WEIGHT_PAIRED, False)
                continue
            seen[(i, j)] = outcome
            item_name = name_of(piece.answer)
            named = bool(ref_name and item_name)
            same_name = named and (outcome.strict or same_quantity_name(ref_name, item_name))
            weight = WEIGHT_STRICT * outcome.strict + WEIGHT_LENIENT * outcome.lenient + WEIGHT_PAIRED
            if named:  # the same quantity named on both sides, or another one
                weight += WEIGHT_NAME if same_name else -WEIGHT_PAIRED / 2
            elif not outcome.lenient and _commentary(piece.answer) and not isinstance(reference, Text):
                weight = WEIGHT_PAIRED / 4  # words or a condition: a place for a formula only when nothing else is
            table[(i, j)] = (weight + WEIGHT_LABEL_PLACE * ((i, j) in at_label), same_name)
    return table, unreadable, seen


def _assign(table: Table, rows: Sequence[int], pieces: Sequence[Piece], ordered: bool,
            by_place: bool) -> Dict[int, int]:
    """Part -> item: for ordered parts, names first (a part named by one item only, which names that
    part only, pairs across the order); then, as many answers as parts in order, else the
    order-keeping assignment; for unordered parts the optimal one."""
    cols = len(pieces)
    chosen: Dict[int, int] = {}
    if ordered:
        by_row: Dict[int, List[int]] = {}
        by_col: Dict[int, List[int]] = {}
        for (i, j), (_, same_name) in table.items():
            if same_name and i in rows:
                by_row.setdefault(i, []).append(j)
                by_col.setdefault(j, []).append(i)
        for i, js in by_row.items():
            if len(js) == 1 and len(by_col[js[0]]) == 1:
                chosen[i] = js[0]
    rest_rows = [i for i in rows if i not in chosen]
    used = set(chosen.values())
    rest_cols = [j for j in range(cols) if j not in used]
    sub = {(a, b): table[(i, j)][0] for a, i in enumerate(rest_rows) for b, j in enumerate(rest_cols)
           if (i, j) in table}
    formulas = [b for b, j in enumerate(rest_cols) if not isinstance(pieces[j].answer, Text)]
    if ordered and len(formulas) == len(rest_rows) and by_place:
        pairs = [(a, b) for a, b in enumerate(formulas) if (a, b) in sub]  # as many answers as parts: in order
    elif ordered:
        pairs = ordered_assignment(sub, len(rest_rows), len(rest_cols))
    else:
        pairs = [p for p in best_assignment(sub, len(rest_rows), len(rest_cols), lambda w: w) if p in sub]
    for a, b in pairs:
        chosen[rest_rows[a]] = rest_cols[b]
    return chosen


def ordered_assignment(weights: Dict[Tuple[int, int], float], rows: int, cols: int) -> List[Tuple[int, int]]:
    """The one-to-one pairs (i, j), increasing in both i and j, of greatest total weight (exact, O(rows x cols)).

    Missing pairs are not allowed. Why order-keeping: without labels or names a value is identified by
    its place; skipping places (an extra line, a missing part) is allowed, crossing them is not.
    """
    if rows == 0 or cols == 0:
        return []
    best = [[0.0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        for j in range(1, cols + 1):
            take = weights.get((i - 1, j - 1))
            best[i][j] = max(best[i - 1][j], best[i][j - 1],
                             best[i - 1][j - 1] + take if take is not None else float('-inf'))
    pairs, i, j = [], rows, cols
    while i > 0 and j > 0:
        take = weights.get((i - 1, j - 1))
        if take is not None and best[i][j] == best[i - 1][j - 1] + take:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif best[i][j] == best[i - 1][j]:
            i -= 1
        else:
            j -= 1
    return pairs[::-1]


def _segments(chosen: Dict[int, int], references: Sequence[Answer], pieces: Sequence[Piece],
              named_across_labels: bool = False) -> Tuple[Dict[int, List[int]], Dict[int, List[int]]]:
    """(part -> the items it is compared with, part -> rival candidates for its quantity family).

    A part is compared with its paired item, and each unpaired item that could be a
    second answer to it -- one naming its quantity (wherever it stands), or an unnamed value or
    equation, which joins the nearest paired item before it. Words, conditions, labels, definitions
    of a quantity no part names, approximations (``\\approx``) of a named quantity and unnamed values
    before every answer (intermediate results written first) are commentary, compared with nothing --
    except a definition of a sibling of the quantities asked that the answer never uses (``\\omega_3``
    beside ``\\omega_1, \\omega_2``): a rival candidate, which makes its part ``count_mismatch``.

    An unnamed item joins only a paired item under the same label (``(d)``'s ``3, -3`` are no second
    values of ``(c)``'s integral); one naming a part's quantity joins it under any label when the labels
    are the response's own (``named_across_labels``: ``(a) I = \\ldots`` and ``(b) I = 7`` are two
    candidates unless the dataset's labels say which part each answers)."""
    from .compare.answers import name_of
    owner = {j: i for i, j in chosen.items()}
    segments: Dict[int, List[int]] = {i: [j] for i, j in chosen.items()}
    candidates: Dict[int, List[int]] = {}
    anchors = sorted(owner)
    names = {i: [n for n in (name_of(references[i]), name_of(pieces[j].answer)) if n] for i, j in chosen.items()}
    for j, piece in enumerate(pieces):
        if j in owner or _commentary(piece.answer):
            continue
        name = name_of(piece.answer)
        near = sorted((a for a in anchors if (name and named_across_labels) or _same_label(pieces[a], piece)),
                      key=lambda a: (a > j, abs(a - j)))
        if name and isinstance(piece.answer, Definition) and piece.answer.approximate:
            continue  # "lambda' ~ 4893 A" after "lambda' = ...": the value evaluated, not a second answer
        if name:
            named = [a for a in near if any(same_quantity_name(name, n) for n in names[owner[a]])]
            if not named:
                # omega_3 = 5 beside the omega_1, omega_2 asked: another candidate, not commentary
                family = [a for a in near if any(same_family(name, n) for n in names[owner[a]])]
                if family and not _used_elsewhere(name, pieces, j):
                    candidates.setdefault(owner[family[0]], []).append(j)
            near = named
        else:
            near = [a for a in near if a < j]  # before every answer: a boxed intermediate result, a preamble
        if near:
            segments[owner[near[0]]].append(j)
    for items in segments.values():
        items.sort()
    return segments, candidates


def _used_elsewhere(name: str, pieces: Sequence[Piece], j: int) -> bool:
    """Whether another piece's text writes ``name``: then it is a definition the answer relies on."""
    key = name_key(name)
    return any(key in name_key(describe(p.answer)) for k, p in enumerate(pieces) if k != j)


def _commentary(answer: Answer) -> bool:
    """Words, a condition (``|x| < 1``) or a part's label left standing (``\\text{(b)}``): beside an answer, not one."""
    from .compare.answers import CONDITIONS
    from .read.labels import is_label
    return isinstance(answer, Text) or (isinstance(answer, Relation) and answer.kind in CONDITIONS) \
        or (isinstance(answer, Value) and is_label(answer.latex))


def _same_label(a: Piece, b: Piece) -> bool:
    return a.label == b.label or not a.label or not b.label
