"""The choices a question offers: the unit of a list of values, and the lettered options it lists.

The unit (``10^3, 10^6, 10^9, 10^{12} years``). Why: a multiple-choice question lists its values with one
unit at the end, and the reference keeps only the number (``10^9``); an answer ``10^9 \\text{ years}``
then states the question's own unit, not one the reference cannot check. Only a list of plain numbers
that holds the reference's value counts, and only the unit written right after it.

The options (``(a) electron spin-orbit coupling. (b) ... (c) ...``). Why: the reference is the option's
label (``(a)``) and the model answers with the option's words, with or without its label; those words
name the option only when they are one option's text exactly (:func:`named_option`). A paraphrase, or
a label with another option's words, is the judge's.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ..answer import Text
from ..read.labels import label_key

_NUMBER = (r'\$*\s*[-+]?\d+(?:\.\d+)?(?:\s*(?:\\times|\\cdot)\s*10)?'
           r'(?:\s*\^\s*(?:\{\s*[-+]?\s*\d+\s*\}|[-+]?\d))?\s*\$*')
_LIST_RE = re.compile(rf'(?P<list>{_NUMBER}(?:\s*(?:,|\bor\b)\s*{_NUMBER}){{2,}})\s*(?P<unit>[^.\n,;:?]{{1,40}}?)\s*(?:[.;:?\n]|$)')
MAX_QUESTION_CHARS = 20_000
"""Only this much of a question is searched (the search is linear, but questions are short)."""


def offered_unit(question: str, value: float) -> Optional[str]:
    """The unit written after a list of choices that holds ``value``, else None."""
    from ..read.latex import LatexError, to_sympy
    for m in _LIST_RE.finditer(question[:MAX_QUESTION_CHARS]):
        unit = m.group('unit').strip().strip('$').strip()
        if not unit:
            continue
        for item in re.split(r',|\bor\b', m.group('list')):
            try:
                number = float(to_sympy(item.strip().strip('$').strip()))
            except (LatexError, TypeError, ValueError, RecursionError):
                continue
            if number == value or (value and abs(number - value) <= 1e-9 * abs(value)):
                return unit
    return None


def is_offered_unit(question: str, value: float, unit_text: str) -> bool:
    """Whether ``unit_text`` is the unit of the question's choices that hold ``value`` (one pint unit)."""
    from .units import parse_unit
    offered = offered_unit(question, value)
    if offered is None:
        return False
    mine, theirs = parse_unit(unit_text), parse_unit(offered)
    return mine is not None and theirs is not None and mine == theirs


# --- the lettered options a question lists, and the option a word answer names ---------------------------

_OPTION_RE = re.compile(r'(?:^|(?<=[\s.,;:]))\(\s*([a-hA-H])\s*\)(?=\s)')
"""An option's label, ``(a)`` or ``( a )``, where a clause can start (never the argument of ``f(a)``)."""
_ANSWER_LABEL_RE = re.compile(r'^(\s*\\(?:text|textrm|textbf|mbox)\s*\{)\s*\(\s*([a-hA-H])\s*\)')
"""A label written inside the answer's first text group, ``\\text{(a) electron spin-orbit coupling}``."""
_TEXT_GROUP_RE = re.compile(r'\\(?:text|textrm|textnormal|textit|textbf|textsf|mbox|emph)\s*\{([^{}]*)\}')
_QUESTION_MATH_RE = re.compile(r'\$\$?([^$]*)\$\$?|\\\((.*?)\\\)', re.S)
_DASHES_RE = re.compile('[-\u2010\u2011\u2012\u2013\u2014\u2015\u2212]')
_TOKEN_RE = re.compile(r"[^\W_]+|[^\w\s.,;:!?'\"()\[\]`]")
_WORDS_ONLY_RE = re.compile(r"[A-Za-z\s.,;:!?'\-]*")
"""A stretch of an answer's math that is plain words (``decreases exponentially`` typed without \\text)."""
_SPACING_RE = re.compile(r'\s+|\\[,;:! ]|\\q?quad(?![A-Za-z])|~')


def listed_options(question: str) -> Dict[str, str]:
    """The lettered options the question ends with (``(a) ... (b) ... (c) ...``): letter -> its text.

    The last run of labels in order from ``(a)``, two at least; each option runs to the next label, the last
    one to the end of its paragraph. {} when the question lists none."""
    found = list(_OPTION_RE.finditer(question[:MAX_QUESTION_CHARS]))
    starts = [i for i, m in enumerate(found) if m.group(1).lower() == 'a']
    for first in reversed(starts):
        run = [found[first]]
        for m in found[first + 1:]:
            if m.group(1).lower() != chr(ord(run[-1].group(1).lower()) + 1):
                break
            run.append(m)
        if len(run) < 2:
            continue
        ends = [m.start() for m in run[1:]] + [len(question[:MAX_QUESTION_CHARS])]
        texts = [question[m.end():end] for m, end in zip(run, ends)]
        texts[-1] = re.split(r'\n\s*\n', texts[-1].strip(), maxsplit=1)[0]
        return {m.group(1).lower(): text.strip() for m, text in zip(run, texts)}
    return {}


def option_key(text: str, math_mode: bool) -> Tuple[str, ...]:
    """An option's text as compared: its words in lower case, dashes as spaces, punctuation and ``\\text{}``
    gone; each formula one token, exact but for spacing (``\\mathbf{B}`` is not ``\\mathbf{H}``).

    ``math_mode``: an answer is LaTeX whose words sit in ``\\text{}``; a question is text whose formulas
    sit in ``$...$``."""
    pieces: List[Tuple[bool, str]] = []  # (is words, text)
    pattern = _TEXT_GROUP_RE if math_mode else _QUESTION_MATH_RE
    position = 0
    for m in pattern.finditer(text):
        pieces.append((not math_mode, text[position:m.start()]))
        pieces.append((math_mode, m.group(1) if m.group(1) is not None else m.group(2)))
        position = m.end()
    pieces.append((not math_mode, text[position:]))
    tokens: List[str] = []
    for words, piece in pieces:
        if not words and _WORDS_ONLY_RE.fullmatch(piece):
            words = True
        if words:
            tokens.extend(_TOKEN_RE.findall(_DASHES_RE.sub(' ', piece).lower()))
        elif _SPACING_RE.sub('', piece).strip('.,;:'):
            tokens.append('$' + _SPACING_RE.sub('', piece).strip('.,;:'))
    return tuple(tokens)


def named_option(question: str, answer: Text) -> Tuple[Optional[str], str]:
    """The one option a word answer names (its letter) and '', or None and why it names none.

    By its label (``(a)`` before the words) and by its words equal to one option's text (:func:`option_key`);
    when both are written they must agree. A paraphrase, words two options share, a label and another
    option's words, or a question that lists no options: None (the judge reads it)."""
    listed = listed_options(question)
    if not listed:
        return None, 'the question lists no options'
    raw, label = answer.raw, label_key(answer.label) if answer.label else ''
    inner = _ANSWER_LABEL_RE.match(raw)
    if inner and not label:
        label, raw = inner.group(2).lower(), inner.group(1) + raw[inner.end():]
    if label and label not in listed:
        return None, f'the answer\'s label ({label}) is no option of the question'
    words = option_key(raw, math_mode=True)
    if not words:
        return (label, '') if label else (None, 'no words')
    keys = {letter: option_key(text, math_mode=False) for letter, text in listed.items()}
    by_words = [letter for letter, key in keys.items() if key == words]
    if len(by_words) > 1:
        return None, f'the words are those of options {", ".join(by_words)}'
    # the reader drops a leading sentence or a trailing one beside a formula: words that begin or end
    # another option may be what is left of it
    within = [letter for letter, key in keys.items() if len(key) > len(words)
              and (key[:len(words)] == words or key[-len(words):] == words)]
    if within:
        return None, f'the words begin or end option ({within[0]}) too'
    if label:
        if by_words == [label]:
            return label, ''
        return None, (f'label ({label}) with the words of option ({by_words[0]})' if by_words
                      else f'label ({label}) with words that are not the option\'s')
    if by_words:
        return by_words[0], ''
    return None, 'the words are no option\'s text'
