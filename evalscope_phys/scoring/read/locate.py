"""Where the final answer of a response is: boxes, labelled parts at its end, a "final answer" phrase, the last
formula, the last line.

Linear in the text: only the last :data:`EXTRACT_WINDOW` characters are searched, with the
one-pass scanners of :mod:`.scan`; an answer stated in a sentence (``The largest $n$ is 34.``) is
read for the number it states.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import List, Tuple

from .notation import BACKSLASH_SPACE_RE, to_latex
from .scan import boxed_spans, math_spans, strip_trailing
from .words import is_prose, text_groups

EXTRACT_WINDOW = 50_000
"""Characters at the end of a response that are searched for the final answer."""
WHOLE_TEXT_MAX_CHARS = 1000
"""Prose with no box or formula is its own answer only up to this length (a bare formula is)."""


_FINAL_RE = re.compile(r'(?i)(final\s+answer|the\s+answer\s+is|answer\s*[:：])')


def final_answer(response: str) -> Tuple[Tuple[str, ...], str]:
    """A raw response's final answer: its notation rewritten as LaTeX once, then located.

    The extractor, the labels and the table reader all start from this one pass; it is cached (a
    few responses per worker) because all three read the same response in one scoring call.
    """
    return _final_answer(response)


@lru_cache(maxsize=8)
def _final_answer(response: str) -> Tuple[Tuple[str, ...], str]:
    texts, source = locate(to_latex(response))
    return tuple(texts), source


def locate(response: str) -> Tuple[List[str], str]:
    """The final answer's text (several texts for several boxes) and where it was found."""
    text = BACKSLASH_SPACE_RE.sub(r'\\,', response[-EXTRACT_WINDOW:])
    if '\\\\boxed' in text:  # a doubly escaped box copied from JSON
        text = text.replace('\\\\boxed', '\\boxed')
    boxes = boxed_spans(text)
    finals = list(_FINAL_RE.finditer(text[-5000:]))
    offset = max(0, len(text) - 5000)
    if boxes and finals and offset + finals[-1].start() > boxes[-1][2]:
        boxes = []  # "Final Answer: ..." written after the last box is the final word
    if boxes and boxes[-1][2] == len(text) and '\n\n' in text[boxes[-1][1]:].strip():
        return [], 'unclosed_box'  # the last box never closes and runs on into the reply's paragraphs
    if boxes:
        contents = [text[a:b] for _, a, b in boxes]
        if len(contents) > 1:
            gap = text[boxes[-2][2] + 1:boxes[-1][0]]
            if len(gap) < 40 and re.search(r'(?i)\bor\b', gap):  # \boxed{4} or \boxed{6}: a hedge
                return [contents[-2] + ' \\text{ or } ' + contents[-1]], 'boxed'
            return contents, 'boxes'
        return [contents[0] + _unit_after(contents[0], text, boxes[-1][2] + 1)], 'boxed'
    from .labelled_tail import labelled_tail
    labelled = labelled_tail(text)
    if labelled is not None:
        return [labelled], 'labelled'
    if finals:
        tail = text[offset + finals[-1].end():].lstrip(' \t*:：')
        if tail.startswith('}'):  # \text{The answer is } 2: the phrase's own group closes before the answer
            tail = tail[1:].lstrip(' \t*:：')
        lead = tail.lstrip()
        if lead.startswith(('$', '\\[', '\\(', '\\begin')):
            skipped = len(tail) - len(lead)
            spans = [s for s in math_spans(tail) if s[1] - skipped <= 20]
            if spans:
                first = min(spans, key=lambda s: s[1])
                return [tail[first[1]:first[2]]], 'final_answer_line'
        paragraph = tail.split('\n\n')[0].strip()
        if paragraph:
            return [paragraph.split('\n')[0]], 'final_answer_line'
    spans = math_spans(text)
    after = _JUNK_TAIL_RE.sub('', text[spans[-1][2] + 1:]) if spans else ''
    if spans and re.search(r'\d', after) and len(after.strip()) > 20 and is_long_prose(after + ' x x x x'):
        sentences = [x for x in re.split(r'(?<=[.!?])\s+', after.strip()) if re.search(r'\d', x)]
        if sentences:
            return [sentences[-1]], 'last_line'  # the conclusion is stated in words after the last formula
    displays = [s for s in spans if s[0] == 'display']
    if displays:
        _, a, b = displays[-1]
        return [text[a:b]], 'display'
    if spans:
        _, a, b = spans[-1]
        return [text[a:b] + _unit_after(text[a:b], text, b + 1)], 'inline'
    stripped = text.strip()
    if len(stripped) <= WHOLE_TEXT_MAX_CHARS or not is_long_prose(stripped) or _one_environment(stripped):
        return [stripped], 'whole'
    lines = [line.strip() for line in stripped.splitlines() if line.strip()]
    last = lines[-1] if lines else ''
    if len(last) > 300:  # one long paragraph: its last sentence that states a number
        sentences = [x for x in re.split(r'(?<=[.!?])\s+', last[-5000:]) if re.search(r'\d', x)]
        last = sentences[-1] if sentences else ''
    if last and len(last) <= WHOLE_TEXT_MAX_CHARS:
        return [last], 'last_line'
    return [], 'none'


_ENVIRONMENT_RE = re.compile(r'\\begin\{(\w+\*?)\}')


def _one_environment(text: str) -> bool:
    """A bare ``\\begin{array} ... \\end{array}`` and nothing around it: an answer laid out in rows
    (often of words), not a solution whose last line is the answer."""
    opener = _ENVIRONMENT_RE.match(text)
    return bool(opener) and text.endswith('\\end{%s}' % opener.group(1)) \
        and text.count('\\begin{%s}' % opener.group(1)) == 1


def _unit_after(content: str, text: str, end: int) -> str:
    """`` $5$ m/s`` and ``\\boxed{28} pct``: a unit written just after a number's math span belongs to it."""
    if not re.search(r'\d\s*$', content) or end >= len(text):
        return ''
    words = re.match(r'(?:\$|\\\)|\\\]|\})*[ \t]*([^\s.,;:!?$\\][^\n.,;:!?$]{0,30})', text[end:end + 40])
    if not words:
        return ''
    from ..compare.units import parse_unit
    tokens = words.group(1).split()
    for count in range(min(3, len(tokens)), 0, -1):
        candidate = ' '.join(tokens[:count])
        if candidate.lower() in ('a', 'is', 'in', 'at', 'and', 'or', 'to', 'of', 'for', 'as', 'the'):
            continue
        if parse_unit(candidate) is not None:
            return ' ' + candidate
    return ''


def is_long_prose(text: str) -> bool:
    words = re.findall(r'(?<![\\A-Za-z])[A-Za-z]{2,}\b', text[:5000])
    return len(words) >= 6


_JUNK_TAIL_RE = re.compile(r'(?is)\.?\s*(i hope it is correct.*|<\|im_(start|end)\|>.*)$')


def is_sentence(text: str) -> bool:
    """Words around the answer (``The largest $n$ is 34.``), not a bare formula."""
    line = _JUNK_TAIL_RE.sub('', text)
    return is_prose(outside_math(line, math_spans(line))) or bool(re.search(r'(?i)\b(is|are|equals)\b', line))


def stated_in_a_sentence(text: str) -> bool:
    """A short prose answer that states a number (``Therefore the speed is 5.``), not a text answer."""
    return bool(re.search(r'\d', text)) and is_prose(text) and not text_groups(text)


def sentence_answer(line: str) -> str:
    """An answer stated in a sentence (``The largest $n$ is 34.``): the part after its last ``is``."""
    line = _JUNK_TAIL_RE.sub('', line.strip())
    line = re.sub(r'(?i)^\s*(is|are|:)\s+', '', line.strip())
    spans = math_spans(line)
    if spans and not is_prose(outside_math(line, spans)):
        return line
    m = None
    for m in re.finditer(r'(?i)\b(?:is|are|equals|was|be)\b|=', line):
        pass
    tail = line[m.end():] if m else line
    tail = strip_trailing(tail.strip())
    if tail and not is_prose(tail.replace('$', ' ')):
        return tail
    numbers = list(re.finditer(r'(?<![A-Za-z_^\\])[+-]?\d+(?:[.,]\d+)*(?:\s*\\%|%)?', line))
    last_math = spans[-1] if spans else None
    if numbers and (last_math is None or numbers[-1].start() > last_math[2]):
        return numbers[-1].group(0)
    if last_math:
        return line[last_math[1]:last_math[2]]
    return line


def outside_math(text: str, spans) -> str:
    out, pos = [], 0
    for _, a, b in sorted(spans, key=lambda s: s[1]):
        out.append(text[pos:max(pos, a - 1)])
        pos = b + 1
    out.append(text[pos:])
    return ' '.join(out)
