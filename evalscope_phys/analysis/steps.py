"""A model's solution as numbered steps, so a judge can name the first wrong one by its index.

A step is a sentence (or a clause after ';') or a line of the solution; math is never cut: line
breaks and full stops inside ``$...$``, ``$$...$$``, ``\\[...\\]``, ``\\(...\\)`` and
``\\begin{..}...\\end{..}`` stay in their step. A blank line closes any math left open (LaTeX allows
none inside math), so an unbalanced ``$`` in a truncated reply cannot swallow the rest of the text.
One linear scan; the text is untrusted.
"""
from __future__ import annotations

import re
from typing import List, Tuple

#: characters of a solution shown to the judge; a runaway reply must not blow the judge's context
MAX_SOLUTION_CHARS = 24_000
#: steps shown; past this the rest of the solution is one last step, so nothing is hidden
MAX_STEPS = 150
#: a lead-in this short ending in ':' ("We have:", "Energy conservation:") belongs to what follows
_LEAD_IN_CHARS = 80

_ENV_BEGIN = re.compile(r'\\begin\{([A-Za-z*]+)\}')
_ITEM = re.compile(r'\d{1,3}[.)]\s')  # '2. Then ...' starts the next numbered item
_LIST_MARKER = re.compile(r'(?:^|\s)(?:\d{1,3}|[A-Za-z]|[ivx]{1,4}|Eq|Eqs|Fig|No|vs|e\.g|i\.e|cf)\.$')


def solution_steps(text: str) -> List[str]:
    """The solution's steps in order (stripped, none empty); at most :data:`MAX_STEPS`."""
    text = (text or '')[:MAX_SOLUTION_CHARS].replace('\r\n', '\n').replace('\r', '\n')
    steps: List[str] = []
    for piece in _split(text):
        piece = piece.strip()
        if not any(ch.isalnum() for ch in piece):
            continue  # rules ('---'), bare bullets, stray markup
        if steps and steps[-1].endswith(':') and len(steps[-1]) <= _LEAD_IN_CHARS:
            steps[-1] = f'{steps[-1]} {piece}'
        else:
            steps.append(piece)
    if len(steps) > MAX_STEPS:
        steps = steps[:MAX_STEPS - 1] + [' '.join(steps[MAX_STEPS - 1:])]
    return steps


def numbered(steps: List[str]) -> str:
    """``[1] first step`` lines, the form the judge quotes from."""
    return '\n'.join(f'[{i}] {step}' for i, step in enumerate(steps, 1))


def _split(text: str) -> List[str]:
    pieces: List[str] = []
    start, i, n = 0, 0, len(text)
    closer = ''  # the string that ends the math we are in ('' = not in math)
    while i < n:
        ch = text[i]
        if ch == '\n' and text.startswith('\n\n', i) or (ch == '\n' and not closer):
            closer = ''
            pieces.append(text[start:i])
            start = i = i + 1
            continue
        if ch == '\\' and i + 1 < n:
            closer, i = _backslash(text, i, closer)
            continue
        if ch == '$':
            token = '$$' if text.startswith('$$', i) else '$'
            if closer == token:
                closer = ''
            elif not closer:
                closer = token
            i += len(token)
            continue
        if not closer and ch in '.!?;。；' and _sentence_ends(text, start, i):
            pieces.append(text[start:i + 1])
            start = i + 1
        i += 1
    pieces.append(text[start:])
    return pieces


def _backslash(text: str, i: int, closer: str) -> Tuple[str, int]:
    """(math closer after the command at ``i``, index after it)."""
    two = text[i:i + 2]
    if not closer and two in ('\\[', '\\('):
        return ('\\]' if two == '\\[' else '\\)'), i + 2
    if closer and two == closer:
        return '', i + 2
    if not closer:
        begin = _ENV_BEGIN.match(text, i)
        if begin:
            return f'\\end{{{begin.group(1)}}}', begin.end()
    elif closer.startswith('\\end{') and text.startswith(closer, i):
        return '', i + len(closer)
    return closer, i + 2  # any other command, or an escaped character such as \$ or \.


def _sentence_ends(text: str, start: int, i: int) -> bool:
    """A full stop (or ';') ends a step when a capital, math or an item number follows, and it is not '1.' or 'Eq.'."""
    j = i + 1
    if j >= len(text) or text[j] not in ' \t':
        return False
    while j < len(text) and text[j] in ' \t':
        j += 1
    if j >= len(text) or not (text[j].isupper() or text[j] == '$' or text.startswith(('\\[', '\\('), j)
                              or _ITEM.match(text, j)):
        return False
    return not _LIST_MARKER.search(text[max(start, i - 8):i + 1])
