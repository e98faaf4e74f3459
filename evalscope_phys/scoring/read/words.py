"""Words in answers: whether a text is prose rather than a formula, and its words for comparison.

Why a module: "counterclockwise", "the ball moves left" and Chinese conclusions are answers a
formula reader must not turn into products of letters, while ``mgh`` and ``\\mathrm{Re}`` are not prose.
"""
from __future__ import annotations

import re
from typing import List

from .scan import brace_pairs, command_end, matching_brace
from .text_memo import short_texts
from .vocabulary import FUNCTIONS, FUNCTION_ALIASES, GREEK, OTHER_SYMBOLS

_TEXT_CMD_RE = re.compile(r'\\(?:text|textrm|textnormal|textit|textbf|mathrm|mbox|textsf|mathit|operatorname)\s*\{')


MATH_WORDS = frozenset(FUNCTIONS | set(FUNCTION_ALIASES) | GREEK | OTHER_SYMBOLS
                       | {'det', 'const', 'pi', 'lim', 'sgn', 'erf', 'Tr', 'tr', 'cm', 'max', 'min', 'div', 'grad',
                          'curl', 'rot', 'mod', 'arg', 'sinc', 'infty', 'nabla', 'partial'})
"""Letter runs that are mathematics (functions, Greek letters, named symbols), never prose."""


#: words that make plain text (outside \text{}) prose rather than a product of symbols
ENGLISH = frozenset({'the', 'is', 'are', 'a', 'an', 'of', 'to', 'in', 'on', 'at', 'for', 'with', 'by',
                     'as', 'that', 'this', 'it', 'from', 'be', 'will', 'not', 'no', 'yes', 'than', 'which', 'its',
                     'into', 'so', 'then', 'there', 'when', 'if', 'has', 'have', 'was', 'were', 'answer', 'final',
                     'therefore', 'thus', 'hence', 'because', 'since', 'does', 'do', 'can', 'cannot', 'would',
                     'and', 'or', 'both', 'neither', 'nor'})


SYNONYMS = (
    frozenset({'counterclockwise', 'anticlockwise', 'ccw'}), frozenset({'clockwise', 'cw'}),
    frozenset({'same', 'unchanged', 'constant', 'equal', 'equally'}), frozenset({'zero', 'none', 'nothing', 'vanishes'}),
    frozenset({'yes', 'true', 'correct'}), frozenset({'no', 'false', 'incorrect'}),
    frozenset({'up', 'upward', 'upwards', 'above'}), frozenset({'down', 'downward', 'downwards', 'below'}),
    frozenset({'increases', 'increase', 'increasing', 'grows', 'rises'}),
    frozenset({'decreases', 'decrease', 'decreasing', 'drops', 'falls', 'reduces'}),
    frozenset({'larger', 'bigger', 'greater', 'more', 'higher'}), frozenset({'smaller', 'less', 'lesser', 'lower', 'fewer'}),
    frozenset({'perpendicular', 'orthogonal', 'normal'}), frozenset({'parallel', 'aligned'}),
    frozenset({'inward', 'inwards', 'inside'}), frozenset({'outward', 'outwards', 'outside'}),
    frozenset({'infinity', 'infinite', 'unbounded'}), frozenset({'attractive', 'attracting', 'attraction'}),
    frozenset({'repulsive', 'repelling', 'repulsion'}),
)
"""Words a physicist may use for one another: different words of one group are sent to the judge, not rejected."""


#: answer words read as words even when short or in capitals (``up``, ``no``, ``TRUE``); 4+ letter words need no list
ANSWER_WORDS = frozenset({'impossible', 'undefined', 'left', 'right', 'north', 'south', 'east', 'west', 'top',
                          'bottom', 'out', 'on', 'off', 'odd', 'even', 'high', 'low', 'far', 'near', 'forward',
                          'backward', 'positive', 'negative'}
                         | {w for group in SYNONYMS for w in group if w not in ('cw', 'ccw')})


NUMBER_WORDS = {'zero': '0', 'infinity': '\\infty', 'infinite': '\\infty'}
"""A bare word that is a value: compared with a formula reference as that value."""


CJK_CHARS = '\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff'
"""Kana and CJK ideographs, as a character-class range (for patterns that keep or drop them)."""
CJK_RE = re.compile(f'[{CJK_CHARS}]')
"""Chinese/Japanese characters: the one pattern every module uses (a CJK text is prose, never a formula)."""


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


CONNECTIVES = frozenset({'and', 'hence', 'thus', 'so', 'therefore', 'then', 'also', 'i.e.', 'ie', 'i.e',
                         'where', 'giving', 'yielding', 'whence', 'consequently', 'we', 'have', 'get', 'find',
                         'obtain', 'finally'})
"""Words that join two lines of an answer (``\\text{and}``, ``\\text{ hence}``, ``\\text{so we get}``), never
``or``: a line between two answers that says ``or`` makes them alternatives (a hedge), not a list."""


def is_connective(text: str) -> bool:
    """Whether a line is nothing but joining words (:data:`CONNECTIVES`), with their wrappers and punctuation.

    Why: an ``aligned`` block's line ``\\text{and}`` between two results was read as an answer piece
    (a product of letters) and paired with a reference part in place of the result it joined."""
    plain = re.sub(r'\\(?:text|textrm|textnormal|textit|textbf|mathrm|mbox|emph)\s*\{([^{}]*)\}', r' \1 ', text)
    plain = re.sub(r'\\(?:q?quad|[ ,;:!])', ' ', plain).replace('~', ' ')
    words = re.sub(r'[,;:!.]+(\s|$)', ' ', plain).lower().split()
    return bool(words) and all(w in CONNECTIVES for w in words)


@short_texts
def is_prose(text: str) -> bool:
    """Words rather than a formula: the one text detector of reading, locating and routing.

    Prose is Chinese/Japanese characters; a text of nothing but words (``north``, ``\\text{Clockwise}``,
    ``to the left``, ``\\text{A and C}``); or several words beside mathematics (``v = 3 \\text{ because
    the block slides}``). A word is a run of 4+ letters with a vowel and no capital inside it, an
    answer word (``up``, ``no``, ``TRUE``), or a 3-letter run inside ``\\text{}``; functions, Greek
    letters, units and names in sub/superscripts are not words, and ``mg``, ``kT``, ``RC``, ``v t``,
    ``mgh``, ``\\omega t`` and ``3\\,\\text{blorps}`` (a value with a unit we do not know) are formulas.
    """
    if not text:
        return False
    if CJK_RE.search(text):
        return True
    plain = _letters_and_math(text)
    in_groups = {w.lower() for group in text_groups(text) for w in _WORD_RE.findall(group)}
    bare = not _NOT_BARE_RE.sub('', plain)
    runs = _WORD_RE.findall(plain)
    words = english = 0
    for run in runs:  # stops at the first decisive word: a long answer costs what its first words cost
        kind = _kind(run, run.lower() in in_groups)
        words += kind == 'word'
        english += kind == 'english'
        if (bare and words) or words >= 2 or english >= 2 or (english and words):
            return True
    return bool(bare and english and len(runs) >= 2 and not _strip_text_groups(text).strip(_PUNCTUATION))  # \text{A and C}


_WORD_RE = re.compile(r'[^\W\d_]+')
_MATH = '\x01'
_PUNCTUATION = ' \t\n.,;:!?\'"()-{}~'
#: what is left of a text of nothing but words once its letters and punctuation go
_NOT_BARE_RE = re.compile(r'[^\W\d_]+|[\s.,;:!?\'"()\-{}~]')
#: commands that wrap words or space them, not mathematics
_WORD_COMMANDS = frozenset({'\\text', '\\textrm', '\\textnormal', '\\textit', '\\textbf', '\\mathrm', '\\mbox',
                            '\\textsf', '\\mathit', '\\operatorname', '\\emph', '\\,', '\\;', '\\:', '\\!', '\\ ',
                            '\\quad', '\\qquad', '\\left', '\\right'})


def _kind(run: str, in_text_group: bool) -> str:
    """``word``, ``english`` (a function word), or ``other`` (a function, Greek letter, unit, product of symbols)."""
    low = run.lower()
    if low in ANSWER_WORDS and (run.islower() or run.isupper() or run[1:].islower()):
        return 'word'
    if run in MATH_WORDS or low in MATH_WORDS or any(ch.isupper() for ch in run[1:]):
        return 'other'  # IkT, mgL: a product of symbols
    if low in ENGLISH:
        kind = 'english' if len(run) >= 3 or in_text_group else 'other'
    elif (not run.isascii() or re.search('[aeiouy]', low)) and (len(run) >= 4 or (len(run) == 3 and in_text_group)):
        kind = 'word'
    else:
        return 'other'
    from ..compare.units import parse_unit  # only for runs that would be words: the unit registry is slow to ask
    return 'other' if parse_unit(run) is not None else kind


def _letters_and_math(text: str) -> str:
    """``text`` with each piece of mathematics (a command, a sub/superscript, an environment name) one mark.

    Why: ``E_{\\text{th}}``, ``H_{\\mathrm{vap}}`` and ``\\begin{aligned}`` name things; their letters are
    labels, not prose; the words of ``\\text{}`` stay. One pass; an unclosed brace ends the text.
    """
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in '_^':
            j = i + 1
            while j < n and text[j] == ' ':
                j += 1
            if j < n and text[j] == '{':
                close = matching_brace(text, j)
                i = close + 1 if close >= 0 else n
            elif j < n and text[j] == '\\':
                i = command_end(text, j)
            else:
                i = j + 1
            out.append(_MATH)
        elif c == '\\':
            end = command_end(text, i)
            name = text[i:end]
            if name == '\\\\' and end < n and text[end].isascii() and text[end].isalpha():
                end = command_end(text, end - 1)  # ``\\\\left(``: a command escaped twice, not the word "left"
            if name in ('\\begin', '\\end') and end < n and text[end] == '{':
                close = matching_brace(text, end)
                end = close + 1 if close >= 0 else n
            out.append(' ' if name in _WORD_COMMANDS else _MATH)
            i = end
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def _strip_text_groups(text: str) -> str:
    out, pos = [], 0
    pairs = brace_pairs(text)
    for m in _TEXT_CMD_RE.finditer(text):
        if m.start() < pos:
            continue
        close = pairs.get(m.end() - 1, -1)
        if close < 0:
            break
        out.append(text[pos:m.start()])
        pos = close + 1
    out.append(text[pos:])
    return ''.join(out)


def word_relation(reference: str, answer: str) -> str:
    """How two texts' words (:func:`words_of`) relate: ``equivalent``, ``hedged``, ``not_equivalent`` or ``undecided``.

    Case, spacing, hyphens and wrappers do not matter; an ``or`` list holding the reference is a
    hedge; two different words (one or two each: ``north``/``thorn``, ``left``/``felt``, ``to the
    left``/``to the right``) are different unless a physicist may mean the same by them (one
    :data:`SYNONYMS` group, or one an inflection of the other: ``up``/``upward``), which the judge
    decides; so are longer phrases that differ (a paraphrase is possible).
    """
    ref, ans = reference.split(), answer.split()
    if _key(ref) == _key(ans):
        return 'equivalent'
    options = ' '.join(ans).split(' or ')
    if len(options) > 1 and any(_key(o.split()) == _key(ref) for o in options):
        return 'hedged'
    if len(ref) == len(ans):
        diff = [(r, a) for r, a in zip(ref, ans) if r != a]
        if len(diff) == 1 and (len(ref) <= 2 or all(w in ANSWER_WORDS for w in diff[0])):
            return 'undecided' if _may_mean_the_same(*diff[0]) else 'not_equivalent'
    if len(ref) <= 2 and len(ans) <= 2:
        return 'undecided' if _may_mean_the_same(_key(ref), _key(ans)) else 'not_equivalent'
    return 'undecided'


def _key(words: List[str]) -> str:
    return ''.join(words).replace('-', '')


def _may_mean_the_same(a: str, b: str) -> bool:
    if any(a in group and b in group for group in SYNONYMS):
        return True
    short = min(len(a), len(b))
    common = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), short)
    return common == short or (short >= 5 and common >= short - 2)
