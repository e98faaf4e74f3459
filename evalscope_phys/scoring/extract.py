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
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from .vocabulary import FUNCTION_ALIASES, FUNCTIONS, GREEK, OTHER_SYMBOLS
from .answer import (Alternatives, Answer, Choice, Collection, Definition, Empty, Interval, Relation, Text,
                     Truth, Unit, Unreadable, Value)
from .scan import (balanced, boxed_contents, boxed_spans, command_end, despace, group_at, matching_brace, math_spans,
                   strip_leading, strip_trailing, top_level_split)

EXTRACT_WINDOW = 50_000
"""Characters at the end of a response that are searched for the final answer."""
MAX_ANSWER_CHARS = 10_000
"""A located final answer longer than this is refused as the model's failure (real ones reach 1,600)."""
WHOLE_TEXT_MAX_CHARS = 1000
"""Prose with no box or formula is its own answer only up to this length (a bare formula is)."""
MAX_ITEMS = 64
"""Parts of one answer (list items, alternatives, matrix entries) beyond this are refused."""

SOURCES = ('boxed', 'boxes', 'final_answer_line', 'display', 'inline', 'whole', 'last_line', 'none')


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


# --------------------------------------------------------------------------- Unicode and plain text

_SUPERSCRIPTS = dict(zip('⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ', '0123456789+-=()ni'))
_SUBSCRIPTS = dict(zip('₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜ', '0123456789+-=()aeoxhklmnpst'))
_UNICODE = {
    '√': '\\sqrt ', '∛': '\\sqrt[3] ', 'π': '\\pi ', '×': '\\times ', '·': '\\cdot ', '⋅': '\\cdot ', '∙': '\\cdot ',
    '−': '-', '–': '-', '∞': '\\infty ', '½': '\\frac{1}{2}', '¼': '\\frac{1}{4}', '¾': '\\frac{3}{4}',
    '∼': '\\sim ', '≈': '\\approx ', '≃': '\\simeq ', '≅': '\\approx ', '≤': '\\leq ', '≥': '\\geq ',
    '≠': '\\neq ', '±': '\\pm ', '∓': '\\mp ', '∝': '\\propto ', '→': '\\to ', '⟶': '\\to ', '⇒': '\\Rightarrow ',
    '≪': '\\ll ', '≫': '\\gg ', '∈': '\\in ', '∪': '\\cup ', '⟨': '\\langle ', '⟩': '\\rangle ', '∂': '\\partial ',
    '∫': '\\int ', '∑': '\\sum ', '∇': '\\nabla ', 'ℏ': '\\hbar ', 'ħ': '\\hbar ', '°': '^{\\circ}', '′': "'",
    '″': "''", 'Å': '\\AA ', 'µ': '\\mu ', '\u2003': ' ', '\u2002': ' ', '\u2009': ' ', '\u00a0': ' ',
    '\u202f': ' ', '\u200b': '', '\ufeff': '',
    'α': '\\alpha ', 'β': '\\beta ', 'γ': '\\gamma ', 'δ': '\\delta ', 'ε': '\\varepsilon ', 'ϵ': '\\varepsilon ',
    'ζ': '\\zeta ', 'η': '\\eta ', 'θ': '\\theta ', 'ϑ': '\\vartheta ', 'ι': '\\iota ', 'κ': '\\kappa ',
    'λ': '\\lambda ', 'μ': '\\mu ', 'ν': '\\nu ', 'ξ': '\\xi ', 'ρ': '\\rho ', 'σ': '\\sigma ', 'τ': '\\tau ',
    'υ': '\\upsilon ', 'φ': '\\phi ', 'ϕ': '\\phi ', 'χ': '\\chi ', 'ψ': '\\psi ', 'ω': '\\omega ',
    'Γ': '\\Gamma ', 'Δ': '\\Delta ', 'Θ': '\\Theta ', 'Λ': '\\Lambda ', 'Ξ': '\\Xi ', 'Π': '\\Pi ',
    'Σ': '\\Sigma ', 'Φ': '\\Phi ', 'Ψ': '\\Psi ', 'Ω': '\\Omega ',
}
_UNICODE_RE = re.compile('|'.join(re.escape(k) for k in sorted(_UNICODE, key=len, reverse=True)))
_SCRIPT_RUN_RE = re.compile('[%s]+|[%s]+' % (''.join(_SUPERSCRIPTS), ''.join(_SUBSCRIPTS)))
_PLAIN_OPERATORS = (('**', '^'), ('>=', '\\geq '), ('<=', '\\leq '), ('!=', '\\neq '), ('==', '='),
                    ('+/-', '\\pm '), ('+-', '\\pm '), ('->', '\\to '))


def to_latex(text: str) -> str:
    """Unicode math as LaTeX (``v₀`` -> ``v_{0}``, ``x⁻³`` -> ``x^{-3}``, ``≈`` -> ``\\approx``)."""
    if not text.isascii():
        text = _SCRIPT_RUN_RE.sub(_script_run, text)
        text = _UNICODE_RE.sub(lambda m: _UNICODE[m.group(0)], text)
        if not text.isascii() and not _CJK_RE.search(text):  # CJK text keeps its own punctuation
            text = unicodedata.normalize('NFKC', text)
    return text


def plain_operators(text: str) -> str:
    """Plain-text operators of a located answer as LaTeX (``**`` -> ``^``, ``>=`` -> ``\\geq``)."""
    for plain, latex in _PLAIN_OPERATORS:
        if plain in text:
            text = text.replace(plain, latex)
    return text


def _script_run(match: 're.Match[str]') -> str:
    run = match.group(0)
    if run[0] in _SUPERSCRIPTS:
        return '^{%s}' % ''.join(_SUPERSCRIPTS[c] for c in run)
    return '_{%s}' % ''.join(_SUBSCRIPTS[c] for c in run)


# --------------------------------------------------------------------------- locating

_BACKSLASH_SPACE_RE = re.compile(r'(?<!\\)\\ ')
_FINAL_RE = re.compile(r'(?i)(final\s+answer|the\s+answer\s+is|answer\s*[:：])')


def locate(response: str) -> Tuple[List[str], str]:
    """The final answer's text (several texts for several boxes) and where it was found."""
    text = _BACKSLASH_SPACE_RE.sub(r'\\,', response[-EXTRACT_WINDOW:])
    if '\\\\boxed' in text:  # a doubly escaped box copied from JSON
        text = text.replace('\\\\boxed', '\\boxed')
    boxes = boxed_spans(text)
    finals = list(_FINAL_RE.finditer(text[-5000:]))
    offset = max(0, len(text) - 5000)
    if boxes and finals and offset + finals[-1].start() > boxes[-1][2]:
        boxes = []  # "Final Answer: ..." written after the last box is the final word
    if boxes:
        contents = [text[a:b] for _, a, b in boxes]
        if len(contents) > 1:
            gap = text[boxes[-2][2] + 1:boxes[-1][0]]
            if len(gap) < 40 and re.search(r'(?i)\bor\b', gap):  # \boxed{4} or \boxed{6}: a hedge
                return [contents[-2] + ' \\text{ or } ' + contents[-1]], 'boxed'
            return contents, 'boxes'
        return [contents[0] + _unit_after(contents[0], text, boxes[-1][2] + 1)], 'boxed'
    if finals:
        tail = text[offset + finals[-1].end():].lstrip(' \t*:：')
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
    if spans and re.search(r'\d', after) and len(after.strip()) > 20 and _is_long_prose(after + ' x x x x'):
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
    if len(stripped) <= WHOLE_TEXT_MAX_CHARS or not _is_long_prose(stripped):
        return [stripped], 'whole'
    lines = [line.strip() for line in stripped.splitlines() if line.strip()]
    last = lines[-1] if lines else ''
    if len(last) > 300:  # one long paragraph: its last sentence that states a number
        sentences = [x for x in re.split(r'(?<=[.!?])\s+', last[-5000:]) if re.search(r'\d', x)]
        last = sentences[-1] if sentences else ''
    if last and len(last) <= WHOLE_TEXT_MAX_CHARS:
        return [last], 'last_line'
    return [], 'none'


def _unit_after(content: str, text: str, end: int) -> str:
    """`` $5$ m/s`` and ``\\boxed{28} pct``: a unit written just after a number's math span belongs to it."""
    if not re.search(r'\d\s*$', content) or end >= len(text):
        return ''
    words = re.match(r'(?:\$|\\\)|\\\]|\})*[ \t]*([^\s.,;:!?$\\][^\n.,;:!?$]{0,30})', text[end:end + 40])
    if not words:
        return ''
    from .units import parse_unit
    tokens = words.group(1).split()
    for count in range(min(3, len(tokens)), 0, -1):
        candidate = ' '.join(tokens[:count])
        if candidate.lower() in ('a', 'is', 'in', 'at', 'and', 'or', 'to', 'of', 'for', 'as', 'the'):
            continue
        if parse_unit(candidate) is not None:
            return ' ' + candidate
    return ''


def _is_long_prose(text: str) -> bool:
    words = re.findall(r'(?<![\\A-Za-z])[A-Za-z]{2,}\b', text[:5000])
    return len(words) >= 6


# --------------------------------------------------------------------------- cleaning

_WRAPPER_RE = re.compile(r'^\s*(\\displaystyle|\\textstyle|\\scriptstyle)\s*')
_LABEL_RE = re.compile(r'^\s*(\\text(bf)?\{\s*\(?[a-z0-9]{1,3}\)\s*\}|\([a-z0-9]{1,3}\)|[a-z]\))\s*:?\s*(?=\S)')
_DELIMS_OPEN = ('$$', '$', '\\[', '\\(')
_DELIMS_CLOSE = ('$$', '$', '\\]', '\\)')


def clean(text: str) -> str:
    """Strip math delimiters, boxes, labels, spacing, final punctuation and an outer pair of braces."""
    text = text.strip()
    for _ in range(6):
        before = text
        for d in _DELIMS_OPEN:
            if text.startswith(d):
                text = text[len(d):]
                break
        for d in _DELIMS_CLOSE:
            if text.endswith(d) and not text.endswith('\\' + d):
                text = text[:-len(d)]
                break
        text = _WRAPPER_RE.sub('', text)
        text = _LABEL_RE.sub('', text)
        text = strip_trailing(strip_leading(text)).strip()
        if text.startswith('{') and matching_brace(text, 0) == len(text) - 1:
            text = text[1:-1].strip()
        spans = boxed_spans(text)
        if len(spans) == 1 and spans[0][0] == 0 and spans[0][2] == len(text) - 1:
            text = text[spans[0][1]:spans[0][2]].strip()
        if text == before:
            break
    return text


# --------------------------------------------------------------------------- words

_TEXT_CMD_RE = re.compile(r'\\(?:text|textrm|textnormal|textit|textbf|mathrm|mbox|textsf|mathit|operatorname)\s*\{')
MATH_WORDS = frozenset(FUNCTIONS | set(FUNCTION_ALIASES) | GREEK | OTHER_SYMBOLS
                       | {'det', 'const', 'pi', 'lim', 'sgn', 'erf', 'and', 'or', 'Tr', 'tr', 'cm', 'max', 'min'})
#: words that make plain text (outside \text{}) prose rather than a product of symbols
ENGLISH = frozenset({'the', 'is', 'are', 'a', 'an', 'of', 'to', 'in', 'on', 'at', 'for', 'with', 'by',
                     'as', 'that', 'this', 'it', 'from', 'be', 'will', 'not', 'no', 'yes', 'than', 'which', 'its',
                     'into', 'so', 'then', 'there', 'when', 'if', 'has', 'have', 'was', 'were', 'answer', 'final',
                     'therefore', 'thus', 'hence', 'because', 'since', 'does', 'do', 'can', 'cannot', 'would'})
ANSWER_WORDS = frozenset({'yes', 'no', 'true', 'false', 'none', 'zero', 'impossible', 'undefined'})
_CJK_RE = re.compile(r'[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]')


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
    if _CJK_RE.search(text):
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


# --------------------------------------------------------------------------- units

_UNIT_GROUP_RE = re.compile(r'((\\mu|\\micro)\s*(?=\\(text|mathrm|textrm|rm|mbox|textnormal|textbf)\b)|'
                            r'\\(text|mathrm|textrm|rm|mbox|operatorname|mathit|textnormal|textbf|mathbf)\b|'
                            r'\{\\rm\b|\^\s*\{?\s*\\circ|\\circ|\\degree|\\%|%|\\AA\b|\\Omega\b)')
_TEXT_UNIT_RE = re.compile(r'^\\(text|mathrm|rm|mbox|textnormal|textbf)\s*\{\s*[A-Za-zÅΩμ°/.\s^0-9-]{1,16}\}\s*$')
_NUMERIC_CMDS_RE = re.compile(r'\\(times|cdot|frac|dfrac|tfrac|sqrt|pi|left|right|,|;|!| |quad)')
_PLAIN_UNIT_RE = re.compile(r'(?:\\(?:mu|micro)\s*)?(?:\\Omega|\\AA|[A-Za-zΩÅ°])(?:[A-Za-z0-9ΩÅ°/^*.\-{}()\s]|\\[,;! ])*')
#: where a plain unit may start: after a digit (not the e of 1.5e-3), a space, a thin space or a '*'
_PLAIN_UNIT_START_RE = re.compile(r'(?:(?<=\d)(?![eE][+-]?\d)|\s+|\\,|\*)(?=\\mu|\\micro|\\Omega|\\AA|[A-Za-zΩÅ°])')
MAX_UNIT_CHARS = 200
"""A unit is looked for in this many final characters of a value (keeps the search linear)."""


def is_numeric(text: str) -> bool:
    """Digits and numeric operators only (``3\\times10^{8}``, ``\\frac{1}{2}``, ``1.5e-3``)."""
    stripped = _NUMERIC_CMDS_RE.sub(' ', text)
    stripped = re.sub(r'(?<=\d)[eE](?=[+-]?\d)', ' ', stripped)
    return bool(re.search(r'\d', stripped)) and not re.search(r'[A-Za-z\\]', stripped)


def split_unit(text: str) -> Tuple[str, Optional[Unit]]:
    """``(value, unit)``: a trailing unit split off when it is a unit (known, or a word after a number)."""
    from .units import parse_unit
    text = text.strip()
    window = max(0, len(text) - MAX_UNIT_CHARS)
    for m in _UNIT_GROUP_RE.finditer(text, window):
        value, unit = text[:m.start()].strip(), text[m.start():].strip()
        if not value or not balanced(value) or not balanced(unit):
            continue
        value = re.sub(r'(\\cdot|\\times|\*)\s*$', '', strip_trailing(value)).strip()
        if unit.startswith(('\\Omega', '\\AA', '\\mu')) and not is_numeric(value):
            continue  # after a formula, \Omega is the symbol Omega
        if value and (parse_unit(unit) is not None or (is_numeric(value) and _TEXT_UNIT_RE.match(unit))):
            return value, Unit(unit)
    for m in _PLAIN_UNIT_START_RE.finditer(text, window):
        start = m.end()
        value, unit = text[:start].rstrip(' *').strip(), text[start:].strip()
        value = strip_trailing(value[:-2] if value.endswith('\\,') else value)
        if value and is_numeric(value) and balanced(unit) and _PLAIN_UNIT_RE.fullmatch(unit) \
                and not _single_letters(unit) and parse_unit(unit) is not None:
            return value, Unit(unit, plain=True)
    return text, None


def _single_letters(unit: str) -> bool:
    words = unit.split()
    return len(words) > 1 and all(len(w) == 1 for w in words)  # "2 m g" is a product, not metre-grams


# --------------------------------------------------------------------------- reading

#: relation spellings -> (kind, flipped): ``>`` is stored as ``<`` with the sides swapped
RELATIONS = {
    '=': ('=', False), '\\neq': ('!=', False), '\\ne': ('!=', False), '<': ('<', False), '>': ('<', True),
    '\\lt': ('<', False), '\\gt': ('<', True), '\\le': ('<=', False), '\\leq': ('<=', False),
    '\\leqslant': ('<=', False), '\\ge': ('<=', True), '\\geq': ('<=', True), '\\geqslant': ('<=', True),
    '\\approx': ('approx', False), '\\simeq': ('approx', False), '\\approxeq': ('approx', False),
    '\\cong': ('approx', False), '\\sim': ('sim', False), '\\propto': ('propto', False), '\\to': ('to', False),
    '\\rightarrow': ('to', False), '\\longrightarrow': ('to', False), '\\equiv': ('equiv', False),
    '\\coloneqq': ('=', False), ':=': ('=', False), '\\ll': ('ll', False), '\\gg': ('ll', True),
    '\\in': ('in', False),
}
IMPLIES = ('\\Rightarrow', '\\implies', '\\Longrightarrow', '\\therefore')
LIST_SEPARATORS = (',', ';', ' and ', '\\quad', '\\qquad', '\\text{and}', '\\text{ and }', '\\text{ and}', '\\text{and }',
                   '\\\\', '\n', '\\mbox{ and }', '\\textrm{ and }')
OR_SEPARATORS = ('\\text{ or }', '\\text{or}', '\\text{ or}', '\\text{or }', '\\mbox{ or }', '\\textrm{ or }',
                 '\\lor', '\\vee', ' or ')
_CONDITION_RE = re.compile(r'^\s*(\\text\s*\{\s*|\\mbox\s*\{\s*|\\textrm\s*\{\s*)?(for|when|if|where|with|since|as|'
                           r'assuming|provided|given|because|which|so|i\.e\.|e\.g\.|approximately|approx)\b', re.I)
_NAME_RE = re.compile(r"^\s*(\\[Dd]elta\s*)?(\\(vec|mathbf|boldsymbol|bm|hat|bar|tilde|dot|ddot|overline|overrightarrow|mathcal)"
                      r"\s*\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z])\s*(_\s*(\{[^{}]*(\{[^{}]*\}[^{}]*)*\}|\\?[A-Za-z0-9]+))?"
                      r"\s*(\^\s*\{?\s*(\\prime|\*|')+\s*\}?|')*\s*((\\left)?\s*\([^()]*(\\right)?\s*\))?\s*$")
_NOT_NAMES = frozenset({'\\frac', '\\sqrt', '\\pi', '\\infty', '\\sin', '\\cos', '\\tan', '\\exp', '\\ln', '\\log'})
_CHOICE_LETTERS = 'ABCDEFGHIJ'
TRUE_WORDS = frozenset({'yes', 'true', 'correct', 'right', 't', 'y', '是', '对', '正确', '会', '能', '可以', '成立'})
FALSE_WORDS = frozenset({'no', 'false', 'incorrect', 'wrong', 'f', 'n', '否', '不', '错', '错误', '不会', '不能',
                         '不对', '不是', '不成立', 'not'})


def is_name(text: str) -> bool:
    """A quantity's name (``T``, ``v_{0,\\max}``, ``\\Delta x``, ``E'``, ``p(\\theta)``, ``\\vec{F}``)."""
    stripped = re.sub(r'^\\displaystyle\s*', '', text.strip())
    while stripped.startswith('{') and matching_brace(stripped, 0) == len(stripped) - 1:
        stripped = stripped[1:-1].strip()
    if not stripped or stripped.split('_')[0].split('(')[0].strip() in _NOT_NAMES:
        return False
    m = re.fullmatch(r'\s*(\\left)?\s*\|(.*)(\\right)?\s*\|\s*', stripped)
    if m and '|' not in m.group(2):
        stripped = m.group(2).replace('\\right', '')
    return bool(_NAME_RE.match(stripped)) or _one_symbol(stripped)


def _one_symbol(text: str) -> bool:
    """The text reads as one symbol (``v_\\text{T}``, ``E_{K^-}``, ``\\overline{E^2}``, ``E(r)``)."""
    from .normalize import LatexError, normalize_latex
    if len(text) > 80 or re.search(r'[+=<>]|\\frac|\\sqrt', text):
        return False
    try:
        return bool(re.fullmatch(r'\\variable\{[^{}]*\}', normalize_latex(plain_operators(text)).strip()))
    except (LatexError, RecursionError):
        return False


def extract_answer(response: object, expected: Optional[str] = None) -> Extracted:
    """The final answer of a response (or of a bare answer: reading an extracted answer gives it back).

    ``expected`` is a dataset's answer type (``TF``, ``MC``, ``IN``, ``EQ``, ``NV``, ``EX``) when it
    has one: yes/no and option letters are read only when the dataset says so.
    """
    if not isinstance(response, str) or not response.strip():
        return Extracted(Empty(), 'none', '')
    texts, source = locate(to_latex(response))
    if not texts:
        return Extracted(Empty(), 'none', '')
    if (source in ('final_answer_line', 'last_line') and _is_sentence(texts[0])) \
            or (source == 'whole' and _stated_in_a_sentence(texts[0])):
        texts = [_sentence_answer(texts[0])]
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

_MARKDOWN_BOLD_RE = re.compile(r'\*\*([A-Za-z][A-Za-z :]{0,60}:?)\*\*')
_DELIMITER_RE = re.compile(r'\$\$|(?<!\\)\$|\\\[|\\\]|\\\(|\\\)')


def reference_parts(text: str) -> List[str]:
    """The texts of a reference's parts as the reader splits them (boxes, then a top-level list):
    datasets that label each part with a type or unit need them one by one."""
    latex = to_latex(str(text or ''))
    boxes = boxed_contents(latex)
    if len(boxes) > 1:
        return [clean(b) for b in boxes if clean(b)]
    body = clean(boxes[0]) if boxes else clean(_DELIMITER_RE.sub(' ', latex))
    if _environment_rows(body) is not None:
        return [body]
    return [clean(i) for i in _list_items(body) if clean(i)] or ([body] if body else [])


def read_reference(text: object, expected: Optional[str] = None) -> Answer:
    """A dataset's reference answer. Unlike a response it is all answer: boxes are its parts, and
    otherwise the whole text is read with its math delimiters removed (``$1$ and $2$``); only a long
    worked solution is searched for its final answer as a response would be."""
    if not isinstance(text, str) or not text.strip():
        return Empty()
    latex = to_latex(text)
    if boxed_spans(latex) or '\\\\boxed' in latex or (len(latex) > WHOLE_TEXT_MAX_CHARS and _is_long_prose(latex)):
        return extract_answer(latex, expected).answer
    return read_answer(_DELIMITER_RE.sub(' ', latex), expected)


_JUNK_TAIL_RE = re.compile(r'(?is)\.?\s*(i hope it is correct.*|<\|im_(start|end)\|>.*)$')


def _is_sentence(text: str) -> bool:
    """Words around the answer (``The largest $n$ is 34.``), not a bare formula."""
    line = _JUNK_TAIL_RE.sub('', text)
    return is_prose(_outside_math(line, math_spans(line))) or bool(re.search(r'(?i)\b(is|are|equals)\b', line))


def _stated_in_a_sentence(text: str) -> bool:
    """A short prose answer that states a number (``Therefore the speed is 5.``), not a text answer."""
    return bool(re.search(r'\d', text)) and is_prose(text) and not text_groups(text)


def _sentence_answer(line: str) -> str:
    """An answer stated in a sentence (``The largest $n$ is 34.``): the part after its last ``is``."""
    line = _JUNK_TAIL_RE.sub('', line.strip())
    line = re.sub(r'(?i)^\s*(is|are|:)\s+', '', line.strip())
    spans = math_spans(line)
    if spans and not is_prose(_outside_math(line, spans)):
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


def _outside_math(text: str, spans) -> str:
    out, pos = [], 0
    for _, a, b in sorted(spans, key=lambda s: s[1]):
        out.append(text[pos:max(pos, a - 1)])
        pos = b + 1
    out.append(text[pos:])
    return ' '.join(out)


def read_answer(text: str, expected: Optional[str] = None) -> Answer:
    """What a located answer text means (see the module docstring)."""
    text = clean(_BACKSLASH_SPACE_RE.sub(r'\\,', despace(to_latex(text))))
    if len(text) > MAX_ANSWER_CHARS:
        return Unreadable('answer_too_large', text[:200])
    text = clean(plain_operators(_MARKDOWN_BOLD_RE.sub(r'\1', text)))
    if not text:
        return Empty()
    if len(text) > MAX_ANSWER_CHARS:
        return Unreadable('answer_too_large', text[:200])
    if expected == 'TF':
        return _truth(text)
    if expected == 'MC':
        return _choice(text)
    return _read(text, expected, 0)


def _read(text: str, expected: Optional[str], depth: int) -> Answer:
    text = _drop_lead_prose(clean(text))
    if not text:
        return Empty()
    if depth > 8:
        return Unreadable('too_deep', text)
    rows = _environment_rows(text)
    if rows is not None:
        if isinstance(rows, Answer.__args__):  # a matrix
            return rows
        return _several([_read(r, expected, depth + 1) for r in rows], 'list')
    options = [o for o in top_level_split(text, OR_SEPARATORS) if o.strip()]
    if len(options) > 1 and not is_prose(text.replace('\\text{ or }', ' ')):
        read: List[Answer] = []
        for option in options:  # "21, 16 or 11": three alternatives
            item = _read(option, expected, depth + 1)
            read.extend(item.items if isinstance(item, Collection) and item.kind == 'list' else [item])
        return Alternatives(tuple(read[:MAX_ITEMS]), 'or')
    items = [i for i in _list_items(text) if i.strip()]
    if len(items) > 1 and not all(is_prose(i) for i in items):
        read = [_read(i, expected, depth + 1) for i in items]
        return _several(read, 'list')
    if is_prose(text) and not _has_relation(text):
        return Text(words_of(text), text)
    return _item(items[0] if items else text, expected, depth)


def _several(items: Sequence[Answer], kind: str) -> Answer:
    kept = [i for i in items if not isinstance(i, Empty)]
    if len(kept) > MAX_ITEMS:
        return Unreadable('too_many_parts')
    if not kept:
        return Empty()
    return kept[0] if len(kept) == 1 else Collection(kind, tuple(kept))


_ENV_RE = re.compile(r'\\begin\s*\{([A-Za-z]+\*?)\}(\s*\{[^{}]*\})?')
_MATRIX_ENVS = frozenset({'pmatrix', 'bmatrix', 'Bmatrix', 'matrix', 'smallmatrix', 'vmatrix', 'Vmatrix'})


def _environment_rows(text: str):
    """Lines of an ``aligned``/``cases``/``array`` block, a matrix answer, or None."""
    m = _ENV_RE.search(text)
    if not m:
        return None
    name = m.group(1)
    end = text.rfind('\\end')
    if end < m.end():
        return None
    inner = text[m.end():end]
    before, after = text[:m.start()].strip(), re.sub(r'^\\end\s*\{[A-Za-z]+\*?\}', '', text[end:]).strip()
    rows = [r for r in top_level_split(inner, ('\\\\',)) if r.strip()]
    rows = [re.sub(r'^\s*\[[^\]]*\]', '', r) for r in rows]  # \\[1mm]
    bracketed = before.replace('\\left', '').strip() in ('(', '[') and after.replace('\\right', '').strip() in (')', ']')
    if name.rstrip('*') in _MATRIX_ENVS or (name == 'array' and bracketed):
        if name.startswith('v') or name.startswith('V'):
            return Unreadable('determinant', text)
        if (before or after) and not bracketed:
            return None  # a matrix inside an expression or a relation: read as such
        cells = [[c for c in top_level_split(r, ('&',))] for r in rows]
        width = len(cells[0]) if cells else 0
        if not cells or any(len(r) != width for r in cells) or width * len(cells) > MAX_ITEMS:
            return Unreadable('matrix_shape', text)
        items = tuple(_item(c, None, 1) for r in cells for c in r)
        return Collection('matrix', items, (len(cells), width))
    if name.rstrip('*') == 'cases':
        rows = [top_level_split(r, ('&',))[0] + ('' if len(top_level_split(r, ('&',))) < 2 else '')
                for r in rows]
        lead = before.rstrip()
        if lead.endswith('\\left\\{') or lead.endswith('\\{'):
            lead = lead.rsplit('\\', 1)[0].replace('\\left', '').strip()
        if lead:
            return Unreadable('piecewise', text)
    out = [r.replace('&', ' ') for r in rows]
    if before and not before.endswith('='):
        out = [before] + out
    return out


def _list_items(text: str) -> List[str]:
    """The top-level items of a list answer; an environment (a matrix) is never split inside."""
    masked, blocks = _mask_environments(_THOUSANDS_RE.sub(lambda m: m.group(0).replace(',', ''), text))
    items = []
    for part in top_level_split(masked, LIST_SEPARATORS):
        part = part.strip()
        part = re.sub(r'^(\\text\s*\{\s*and\s*\}|and\b)\s*', '', part).strip()
        if not part or _is_condition(part):
            continue
        items.append(_unmask(part, blocks))
    return items


#: ``12,000,023`` (digit groups of three after commas, no spaces) is one number, not three answers
_THOUSANDS_RE = re.compile(r'(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d.,])')
_BLOCK_RE = re.compile(r'\\begin\s*\{([A-Za-z]+\*?)\}.*?\\end\s*\{\1\}', re.S)


def _mask_environments(text: str) -> Tuple[str, List[str]]:
    """Environments replaced by placeholders, so no separator inside a matrix splits the list."""
    blocks: List[str] = []
    if '\\begin' not in text:
        return text, blocks

    def hide(match: 're.Match[str]') -> str:
        blocks.append(match.group(0))
        return '\x00%d\x00' % (len(blocks) - 1)
    return _BLOCK_RE.sub(hide, text.replace('\x00', '')), blocks


def _unmask(text: str, blocks: List[str]) -> str:
    return re.sub('\x00(\\d+)\x00', lambda m: blocks[int(m.group(1))], text) if blocks else text


def _is_condition(part: str) -> bool:
    """A side condition rather than an answer: ``\\text{for } v \\ll c``, ``(a < r < b)``."""
    if _CONDITION_RE.match(part):
        return True
    group = group_at(part, 0) if part.startswith('(') else None
    if group and group[1] == len(part) and _has_relation(part[1:-1]) and '=' not in part:
        return True
    return False


def _has_relation(text: str) -> bool:
    return len(top_level_split(text, tuple(RELATIONS))) > 1


def _item(text: str, expected: Optional[str], depth: int) -> Answer:
    """One answer without list or ``or`` structure: a relation, a definition or a value."""
    text = clean(text)
    text = _drop_lead_prose(text)
    if not text:
        return Empty()
    segments = [s for s in top_level_split(text, IMPLIES) if s.strip()]
    if len(segments) > 1:
        text = clean(segments[-1])
    pieces, kinds = _split_relations(text)
    if kinds and not pieces[0] and kinds[0][0] in ('=', 'approx') and all(pieces[1:]):
        pieces, kinds = pieces[1:], kinds[1:]  # "= 1.7 \times 10^{26}": a value whose name was left out
    if not kinds:
        return _value(pieces[0] if pieces else text, expected, depth)
    if any(not p.strip() for p in pieces):
        return Unreadable('relation_missing_side', text)
    if len(kinds) == 1 and kinds[0][0] == 'sim' and is_name(pieces[0]):
        kinds = [('approx', False)]  # E_n \sim X: the quantity is (asymptotically) X
    if all(k[0] in ('=', 'approx') for k in kinds):
        approximate = any(k[0] == 'approx' for k in kinds)
        values = [_value(p, expected, depth) for p in pieces[1:]]
        if is_name(pieces[0]) or (len(pieces) == 2 and _names_a_number(pieces[0], pieces[1])):
            return Definition(_compact(pieces[0]), values[-1], approximate, tuple(values[:-1]))
        if len(pieces) > 2:
            return Definition('', values[-1], approximate, (_value(pieces[0], expected, depth),) + tuple(values[:-1]))
        return Relation('approx' if approximate else '=', _value(pieces[0], expected, depth), values[-1])
    if kinds[0][0] == 'in' and len(kinds) == 1:
        return Definition(_compact(pieces[0]), _value(pieces[1], 'IN', depth))
    if len(kinds) == 2 and kinds[0][1] == kinds[1][1] and {k for k, _ in kinds} <= {'<', '<='} \
            and is_name(pieces[1]):
        # a < x <= b: x in an interval (a two-sided inequality)
        lo, hi = (pieces[0], pieces[2]) if not kinds[0][1] else (pieces[2], pieces[0])
        kind_lo, kind_hi = (kinds[0][0], kinds[1][0]) if not kinds[0][1] else (kinds[1][0], kinds[0][0])
        piece = (kind_lo == '<=', _value(lo, None, depth), _value(hi, None, depth), kind_hi == '<=')
        return Definition(_compact(pieces[1]), Interval((piece,)))
    if len(kinds) == 1:
        (kind, flipped), = kinds
        left, right = _value(pieces[0], expected, depth), _value(pieces[1], expected, depth)
        return Relation(kind, right, left) if flipped else Relation(kind, left, right)
    return Unreadable('relation_chain', text)


def _names_a_number(left: str, right: str) -> bool:
    """``AB = 4``, ``|AB| = 1``, ``\\frac{NO}{BO} = \\frac{1}{\\sqrt{6}}``: a quantity (no sum on the left)
    given a number is a definition; ``x + y = 1`` stays an equation."""
    if not is_numeric(split_unit(right)[0]) or re.search(r'\d', left):
        return False
    return not top_level_split(left, ('+', '-'))[1:] and bool(re.search(r'[A-Za-z]', left))


def _split_relations(text: str) -> Tuple[List[str], List[Tuple[str, bool]]]:
    """Pieces between top-level relations and each relation's (kind, flipped)."""
    pieces, kinds, start, depth, i, n = [], [], 0, 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == '\\':
            j = command_end(text, i)
            name = text[i:j]
            if depth == 0 and name in RELATIONS:
                pieces.append(text[start:i])
                kinds.append(RELATIONS[name])
                start = i = j
                continue
            if name in ('\\{', '\\langle', '\\lbrace', '\\lvert'):
                depth += 1
            elif name in ('\\}', '\\rangle', '\\rbrace', '\\rvert'):
                depth -= 1
            i = j
            continue
        if c in '{([':
            depth += 1
        elif c in '})]':
            depth -= 1
        elif depth == 0 and c in '=<>' or (depth == 0 and text.startswith(':=', i)):
            width = 2 if text.startswith(':=', i) else 1
            pieces.append(text[start:i])
            kinds.append(RELATIONS[text[i:i + width]])
            start = i = i + width
            continue
        i += 1
    pieces.append(text[start:])
    return [p.strip() for p in pieces], kinds


_LEAD_PROSE_RE = re.compile(r'^\\text\s*\{(?=[^{}$]*[A-Za-z]{2}\s)[^{}$]*\}\s*(?=[^\s\\]|\\(?!text\b))')


def _drop_lead_prose(text: str) -> str:
    """``\\text{The momentum is about }0.82\\text{ GeV/c}``: the sentence goes, the formula stays."""
    m = _LEAD_PROSE_RE.match(text) if text.startswith('\\text') else None
    return text[m.end():].strip() if m else text


def _compact(text: str) -> str:
    return re.sub(r'\s+', '', re.sub(r'\\[,;:! ]|\\left|\\right', '', text))


def _value(text: str, expected: Optional[str], depth: int) -> Answer:
    """A value: a tuple, interval, set or ratio, ``\\pm`` branches, or an expression with its unit."""
    text = _drop_lead_prose(clean(text))
    if not text:
        return Empty()
    if text.startswith('\\begin') or text.startswith('\\left'):
        rows = _environment_rows(text)
        if isinstance(rows, (Collection, Unreadable)):
            return rows  # a matrix (or a determinant) as the value
    bracketed = _bracketed(text, expected, depth)
    if bracketed is not None:
        return bracketed
    ratio = [p for p in top_level_split(text, (':',)) if p.strip()]
    if len(ratio) > 1 and ':=' not in text:
        return Collection('ratio', tuple(_value(p, None, depth + 1) for p in ratio[:MAX_ITEMS]))
    if re.search(r'\\pm(?![A-Za-z])|\\mp(?![A-Za-z])', text):
        return _plus_minus(text, expected, depth)
    value, unit = split_unit(text)
    return Value(strip_trailing(value), unit)


def _bracketed(text: str, expected: Optional[str], depth: int) -> Optional[Answer]:
    """``(a, b)`` tuple, ``[a, b)`` interval (unions with ``\\cup``), ``\\{a, b\\}`` set, or None."""
    plain = re.sub(r'\\(left|right|big|Big|bigl|bigr|Bigl|Bigr)(?![A-Za-z])\s*', '', text).strip()
    plain = plain.replace('\\lbrack', '[').replace('\\rbrack', ']')
    if plain.startswith('\\{') or plain.startswith('\\lbrace'):
        opener = 2 if plain.startswith('\\{') else 7
        inner_end = plain.rfind('\\}') if plain.endswith('\\}') else plain.rfind('\\rbrace') if plain.endswith('\\rbrace') else -1
        if inner_end > 0 and not top_level_split(plain[opener:inner_end], ('\\}',))[1:]:
            items = [i for i in top_level_split(plain[opener:inner_end], (',', ';')) if i.strip()]
            return Collection('set', tuple(_item(i, None, depth + 1) for i in items[:MAX_ITEMS]))
        return None
    pieces = [p.strip() for p in top_level_split(plain, ('\\cup',))]
    intervals = []
    for piece in pieces:
        if len(piece) < 3 or piece[0] not in '([' or piece[-1] not in ')]':
            return None
        if _group_end(piece) != len(piece):
            return None
        ends = top_level_split(piece[1:-1], (',',))
        if len(pieces) == 1 and piece[0] == '(' and piece[-1] == ')' and expected != 'IN':
            if len(ends) < 2:
                return None
            return Collection('tuple', tuple(_item(e, None, depth + 1) for e in ends[:MAX_ITEMS]))
        if len(ends) != 2 or not all(e.strip() for e in ends):
            return None
        intervals.append((piece[0] == '[', _value(ends[0], None, depth + 1), _value(ends[1], None, depth + 1),
                          piece[-1] == ']'))
    if len(pieces) == 1 and plain[0] == '[' and plain[-1] == ']' and expected not in ('IN',):
        ends = top_level_split(plain[1:-1], (',',))
        if len(ends) != 2:
            return Collection('tuple', tuple(_item(e, None, depth + 1) for e in ends[:MAX_ITEMS]))
    return Interval(tuple(intervals)) if intervals else None


def _group_end(text: str) -> int:
    """End of the bracket group that opens ``text``, treating ``(`` and ``[`` alike (``[a, b)``)."""
    depth = 0
    for j, c in enumerate(text):
        if c in '([':
            depth += 1
        elif c in ')]':
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def _plus_minus(text: str, expected: Optional[str], depth: int) -> Answer:
    """``a \\pm b`` -> the set of both values (signs of several ``\\pm`` move together, ``\\mp`` opposite)."""
    def branch(sign: int) -> str:
        def swap(m: 're.Match[str]') -> str:
            plus = (m.group(0) == '\\pm') == (sign > 0)
            return ' + ' if plus else ' - '
        return re.sub(r'\\pm(?![A-Za-z])|\\mp(?![A-Za-z])', swap, text)
    options = []
    for sign in (1, -1):
        value, unit = split_unit(branch(sign).strip())
        value = re.sub(r'^\s*\+\s*', '', value)
        options.append(Value(strip_trailing(value), unit))
    return Alternatives(tuple(options), 'pm')


def _truth(text: str) -> Answer:
    words = words_of(text).split()
    if not words:
        return Unreadable('not_yes_no', text)
    first = words[0]
    if first in TRUE_WORDS:
        return Truth(True)
    if first in FALSE_WORDS:
        return Truth(False)
    for word in sorted(FALSE_WORDS | TRUE_WORDS, key=len, reverse=True):
        if not word.isascii() and first.startswith(word):
            return Truth(word in TRUE_WORDS)
    return Unreadable('not_yes_no', text)


def _choice(text: str) -> Answer:
    plain = words_of(text).upper()
    plain = re.sub(r'\b(OPTIONS?|CHOICES?|ANSWER|AND|OR|IS|THE)\b|选项|答案|和|或', ' ', plain)
    tokens = plain.split()
    if tokens and all(re.fullmatch(f'[{_CHOICE_LETTERS}]+', t) for t in tokens):
        letters = ''.join(tokens)
        if len(set(letters)) == len(letters):
            return Choice(frozenset(letters))
    m = re.match(rf'\s*\(?([{_CHOICE_LETTERS}])(\)|\.|:|\s|$)', re.sub(r'\\text\s*\{|[{}$]', '', text.upper()))
    return Choice(frozenset(m.group(1))) if m else Unreadable('no_option_letter', text)


# --------------------------------------------------------------------------- labelled parts

_ROMAN = ('i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii', 'viii', 'ix', 'x')
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
    run in sequence from the first one: a ``(r)`` in ``E(r)``, or a nested ``(i)`` inside part (b),
    does not split. Text before the first label is dropped. Fewer than two labels: [].
    """
    if not isinstance(response, str) or not response.strip():
        return []
    texts, _ = locate(to_latex(response))
    if not texts:
        return []
    located = ' \\\\ '.join(texts)
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
            piece = strip_trailing(content[cut.end():stop])
            if re.fullmatch(r'\s*[+-]?\d+(\.\d+)?\s*', piece):
                out.append('\n(%s) %s' % (cut.group(1), piece.strip()))
            else:
                out.append('\n(%s)' % cut.group(1) + ('\\text{%s}' % piece if piece.strip() else ''))
        pos = close + 1
    out.append(text[pos:])
    return ''.join(out)


def _strip_part_edges(text: str) -> str:
    """A part's text without the separators around it (``&``, ``\\\\[1mm]``, ``;``, ``\\quad``)."""
    text = strip_leading(text).lstrip('&: ')
    previous = None
    while previous != text:
        previous = text
        text = strip_trailing(text, '&').rstrip()
        text = re.sub(r'\\\\\s*(\[[^\]]*\])?$', '', text).rstrip()
        text = re.sub(r'\\end\{[a-zA-Z*]+\}$', '', text).rstrip()
    return text.strip()
