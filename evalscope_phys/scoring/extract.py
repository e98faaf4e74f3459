"""Final-answer extraction from a model response: pure string work, nothing is evaluated.

Order of preference: the last ``\\boxed{}``/``\\fbox{}`` (brace matched); the text after the last
"final answer" phrase; the last display formula (``\\[..\\]``, ``$$..$$``, ``\\begin{equation}``);
the last inline formula (``\\(..\\)``, ``$..$``); the whole text (its last line when it is long
prose). Inside the chosen text the right-hand side of the last top-level relation is kept (``=``,
``\\approx``, ``\\sim``, ``\\le``...), and a trailing unit (``\\text{m/s}``, ``\\mathrm{kN}``,
``^\\circ``, or plain ``46.3 kN`` after a number) is split off and kept. Extraction is idempotent:
extracting from an extracted expression gives it back unchanged.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

#: Relations whose right-hand side is the answer; longer names first so \leq is not read as \le.
RELATION_COMMANDS = ('approx', 'simeq', 'equiv', 'cong', 'sim', 'leqslant', 'geqslant', 'leq',
                     'geq', 'le', 'ge', 'lt', 'gt', 'll', 'gg', 'propto', 'to', 'rightarrow',
                     'Rightarrow', 'longrightarrow', 'implies', 'coloneqq', 'eqqcolon', 'approxeq')
_BOX_RE = re.compile(r'\\(boxed|fbox|framebox)\s*\{')
_FINAL_RE = re.compile(r'(?i)(final\s+answer|the\s+answer\s+is|answer\s*:)')
_DISPLAY_RES = (re.compile(r'\\\[(.*?)\\\]', re.S), re.compile(r'\$\$(.*?)\$\$', re.S),
                re.compile(r'\\begin\{(equation|align|gather)\*?\}(.*?)\\end\{\1\*?\}', re.S))
_INLINE_RES = (re.compile(r'\\\((.*?)\\\)', re.S), re.compile(r'(?<![\\$])\$([^$]+?)\$(?!\$)', re.S))
_LABEL_RE = re.compile(r'^\s*(\\text(bf)?\{\s*\(?[a-z0-9]{1,2}\)\s*\}|\\textbf\{\s*\(?[a-z0-9]{1,2}\)\s*\}|\([a-z0-9]{1,2}\))\s*(?=\S)')
_TRAILING_RE = re.compile(r'(\s|\\[,;:! ]|\\quad|\\qquad|[.,;:]|~|\\$)+$')
_LABEL_ONLY_RE = re.compile(r'^\s*(\\text(bf)?\{\s*\(?[a-z0-9]{1,2}\)\s*\}|\(?[a-z0-9]{1,2}\))\s*:?\s*$')
_LEADING_RE = re.compile(r'^(\s|\\[,;:! ]|\\quad|\\qquad|~)+')
_WRAPPER_RE = re.compile(r'^\s*(\\displaystyle|\\textstyle)\s*')

SOURCES = ('boxed', 'final_answer_line', 'display', 'inline', 'whole', 'last_line', 'none')
WHOLE_TEXT_MAX_CHARS = 1000
"""Prose with no box or formula is its own answer only up to this length (a long bare formula is)."""
_PROSE_RE = re.compile(r'(?<![\\A-Za-z])(?:[A-Za-z]{2,}[ ,.;:]+(?:[A-Za-z][ ,.;:]+)?){6}')


@dataclass(frozen=True)
class ExtractedAnswer:
    """The final answer found in a response."""

    expression: str
    """LaTeX of the answer's value: no wrappers, no left-hand side, no unit ('' when none)."""
    unit: str = ''
    """The unit text split off the value, as written ('' when none)."""
    source: str = 'none'
    """Where it came from: one of ``SOURCES``."""
    unit_style: str = ''
    """'latex' (``\\text``/``\\mathrm``/degree/percent), 'plain' (a bare word after a number) or ''."""
    left_side: str = ''
    """For an answer with exactly one top-level ``=``: its left-hand side (the engine compares two
    equations such as ``x^2+y^2=1`` as equations, not by their right-hand sides)."""

    @property
    def empty(self) -> bool:
        return not self.expression.strip()

    @property
    def text(self) -> str:
        """Value and unit back together (used when a plain-word unit turns out to be symbols)."""
        return f'{self.expression} {self.unit}'.strip() if self.unit else self.expression


# --------------------------------------------------------------------------- scanning helpers

def matching_brace(text: str, open_index: int) -> int:
    """Index of the ``}`` closing the ``{`` at ``open_index`` (escaped braces skipped), or -1."""
    depth, i, n = 0, open_index, len(text)
    while i < n:
        c = text[i]
        if c == '\\':
            i += 2
            continue
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def boxed_contents(text: str) -> List[str]:
    """Contents of every ``\\boxed{}``/``\\fbox{}`` in order (nested boxes count once, outermost)."""
    found, pos = [], 0
    while True:
        m = _BOX_RE.search(text, pos)
        if not m:
            return found
        close = matching_brace(text, m.end() - 1)
        if close < 0:
            found.append(text[m.end():])  # unterminated box: take the rest
            return found
        found.append(text[m.end():close])
        pos = close + 1


def command_end(text: str, i: int) -> int:
    """End of the command starting at the backslash ``text[i]``: a letter run, or one control symbol."""
    j, n = i + 1, len(text)
    while j < n and text[j].isalpha():
        j += 1
    return j if j > i + 1 else min(i + 2, n)  # a control symbol: \\, \{, \,


def top_level_split(text: str, separators: Tuple[str, ...]) -> List[str]:
    """Split on separators (plain strings or ``\\command`` names) outside braces and brackets."""
    parts, depth, start, i, n = [], 0, 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == '\\':
            j = command_end(text, i)
            name = text[i + 1:j]
            if depth == 0 and ('\\' + name) in separators:
                parts.append(text[start:i])
                start = i = j
                continue
            if name in ('left', 'bigl', 'Bigl', 'biggl', 'Biggl'):
                depth += 1
            elif name in ('right', 'bigr', 'Bigr', 'biggr', 'Biggr'):
                depth -= 1
            elif name in ('{',):
                depth += 1
            elif name in ('}',):
                depth -= 1
            i = j
            continue
        if c in '{([':
            depth += 1
        elif c in '})]':
            depth -= 1
        elif depth == 0:
            for sep in separators:
                if not sep.startswith('\\') and text.startswith(sep, i):
                    parts.append(text[start:i])
                    start = i = i + len(sep)
                    break
            else:
                i += 1
            continue
        i += 1
    parts.append(text[start:])
    return parts


def right_hand_side(text: str) -> str:
    """The part after the last top-level relation; the text itself when there is none."""
    seps = ('=', '<', '>') + tuple('\\' + name for name in RELATION_COMMANDS)
    parts = top_level_split(text, seps)
    for part in reversed(parts):
        if part.strip():
            return part.strip()
    return text.strip()


# --------------------------------------------------------------------------- units

_UNIT_GROUP_RE = re.compile(r'((\\mu|μ|µ)\s*(?=\\(text|mathrm|textrm|rm|mbox)\b)|\\(text|mathrm|textrm|rm|mbox|operatorname|mathit)\b|\{\\rm\b|\^\s*\{?\s*\\circ|\\circ|\\degree|\\%|%|°)')
_TEXT_UNIT_RE = re.compile(r'^\\(text|mathrm|rm|mbox)\s*\{\s*[A-Za-zÅΩμ°/.\s^0-9-]{1,12}\}\s*$')
_NUMERIC_CMDS_RE = re.compile(r'\\(times|cdot|frac|dfrac|tfrac|sqrt|pi|left|right|,|;|!| |quad|approx|sim)')
_PLAIN_UNIT_RE = re.compile(r'(?:(?<=\d)|\s+|\\,)((?:\\(?:mu|micro)\s*)?(?:\\Omega|\\AA|[A-Za-zµμΩÅ°])'
                            r'[A-Za-z0-9µμΩÅ°/^*.·\-{}()\s]*)$')


def _is_numeric(text: str) -> bool:
    stripped = _NUMERIC_CMDS_RE.sub(' ', text)
    stripped = re.sub(r'(?<=\d)[eE](?=[+-]?\d)', ' ', stripped)
    return bool(re.search(r'\d', stripped)) and not re.search(r'[A-Za-z]', stripped)


MAX_UNIT_CHARS = 200
"""A unit (``\\text{kg}\\cdot\\text{m}^{2}\\,\\text{s}^{-2}``) is looked for in this many final characters."""


def split_unit(text: str) -> Tuple[str, str, str]:
    """``(value, unit, unit_style)``: a trailing unit split off when it is a known unit."""
    from .units import parse_unit  # pint is imported only when a candidate unit appears

    text = text.strip()
    # a unit is short and trailing: only groups near the end are candidates (keeps this linear)
    candidates = [m.start() for m in _UNIT_GROUP_RE.finditer(text, max(0, len(text) - MAX_UNIT_CHARS))]
    for start in candidates:
        value, unit = text[:start].strip(), text[start:].strip()
        if not value or _unbalanced(value) or _unbalanced(unit):
            continue
        value = _TRAILING_RE.sub('', value)
        value = re.sub(r'(\\cdot|\\times|\*)\s*$', '', value).strip()
        if value and (parse_unit(unit) is not None or (_is_numeric(value) and _TEXT_UNIT_RE.match(unit))):
            # a known unit, or any word in \text{} right after a number ("kWhr"): kept as the
            # unit, compared by value when pint does not know it
            return value, unit, 'latex'
    m = _PLAIN_UNIT_RE.search(text)
    if m:
        value, unit = text[:m.start()].strip(), m.group(1).strip()
        if value and _is_numeric(value) and not _unbalanced(unit) and _plain_unit_ok(unit):
            if parse_unit(unit) is not None:
                return _TRAILING_RE.sub('', value), unit, 'plain'
    return text, '', ''


def _plain_unit_ok(unit: str) -> bool:
    # "2 m g" is more likely a product of symbols than metre-grams
    words = re.split(r'\s+', unit.strip())
    return not (len(words) > 1 and all(len(w) == 1 for w in words))


def _unbalanced(text: str) -> bool:
    depth = 0
    for i, c in enumerate(text):
        if c == '{' and (i == 0 or text[i - 1] != '\\'):
            depth += 1
        elif c == '}' and (i == 0 or text[i - 1] != '\\'):
            depth -= 1
            if depth < 0:
                return True
    return depth != 0


# --------------------------------------------------------------------------- extraction

def _last_match(patterns, text: str) -> Optional[str]:
    best, best_end = None, -1
    for pattern in patterns:
        for m in pattern.finditer(text):
            if m.end() > best_end:
                best, best_end = m.group(m.lastindex), m.end()
    return best


def _locate(response: str) -> Tuple[str, str]:
    """(answer text, source) before relation/unit handling."""
    boxes = boxed_contents(response)
    if boxes:
        return boxes[-1], 'boxed'
    finals = list(_FINAL_RE.finditer(response))
    if finals:
        tail = response[finals[-1].end():].lstrip(' \t*:：')
        line = tail.split('\n\n')[0].strip()
        # a display formula right after the phrase may contain blank lines itself
        opening = next((m for m in (regex.match(tail.lstrip()) for regex in _DISPLAY_RES) if m), None)
        inner = (opening.group(opening.lastindex) if opening else None) \
            or _last_match(_DISPLAY_RES, line) or _last_match(_INLINE_RES, line)
        if inner is not None:
            return inner, 'final_answer_line'
        if line:
            return line.split('\n')[0], 'final_answer_line'
    display = _last_match(_DISPLAY_RES, response)
    if display is not None:
        return display, 'display'
    inline = _last_match(_INLINE_RES, response)
    if inline is not None:
        return inline, 'inline'
    if len(response) <= WHOLE_TEXT_MAX_CHARS or not _PROSE_RE.search(response):
        return response, 'whole'
    # long prose with no formula: its last line, if it is short enough to be an answer
    lines = [line.strip() for line in response.strip().splitlines() if line.strip()]
    if lines and len(lines[-1]) <= WHOLE_TEXT_MAX_CHARS:
        return lines[-1], 'last_line'
    return '', 'none'


def clean_answer_text(text: str) -> str:
    """Strip math delimiters, labels, trailing punctuation and an outer pair of braces."""
    text = text.strip()
    for _ in range(3):
        before = text
        text = re.sub(r'^(\$\$|\$|\\\[|\\\()\s*', '', text)
        text = re.sub(r'\s*(\$\$|\$|\\\]|\\\))$', '', text)
        text = _WRAPPER_RE.sub('', text)
        text = _LABEL_RE.sub('', text)
        text = _LEADING_RE.sub('', text)
        text = _TRAILING_RE.sub('', text).strip()
        if text.startswith('{') and matching_brace(text, 0) == len(text) - 1:
            text = text[1:-1].strip()
        boxes = boxed_contents(text)
        if len(boxes) == 1 and _BOX_RE.match(text) and matching_brace(text, text.index('{')) == len(text) - 1:
            text = boxes[0].strip()
        if text == before:
            break
    return text


def _first_segment(text: str) -> str:
    """Keep the first part before a top-level ``\\quad``/``,\\text{...}`` condition."""
    parts = [p for p in top_level_split(text, ('\\quad', '\\qquad')) if p.strip()]
    if len(parts) > 1:
        text = parts[0]
    m = re.search(r',?\s*\\(text|mbox)\{\s*(for|when|if|where|with|since|as|and|or)\b', text)
    if m and m.start() > 0:
        text = text[:m.start()]
    m = re.search(r'\s*\(\s*\\text\{\s*(for|when|if|where|approximately|approx)', text)
    if m and m.start() > 0:
        text = text[:m.start()]
    return text


#: A sentence leading into the formula (``\\text{The momentum is about }0.82\\text{ GeV/c}``): two or
#: more words in one ``\\text{}`` with math after it; the words go, the formula stays.
_LEAD_PROSE_RE = re.compile(r'^\\text\s*\{(?=[^{}$]*[A-Za-z]{2}\s)[^{}$]*\}\s*(?=[^\s\\]|\\(?!text\b))')
_SPACED_RE = re.compile(r'\\ [A-Za-z] [A-Za-z] ')


def despace(text: str) -> str:
    """``\\ f r a c { 1 } { 2 }`` (a space after every character) back to ``\\frac{1}{2}``."""
    if _SPACED_RE.search(text) and text.count(' ') > 0.4 * len(text):
        return re.sub(r'\s+', '', text)
    return text


def extract_answer_text(text: str, source: str = 'none') -> ExtractedAnswer:
    """Relation and unit handling on an already located answer text."""
    text = clean_answer_text(despace(text))
    text = _LEAD_PROSE_RE.sub('', text, count=1) if _LEAD_PROSE_RE.match(text) else text
    text = _first_segment(text)
    sides = top_level_split(text, ('=',))
    left = clean_answer_text(sides[0]) if len(sides) == 2 and sides[1].strip() else ''
    text = clean_answer_text(right_hand_side(text))
    value, unit, style = split_unit(text)
    value = clean_answer_text(value)
    return ExtractedAnswer(expression=value, unit=unit, source=source if value else 'none',
                           unit_style=style if value else '', left_side=left if value else '')


def extract_final_answer(response: str) -> ExtractedAnswer:
    """The final answer of a model response (or of a bare answer: extraction is idempotent)."""
    if not response or not response.strip():
        return ExtractedAnswer(expression='', source='none')
    located, source = _locate(response)
    return extract_answer_text(located, source)


def extract_all_answers(response: str) -> List[ExtractedAnswer]:
    """Every answer of a multi-answer response: all boxes, or the final answer's list items."""
    if not response or not response.strip():
        return []
    boxes = boxed_contents(response)
    if len(boxes) > 1:
        return [extract_answer_text(box, 'boxed') for box in boxes]
    located, source = _locate(response)
    located = _unwrap_environments(clean_answer_text(located))
    items = []
    for line in top_level_split(located, ('\\\\',)):
        items.extend(p for p in top_level_split(line, (',', ';', '\\quad', '\\qquad', '\\text{and}',
                                                     '\\text{ and }')) if p.strip())
    answers = [extract_answer_text(item, source) for item in items if not _LABEL_ONLY_RE.match(item)]
    answers = [a for a in answers if not a.empty]
    return answers or [extract_answer_text(located, source)]


_ENV_RE = re.compile(r'\\(begin|end)\{[a-zA-Z*]+\}(\{[^{}]*\})?')


def _unwrap_environments(text: str) -> str:
    """Lines of ``aligned``/``array``/``cases`` blocks as ``\\\\``-separated items."""
    text = _ENV_RE.sub(' ', text)
    text = re.sub(r'\\\\\s*\[[^\]]*\]', r'\\\\', text)  # \\[1mm]
    return text.replace('&', ' ')


# --------------------------------------------------------------------------- labelled parts

_ROMAN = ('i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii', 'viii', 'ix', 'x')
#: a part label where a part can start: the text start, a new line (``\\``, newline), a column
#: (``&``), or after ``;``/``,``/``\quad``; written ``(a)``, ``\text{(a)}``, ``\textbf{(a) ...}``
_PART_LABEL_RE = re.compile(
    r'(?:^|(?<=\\\\)|(?<=\n)|(?<=&)|(?<=;)|(?<=,)|(?<=\\quad)|(?<=\\qquad)|(?<=\]))'
    r'(?P<lead>(?:\s|&|\\[,;:! ]|\\quad|\\qquad)*)'
    r'(?:\\text(?:bf)?\s*\{\s*\((?P<inner>[a-z]|[ivx]{1,4}|[1-9])\)(?P<rest>[^{}]*)\}'
    r'|\((?P<bare>[a-z]|[ivx]{1,4}|[1-9])\))')


def _label_order(label: str, kind: str) -> int:
    if kind == 'roman':
        return _ROMAN.index(label) if label in _ROMAN else -1
    if kind == 'digit':
        return int(label) - 1 if label.isdigit() else -1
    return ord(label) - ord('a') if len(label) == 1 and label.isalpha() else -1


def labelled_parts(response: str) -> List[str]:
    """The parts of a labelled multi-part answer, in label order: ``(a) ... (b) ...`` -> two texts.

    Labels are ``(a)``/``(i)``/``(1)`` (bare or in ``\\text{}``/``\\textbf{}``) where a part can
    start (text start, a new ``\\\\`` line, a ``&`` column, after ``;``/``,``/``\\quad``), and must
    run in sequence from the first one (a, b, c or i, ii, iii): a ``(r)`` in ``E(r)``, or a
    nested ``(i)`` inside part (b), does not split. Text before the first label is dropped; a
    label's own words (``\\text{(a) Impossible}``) stay in its part. Fewer than two labels: [].
    """
    if not response or not response.strip():
        return []
    located, _ = _locate(response)
    text = _hoist_labels(re.sub(r'^\s*(\$\$|\$|\\\[|\\\()|(\$\$|\$|\\\]|\\\))\s*$', '', located.strip()))
    found = []
    for m in _PART_LABEL_RE.finditer(text):
        label = m.group('inner') or m.group('bare')
        found.append((m.start() + len(m.group('lead')), m.end(), label, m.group('rest')))
    if len(found) < 2:
        return []
    first = found[0][2]
    kind = 'roman' if first == 'i' else 'digit' if first.isdigit() else 'letter'
    if _label_order(first, kind) != 0:
        return []
    chosen, expected = [], 0
    for start, end, label, rest in found:
        if _label_order(label, kind) == expected:
            chosen.append((start, end, rest))
            expected += 1
    if len(chosen) < 2:
        return []
    parts = []
    for index, (start, end, rest) in enumerate(chosen):
        stop = chosen[index + 1][0] if index + 1 < len(chosen) else len(text)
        body = text[end:stop]
        if rest and rest.strip():
            body = '\\text{%s}%s' % (rest, body)
        parts.append(_strip_part_edges(body))
    return parts


_TEXT_OPEN_RE = re.compile(r'\\text(?:bf)?\s*\{')
_INNER_LABEL_RE = re.compile(r'(?:^|(?<=[,;])|(?<=\\quad)|(?<=\\qquad))\s*\(([a-z]|[ivx]{1,4}|[1-9])\)')


def _hoist_labels(text: str) -> str:
    """Labels inside one text group (``\\text{(a) yes, (b) no}``) brought out, each on a new line."""
    out, pos = [], 0
    for m in _TEXT_OPEN_RE.finditer(text):
        if m.start() < pos:
            continue
        close = matching_brace(text, m.end() - 1)
        if close < 0:
            break
        content = text[m.end():close]
        cuts = list(_INNER_LABEL_RE.finditer(content))
        if not cuts:
            continue
        out.append(text[pos:m.start()])
        if cuts[0].start() > 0 and content[:cuts[0].start()].strip():
            out.append('\\text{%s}' % content[:cuts[0].start()])
        for index, cut in enumerate(cuts):
            stop = cuts[index + 1].start() if index + 1 < len(cuts) else len(content)
            piece = re.sub(r'(\s|[,;.]|\\quad|\\qquad)+$', '', content[cut.end():stop])
            if re.fullmatch(r'\s*[+-]?\d+(\.\d+)?\s*', piece):
                out.append('\n(%s) %s' % (cut.group(1), piece.strip()))  # \text{(a) 0; ...}: a number
            else:
                out.append('\n(%s)' % cut.group(1) + ('\\text{%s}' % piece if piece.strip() else ''))
        pos = close + 1
    out.append(text[pos:])
    return ''.join(out)


def _strip_part_edges(text: str) -> str:
    """A part's text without the separators around it (``&``, ``\\\\[1mm]``, ``;``, ``\\quad``)."""
    text = re.sub(r'^(\s|&|:|\\[,;:! ]|\\quad|\\qquad)+', '', text)
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r'(\s|&|[;,.]|\\[,;:! ]|\\quad|\\qquad|\\\\(\s*\[[^\]]*\])?)+$', '', text)
        text = re.sub(r'\\end\{[a-zA-Z*]+\}$', '', text)
    return text.strip()
