"""Words in answers: whether a text is prose rather than a formula, and its words for comparison.

Why a module: "counterclockwise", "the ball moves left" and Chinese conclusions are answers a
formula reader must not turn into products of letters, while ``mgh`` and ``\\mathrm{Re}`` are not prose.
"""
from __future__ import annotations

import re
from typing import List

from .scan import matching_brace
from .vocabulary import FUNCTIONS, FUNCTION_ALIASES, GREEK, OTHER_SYMBOLS

_TEXT_CMD_RE = re.compile(r'\\(?:text|textrm|textnormal|textit|textbf|mathrm|mbox|textsf|mathit|operatorname)\s*\{')


MATH_WORDS = frozenset(FUNCTIONS | set(FUNCTION_ALIASES) | GREEK | OTHER_SYMBOLS
                       | {'det', 'const', 'pi', 'lim', 'sgn', 'erf', 'and', 'or', 'Tr', 'tr', 'cm', 'max', 'min'})


#: words that make plain text (outside \text{}) prose rather than a product of symbols
ENGLISH = frozenset({'the', 'is', 'are', 'a', 'an', 'of', 'to', 'in', 'on', 'at', 'for', 'with', 'by',
                     'as', 'that', 'this', 'it', 'from', 'be', 'will', 'not', 'no', 'yes', 'than', 'which', 'its',
                     'into', 'so', 'then', 'there', 'when', 'if', 'has', 'have', 'was', 'were', 'answer', 'final',
                     'therefore', 'thus', 'hence', 'because', 'since', 'does', 'do', 'can', 'cannot', 'would'})


ANSWER_WORDS = frozenset({'yes', 'no', 'true', 'false', 'none', 'zero', 'impossible', 'undefined'})


CJK_RE = re.compile(r'[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]')


def text_groups(text: str) -> List[str]:
    """Contents of the top-level ``\\text{..}``-like groups."""
    out, pos = [], 0
    while True:
        m = _TEXT_CMD_RE.search(text, pos)
        if not m:
            return out
        close = matching_brace(text, m.end() - 1)
        if close < 0:
            return out
        out.append(text[m.end():close])
        pos = close + 1


def words_of(text: str) -> str:
    """The words of a text answer: wrappers and punctuation gone, lower case, single spaces."""
    plain = text
    for _ in range(3):
        plain = re.sub(r'\\(?:text|textrm|textnormal|textit|textbf|mathrm|mbox|textsf|mathit|operatorname|emph)\s*\{([^{}]*)\}',
                       r' \1 ', plain)
    plain = re.sub(r'\\[A-Za-z]+|\\.', ' ', plain)
    plain = re.sub(r"[{}()\[\]$.,;:!?\"'`*_~]", ' ', plain)
    return ' '.join(plain.lower().split())


def is_prose(text: str) -> bool:
    """Words rather than a formula: Chinese characters, or words outside math (units, functions aside).

    Words in a ``\\text{}`` group count when they are 3+ letters and not a unit or function name;
    outside text groups only several words separated by spaces count (``mgh`` is a product).
    """
    if CJK_RE.search(text):
        return True
    from .units import parse_unit
    words = []
    for group in text_groups(text):
        words += [w for w in re.findall(r'[A-Za-z]+', group) if len(w) >= 3 or w.lower() in ANSWER_WORDS]
    outside = re.sub(r'\\[A-Za-z]+', ' ', _strip_text_groups(text))
    plain_words = re.findall(r'(?<![A-Za-z_^\\])[A-Za-z]+(?![A-Za-z])', outside)
    prose = [w for w in words if w.lower() not in MATH_WORDS and parse_unit(w) is None]
    english = [w for w in plain_words if len(w) >= 3 and w.lower() in ENGLISH]
    long_words = [w for w in plain_words if len(w) >= 4 and w.islower() and re.search('[aeiou]', w)
                  and w not in MATH_WORDS]
    if any(w.lower() in ANSWER_WORDS for w in prose):
        return True
    math_left = re.sub(r'[A-Za-z\s.,;:!?\'"()-]', '', _strip_text_groups(text))
    if prose and not math_left:
        return True
    return len(prose) >= 2 or len(english) >= 2 or (english and long_words) or len(long_words) >= 3


def _strip_text_groups(text: str) -> str:
    out, pos = [], 0
    for m in _TEXT_CMD_RE.finditer(text):
        if m.start() < pos:
            continue
        close = matching_brace(text, m.end() - 1)
        if close < 0:
            break
        out.append(text[pos:m.start()])
        pos = close + 1
    out.append(text[pos:])
    return ''.join(out)
