"""Linear-time scanning of LaTeX text: braces, command names, top-level splits, math delimiters.

Why its own module: model output is untrusted and can be megabytes long. Every function here makes
one pass over its input (no backtracking regular expression runs over unbounded text), so the
extractor built on them is linear in the text it is given. An unclosed ``\\[`` repeated 100k times
costs one pass, not one pass per opening.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Tuple

from .text_memo import short_texts


def command_end(text: str, i: int) -> int:
    """End of the command starting at the backslash ``text[i]``: a letter run, or one control symbol."""
    j, n = i + 1, len(text)
    while j < n and text[j].isalpha() and text[j].isascii():
        j += 1
    return j if j > i + 1 else min(i + 2, n)  # a control symbol: \\, \{, \,


def matching_brace(text: str, open_index: int, stop: str = '') -> int:
    """Index of the ``}`` closing the ``{`` at ``open_index`` (escaped braces skipped), or -1. With
    ``stop`` (a math closer such as ``\\]``), the first ``stop`` met while only that brace is open ends
    it too: where a box whose ``}`` is missing ends (``$`` never at ``$$``)."""
    depth, i, n = 0, open_index, len(text)
    while i < n:
        c = text[i]
        if stop and depth == 1 and text.startswith(stop, i) and not (stop == '$' and text.startswith('$$', i)):
            return i
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


def brace_pairs(text: str) -> Dict[int, int]:
    """Every unescaped ``{`` -> the index of its ``}`` (unclosed ones left out), in one pass.

    Why: asking :func:`matching_brace` for each of many openers is quadratic on a reply of thousands
    of unclosed ``\\text{``; this gives the same answers for every unescaped ``{`` in linear time."""
    pairs: Dict[int, int] = {}
    stack: List[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '\\':
            i += 2
            continue
        if c == '{':
            stack.append(i)
        elif c == '}' and stack:
            pairs[stack.pop()] = i
        i += 1
    return pairs


def unclosed_braces(text: str) -> Optional[List[int]]:
    """Indices of the ``{`` still open at the end of ``text``, or None when a ``}`` closes nothing.

    The one brace-depth scan (:func:`balanced`, :mod:`.braces`): a backslash escapes the character
    after it (``\\{`` is no group); the rest of a command's name holds no brace, so skipping two
    characters counts as skipping the whole name."""
    unclosed: List[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '\\':
            i += 2
            continue
        if c == '{':
            unclosed.append(i)
        elif c == '}':
            if not unclosed:
                return None
            unclosed.pop()
        i += 1
    return unclosed


def balanced(text: str) -> bool:
    """Braces balance (escaped braces ignored)."""
    return unclosed_braces(text) == []


_OPENERS = frozenset({'{', 'langle', 'lbrace', 'lbrack', 'lceil', 'lfloor', 'lvert', 'lVert'})
_CLOSERS = frozenset({'}', 'rangle', 'rbrace', 'rbrack', 'rceil', 'rfloor', 'rvert', 'rVert'})


def _is_command(separator: str) -> bool:
    return len(separator) > 1 and separator[0] == '\\' and separator[1:].isalpha()


def top_level_split(text: str, separators: Sequence[str]) -> List[str]:
    """Split on separators outside braces and brackets, in one pass.

    A separator written ``\\name`` matches that whole command only (``\\le`` never matches inside
    ``\\left``); any other separator (``,``, ``\\\\``, ``\\text{ and }``) matches literally, longest first.
    """
    return top_level_split_keeping(text, separators)[0]


def top_level_split_keeping(text: str, separators: Sequence[str], *, after_stray_closer: bool = True
                            ) -> Tuple[List[str], List[str]]:
    """(the pieces, the separator found between each two) -- :func:`top_level_split` for callers
    that need to know which separator stood there (a relation's kind).

    ``after_stray_closer=False`` stops splitting once a closer has no opener (a ket's ``\\rangle``):
    relations are then not read, so a ket answer stays for the judge instead of being read as letters."""
    parts, found = _split_keeping(text, tuple(separators), after_stray_closer)
    return list(parts), list(found)


@short_texts
def _split_keeping(text: str, separators: Tuple[str, ...], after_stray_closer: bool
                   ) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    commands, literals, firsts, next_mark = _split_plan(separators)
    parts, found, depth, start, i, n = [], [], 0, 0, 0, len(text)
    while i < n:
        mark = next_mark(text, i)  # nothing between here and the next mark splits or nests
        if mark is None:
            break
        i = mark.start()
        top = depth == 0 or (depth < 0 and after_stray_closer)
        c = text[i]
        if top and c in firsts:
            hit = next((s for s in literals if text.startswith(s, i)), None)
            if hit:
                parts.append(text[start:i])
                found.append(hit)
                start = i = i + len(hit)
                continue
        if c == '\\':
            j = command_end(text, i)
            name = text[i + 1:j]
            if top and name in commands:
                parts.append(text[start:i])
                found.append(text[i:j])
                start = i = j
                continue
            if name in _OPENERS:
                depth += 1
            elif name == 'rangle' and depth == 0:
                pass  # |01\rangle: a ket's closer, opened by a bar (the reader reads kets)
            elif name in _CLOSERS:
                depth -= 1
            i = j
            continue
        if c in '{([':
            depth += 1
        elif c in '})]':
            depth -= 1
        i += 1
    parts.append(text[start:])
    return tuple(parts), tuple(found)


@lru_cache(maxsize=256)
def _split_plan(separators: Tuple[str, ...]):
    """The command names and literals to split on (longest first), the literals' first characters, and
    the search for the next character that may split or nest (a backslash, a bracket, a literal's
    first character): the scan jumps over the rest, which is most of any text (cost)."""
    commands = frozenset(s[1:] for s in separators if _is_command(s))
    literals = tuple(sorted((s for s in separators if not _is_command(s)), key=len, reverse=True))
    firsts = frozenset(s[0] for s in literals)
    marks = set('\\{([})]') | firsts
    return commands, literals, firsts, re.compile('[%s]' % ''.join(re.escape(c) for c in sorted(marks))).search


def boxed_spans(text: str) -> List[Tuple[int, int, int]]:
    """(box start, content start, content end) of every outermost ``\\boxed{}``/``\\fbox{}``, in order.

    A box left unclosed where its math closes (``\\[ \\boxed{x = 5 \\]``: opened right after a math
    opener, only the box still open at that math's closer) ends there: a math closer cannot stand
    inside a group, so the box's ``}`` can only be missing just before it. Any other unterminated box
    runs to the end of the text (content end ``len(text)``) and ends the scan.
    """
    spans, pos = [], 0
    pattern = re.compile(r'\\(?:boxed|fbox|framebox)\s*\{')
    while True:
        m = pattern.search(text, pos)
        if not m:
            return spans
        close = matching_brace(text, m.end() - 1, stop=_math_closer_before(text, m.start()))
        if close < 0:
            spans.append((m.start(), m.end(), len(text)))
            return spans
        spans.append((m.start(), m.end(), close))
        pos = close + 1


_MATH_OPENERS = (('\\[', '\\]'), ('$$', '$$'), ('\\(', '\\)'), ('$', '$'))


def _math_closer_before(text: str, start: int) -> str:
    """The closer of the math delimiter written right before ``start`` (``\\[`` -> ``\\]``), '' for none."""
    before = text[max(0, start - 8):start].rstrip()
    for opener, closer in _MATH_OPENERS:
        if before.endswith(opener) and not before.endswith('\\' + opener) \
                and not (opener == '$' and before.endswith('$$')):
            return closer
    return ''


def boxed_contents(text: str) -> List[str]:
    """Contents of every outermost ``\\boxed{}``/``\\fbox{}`` in order."""
    return [text[a:b] for _, a, b in boxed_spans(text)]


_ENV_RE = re.compile(r'\\(begin|end)\s*\{([A-Za-z]+\*?)\}')
DISPLAY_ENVIRONMENTS = frozenset({'equation', 'equation*', 'align', 'align*', 'gather', 'gather*',
                                  'displaymath', 'multline', 'multline*', 'eqnarray', 'eqnarray*'})


def math_spans(text: str) -> List[Tuple[str, int, int]]:
    """Closed math spans in order of their end: (kind, content start, content end).

    ``kind`` is ``display`` (``\\[..\\]``, ``$$..$$``, a display environment) or ``inline``
    (``\\(..\\)``, ``$..$``). One left-to-right pass: an opening waits for its closing; a second
    opening of the same kind before it replaces the first (math does not nest), so unclosed
    openings cost nothing more than their own characters.
    """
    spans: List[Tuple[str, int, int]] = []
    open_bracket = open_paren = open_dd = open_d = None
    env_stack: List[Tuple[str, int]] = []
    envs = {m.start(): m for m in _ENV_RE.finditer(text)} if '\\begin' in text else {}
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '\\' and i + 1 < n:
            nxt = text[i + 1]
            if nxt == '[':
                open_bracket = i + 2
                i += 2
                continue
            if nxt == ']':
                if open_bracket is not None:
                    spans.append(('display', open_bracket, i))
                    open_bracket = None
                i += 2
                continue
            if nxt == '(':
                open_paren = i + 2
                i += 2
                continue
            if nxt == ')':
                if open_paren is not None:
                    spans.append(('inline', open_paren, i))
                    open_paren = None
                i += 2
                continue
            m = envs.get(i)
            if m is not None:
                name = m.group(2)
                if name in DISPLAY_ENVIRONMENTS:
                    if m.group(1) == 'begin':
                        env_stack.append((name, m.end()))
                    elif env_stack and env_stack[-1][0] == name:
                        spans.append(('display', env_stack.pop()[1], i))
                i = m.end()
                continue
            i += 2 if nxt in '$\\{}' else 1
            continue
        if c == '$':
            if i + 1 < n and text[i + 1] == '$':
                if open_dd is None:
                    open_dd = i + 2
                else:
                    spans.append(('display', open_dd, i))
                    open_dd = None
                open_d = None
                i += 2
                continue
            if open_dd is None:
                if open_d is None:
                    open_d = i + 1
                else:
                    if i > open_d:
                        spans.append(('inline', open_d, i))
                    open_d = None
        i += 1
    spans.sort(key=lambda s: s[2])
    return spans


def strip_trailing(text: str, extra: str = '') -> str:
    """``text`` without trailing spacing commands, whitespace and ``.,;:`` (no regex backtracking).

    A character that ends a control symbol (the ``,`` of ``\\,``, the space of ``\\ ``) is part of the
    command, not punctuation or whitespace.
    """
    tails = ('\\qquad', '\\quad', '\\,', '\\;', '\\:', '\\!', '\\ ', '~', '\\\\')
    punctuation = ' \t\r\n.,;:' + extra
    while True:
        stripped = text
        for tail in tails:
            if stripped.endswith(tail) and not stripped.endswith('\\' + tail):
                stripped = stripped[:-len(tail)]
                break
        else:
            if stripped and stripped[-1] in punctuation and not stripped[:-1].endswith('\\') \
                    or stripped.endswith('\\\\' + stripped[-1:]) and stripped[-1:] in punctuation:
                stripped = stripped[:-1]
        if stripped == text:
            return text
        text = stripped


def strip_leading(text: str) -> str:
    """``text`` without leading spacing commands and whitespace."""
    heads = ('\\qquad', '\\quad', '\\,', '\\;', '\\:', '\\!', '\\ ', '~')
    while True:
        stripped = text.lstrip(' \t\r\n')
        for head in heads:
            if stripped.startswith(head) and not (head == '\\quad' and stripped.startswith('\\qquad')):
                stripped = stripped[len(head):]
                break
        if stripped == text:
            return text
        text = stripped


def group_at(text: str, i: int) -> Optional[Tuple[int, int]]:
    """(start, end) of the balanced ``(..)``/``[..]``/``{..}`` group opening at ``text[i]``."""
    if i >= len(text) or text[i] not in '([{':
        return None
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                return i, j + 1
    return None


def despace(text: str) -> str:
    """``\\ f r a c { 1 } { 2 }`` (a space after every character) back to ``\\frac{1}{2}``."""
    if re.search(r'\\ [A-Za-z] [A-Za-z] ', text) and text.count(' ') > 0.4 * len(text):
        return re.sub(r'\s+', '', text)
    return text
