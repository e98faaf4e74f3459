"""One answer item: a relation with its kind and direction, a definition ``name = value``, or a value.

``a > b`` is stored as ``b < a``; ``T = 2mg``, ``AB = 4`` and ``x \\in [0, 1]`` are definitions; ``a < x \\le b``
is an interval of ``x``; a chain ending in a mixed relation is refused (undecided).
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from . import values
from ..answer import Answer, Definition, Empty, Interval, Relation, Unreadable
from .notation import clean, compact, plain_operators
from .prose_tail import opens_or_closes_remark
from .scan import matching_brace, top_level_split, top_level_split_keeping
from .trailing_units import is_numeric, split_unit

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


_NAME_RE = re.compile(r"^\s*(\\[Dd]elta\s*)?(\\(vec|mathbf|boldsymbol|bm|hat|bar|tilde|dot|ddot|overline|overrightarrow|mathcal)"
                      r"\s*\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z])\s*(_\s*(\{[^{}]*(\{[^{}]*\}[^{}]*)*\}|\\?[A-Za-z0-9]+|[-+]))?"
                      r"\s*(\^\s*\{?\s*(\\prime|\*|')+\s*\}?|\^\s*\{\s*\(\s*(\d+|[A-Za-z])\s*\)\s*\}|')*\s*((\\left)?\s*\([^()]*(\\right)?\s*\))?\s*$")


_NOT_NAMES = frozenset({'\\frac', '\\sqrt', '\\pi', '\\infty', '\\sin', '\\cos', '\\tan', '\\exp', '\\ln', '\\log'})


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
    """The text reads as one symbol (``v_\\text{T}``, ``E_{K^-}``, ``\\overline{E^2}``, ``E(r)``, ``[\\phi]``)."""
    from .normalize import LatexError, normalize_latex
    if len(text) > 80 or re.search(r'[+=<>]|\\frac|\\sqrt', text):
        return False
    try:
        return bool(re.fullmatch(r'\\variable\{[^{}]*\}', normalize_latex(plain_operators(text)).strip()))
    except (LatexError, RecursionError):
        return False


def read_item(text: str, expected: Optional[str], depth: int) -> Answer:
    """One trimmed answer piece (:func:`trim`) without list or ``or`` structure: a relation, a definition
    or a value."""
    if not text:
        return Empty()
    segments = [s for s in top_level_split(text, IMPLIES) if s.strip()]
    if len(segments) > 1:
        text = clean(segments[-1])
    pieces, kinds = _split_relations(text)
    if kinds and not pieces[0] and kinds[0][0] in ('=', 'approx') and all(pieces[1:]):
        pieces, kinds = pieces[1:], kinds[1:]  # "= 1.7 \times 10^{26}": a value whose name was left out
    if not kinds:  # trimmed again: a sentence dropped off the front can bare spacing (``\text{and }\; 2\pi``)
        return values.read_value(trim(pieces[0] if pieces else text), expected, depth)
    if any(not p.strip() for p in pieces):
        return Unreadable('relation_missing_side', text)
    if is_name(pieces[0]) and any(k[0] == 'sim' for k in kinds) and all(k[0] in ('=', 'approx', 'sim') for k in kinds):
        # E_n \sim X, E \sim \frac{m^2c^4}{\epsilon} \sim 2.6\times10^{14}\,\text{eV}: estimates of the quantity
        kinds = [('approx', False) if k[0] == 'sim' else k for k in kinds]
    if all(k[0] in ('=', 'approx') for k in kinds):
        approximate = any(k[0] == 'approx' for k in kinds)
        members = [values.read_value(trim(p), expected, depth) for p in pieces[1:]]
        if is_name(pieces[0]) or (len(pieces) == 2 and _names_a_number(pieces[0], pieces[1])):
            return Definition(compact(pieces[0]), members[-1], approximate, tuple(members[:-1]))
        if len(pieces) > 2:
            first = values.read_value(trim(pieces[0]), expected, depth)
            return Definition('', members[-1], approximate, (first,) + tuple(members[:-1]))
        left = values.read_value(trim(pieces[0]), expected, depth)
        return Relation('approx' if approximate else '=', left, members[-1])
    if kinds[0][0] == 'in' and len(kinds) == 1:
        return Definition(compact(pieces[0]), values.read_value(trim(pieces[1]), 'IN', depth))
    if len(kinds) == 2 and kinds[0][1] == kinds[1][1] and {k for k, _ in kinds} <= {'<', '<='} \
            and is_name(pieces[1]):
        # a < x <= b: x in an interval (a two-sided inequality)
        lo, hi = (pieces[0], pieces[2]) if not kinds[0][1] else (pieces[2], pieces[0])
        kind_lo, kind_hi = (kinds[0][0], kinds[1][0]) if not kinds[0][1] else (kinds[1][0], kinds[0][0])
        low, high = values.read_value(trim(lo), None, depth), values.read_value(trim(hi), None, depth)
        piece = (kind_lo == '<=', low, high, kind_hi == '<=')
        return Definition(compact(pieces[1]), Interval((piece,)))
    if len(kinds) == 1:
        (kind, flipped), = kinds
        left = values.read_value(trim(pieces[0]), expected, depth)
        right = values.read_value(trim(pieces[1]), expected, depth)
        return Relation(kind, right, left) if flipped else Relation(kind, left, right)
    return Unreadable('relation_chain', text)


def _names_a_number(left: str, right: str) -> bool:
    """``AB = 4``, ``|AB| = 1``, ``\\frac{NO}{BO} = \\frac{1}{\\sqrt{6}}``: a quantity (no sum on the left)
    given a number is a definition; ``x + y = 1`` stays an equation."""
    if not is_numeric(split_unit(right)[0]) or re.search(r'\d', left):
        return False
    return not top_level_split(left, ('+', '-'))[1:] and bool(re.search(r'[A-Za-z]', left))


def relation_links(text: str) -> Tuple[List[str], List[Tuple[str, bool]]]:
    """A relation or chain's members and each link's (kind, flipped), as :func:`read_item` reads them."""
    return _split_relations(clean(text))


def _split_relations(text: str) -> Tuple[List[str], List[Tuple[str, bool]]]:
    """Pieces between top-level relations and each relation's (kind, flipped)."""
    pieces, found = top_level_split_keeping(text, tuple(RELATIONS), after_stray_closer=False)
    return [p.strip() for p in pieces], [RELATIONS[s] for s in found]


_LEAD_PROSE_RE = re.compile(r'^\\text\s*\{(?=[^{}$]*[A-Za-z]{2}(?:\s|:))[^{}$]*\}\s*(?:(?<=:\})|:\s*)?'
                            r'(?=[^\s\\^_:]|\\(?!text\b))')
"""A leading sentence and the formula after it, or a word label with its colon (``\\text{Eigenvalues: }``,
``\\text{electron:}``); a group raised or subscripted (``\\text{one ton per cm}^3``) is the base of that
script, not a sentence before a formula."""


#: lead words that change the value after them (``\\text{negative } 5``): never dropped
_NEGATING_RE = re.compile(r'(?i)\b(negative|minus|not|no|non|opposite|reversed?)\s*:?\s*\}\s*$')


#: lead words that only introduce the reaction after them (``\\text{The dominant decay is }``,
#: ``\\text{Decay: }``): the reaction is then the answer and the sentence goes
_INTRODUCES_RE = re.compile(r'(?i)(?:\b(?:is|are|was|were|reads?|becomes?|would\s+be|will\s+be|proceeds?\s+as|'
                            r'goes\s+as)\s*:?|:)\s*\}\s*$')
#: words that make the sentence a claim about the reaction whatever its ending (``\\text{Charge conservation
#: forbids }``, ``\\text{The decay is not allowed: }``): the sentence is the answer
_CLAIM_WORDS_RE = re.compile(r'(?i)forbid|violat|allow|permit|prevent|conserv|suppress|inhibit|break|'
                             r'\b(?:not|no|never|cannot|impossible|possible|requires?|only)\b|n\'t\b')


def claim(text: str) -> Optional[Tuple[str, str]]:
    """(sentence, formula) when ``text`` opens with a sentence whose object is the reaction after it:
    the whole text is then the answer, never a reaction with its subject dropped. Before a reaction a
    sentence goes only when it merely introduces it (:data:`_INTRODUCES_RE`, and none of
    :data:`_CLAIM_WORDS_RE`): ``\\text{Charge conservation forbids } p \\to n + e^+`` says which law, and
    answering it with the reaction alone is not answering it; a sentence ending in a preposition
    (``\\text{Lepton number is violated in } n \\to p + e^-``, ``\\text{Reines and Cowan's experiment with }
    \\bar\\nu + p``) never merely introduces it."""
    m = _LEAD_PROSE_RE.match(text) if text.startswith('\\text') else None
    if not m or not _REACTION_RE.search(text[m.end():]):
        return None
    lead = m.group(0).rstrip()
    if _CLAIM_WORDS_RE.search(lead) or not _INTRODUCES_RE.search(lead):
        return m.group(0), text[m.end():]
    return None


#: a reaction or a process (``n \\to p + e^-``): after a claim it is what the sentence is about, not the answer;
#: an equation after one (``\\text{No common eigenstates unless } q = 0``) is the answer and the sentence goes
_REACTION_RE = re.compile(r'\\(?:rightarrow|to|longrightarrow)(?![A-Za-z])')


def trim(text: str) -> str:
    """A piece split off an answer as the readers take it: :func:`.notation.clean`'s delimiters, labels,
    punctuation and outer braces off, then a leading sentence (:func:`drop_lead_prose`). Its own name,
    not ``clean``: dropping the sentence is a reading step, not notation."""
    return drop_lead_prose(clean(text))


def drop_lead_prose(text: str) -> str:
    """``\\text{The momentum is about }0.82\\text{ GeV/c}``: the sentence goes, the formula stays."""
    m = _LEAD_PROSE_RE.match(text) if text.startswith('\\text') else None
    if m and (_NEGATING_RE.search(m.group(0).rstrip()) or claim(text) or opens_or_closes_remark(m.group(0))):
        return text
    return text[m.end():].strip() if m else text

