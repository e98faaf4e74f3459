"""Whether two left-hand sides name the same quantity: ``T`` and ``N`` do not, ``v_{A}`` and ``v_A`` do.

One home for the name comparison; besides formatting it forgives only the curated aliases of
:mod:`.aliases` (``k_B`` for ``k``, ``m_{K^-}`` for ``m_K``) and, in a scattering question, the spellings
of the differential cross-section (:func:`differential_cross_sections`), never a different letter.
"""
from __future__ import annotations

import re

from typing import TYPE_CHECKING, FrozenSet, Optional, Sequence

from ..read.text_memo import short_texts
from .aliases import canonical_symbol, plain_name

if TYPE_CHECKING:
    from ..read.definitions import Givens

_SPACING_RE = re.compile(r'\\[,;:! ]|\\quad|\\qquad|\s+')
_WRAPPER_RE = re.compile(r'\\(?:mathrm|text|textrm|operatorname|rm)\s*\{([^{}]*)\}')
_SINGLE_GROUP_RE = re.compile(r'([_^])\{(\\?[A-Za-z0-9]+|.)\}')
_SIZING_RE = re.compile(r'\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])')
_ARROW_RE = re.compile(r'\\(?:rightarrow|longrightarrow)(?![A-Za-z])')
_BARS = ((re.compile(r'\\(?:lVert|rVert|Vert)(?![A-Za-z])'), r'\\|'), (re.compile(r'\\(?:lvert|rvert|vert)(?![A-Za-z])'), '|'))
#: bold or an arrow around a name, braced (``\\vec{E}``) or on one token (``\\vec E``, ``\\mathbf\\Phi``; the
#: reader glues ``\\vec E`` to ``\\vecE``, and ``\\bmod`` is no bold ``o``)
_BOLD_RE = re.compile(r'\\(?:mathbf|boldsymbol|bm|vec)(?:\s*\{([^{}]*)\}|\s*(\\[A-Za-z]+)|\s*([A-Za-z0-9])(?![a-z]))'
                      r'|\\(?:rm|bf)(?![A-Za-z])|&')
#: a mean written with angle brackets or a long bar (the whole name): the same mean as ``\\bar{X}``
_MEAN_RE = re.compile(r'^\\langle([^{}<>]+?)\\rangle$|^\\overline\{([^{}]+)\}$')
_ARGUMENTS_RE = re.compile(r'\((?:[^()]|\([^()]*\))*\)$')
_PRIME_RE = re.compile(r"([_^](?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9]))('+)")


def _unbold(match: 're.Match[str]') -> str:
    return match.group(1) or match.group(2) or match.group(3) or ''


@short_texts
def name_key(name: str) -> str:
    """The name with formatting removed: spacing, ``\\mathrm``/``\\text``/bold wrappers, alignment ``&``,
    braces around a one-token sub- or superscript, ``\\left``/``\\right``, how a bar is spelled
    (``\\lvert``), where a prime stands, and how a
    mean is written (``\\langle E\\rangle``, ``\\overline{E}`` and ``\\bar{E}`` are one mean)."""
    for pattern, bar in _BARS:  # |\psi\rangle and \lvert\psi\rangle; a norm's double bar stays a norm
        name = pattern.sub(bar, name)
    name = _ARROW_RE.sub(r'\\to ', name)  # P_{1s \rightarrow 2p} is P_{1s \to 2p}
    key = _BOLD_RE.sub(_unbold, plain_name(_BOLD_RE.sub(_unbold, name)))  # h_{\rmmax}: the reader glued \rm to max
    key = _SIZING_RE.sub('', _SPACING_RE.sub('', key))
    key = _MEAN_RE.sub(lambda m: '\\bar{%s}' % (m.group(1) or m.group(2)), key)  # <E>, \overline{E}: \bar{E}
    key = _PRIME_RE.sub(r'\2\1', key)  # p_\phi' is p'_\phi
    for _ in range(3):
        unwrapped = _WRAPPER_RE.sub(r'\1', key)
        unwrapped = _SINGLE_GROUP_RE.sub(r'\1\2', unwrapped)
        if unwrapped == key:
            break
        key = unwrapped
    key = _ORDER_FIRST_RE.sub(r'\1\3\2', key)  # E^{(1)}_0 is E_0^{(1)}
    return _STAGE_RE.sub(r'\1_\2\3', key)  # d_i^{(1)} is d_{i1}: stage 1's image distance


#: an order label written before a subscript (``E^{(1)}_0``): the scripts in the usual order
_ORDER_FIRST_RE = re.compile(r'^(.+?)(\^\{\([A-Za-z0-9]+\)\})(_(?:\{[^{}]*\}|\\?[A-Za-z0-9]+|[-+]|\\pm|\\mp))$')
#: one letter, a one-letter subscript and a one-digit order (``d_i^{(1)}``): the stage written into the
#: subscript (``d_{i1}``) names it too; never without a subscript (``E^{(1)}`` is no ``E_1``, a level)
_STAGE_RE = re.compile(r'^([A-Za-z])_([A-Za-z])\^\{\((\d)\)\}$')


@short_texts
def same_quantity_name(a: str, b: str) -> bool:
    """True when both left-hand sides name the same quantity up to formatting, or one is the other
    written with its arguments (an empty name matches anything: a bare value names no quantity)."""
    if not a or not b:
        return True
    key_a, key_b = name_key(a), name_key(b)
    if key_a == key_b or canonical_symbol(a) == canonical_symbol(b):
        return True
    bare_a, bare_b = _ARGUMENTS_RE.sub('', key_a), _ARGUMENTS_RE.sub('', key_b)
    # D(r) is the field D written as a function; P(s_x) and P(s_z) are two quantities
    return bool(bare_a) and bare_a == bare_b and (bare_a == key_a or bare_b == key_b)


_LETTER_RE = re.compile(r'^(?:\\bar\{)?(\\[A-Za-z]+|[A-Za-z])')
_LETTER_VARIANTS = {'\\varphi': '\\phi', '\\varepsilon': '\\epsilon', '\\vartheta': '\\theta', '\\varrho': '\\rho',
                    '\\varsigma': '\\sigma', '\\varpi': '\\pi'}


def same_letter(a: str, b: str) -> bool:
    """True when two names are written on one letter (``v`` and ``v_c``, ``E_0`` and ``E_0^{Ps}``, ``\\varphi(0)``
    and ``\\phi(0)``), whatever their sub- and superscripts: the comparator may tie them (an alias, the
    question's own spelling, :func:`problem_tie`), so a pairing must compare them before it calls them
    two quantities. It says nothing about whether they are one quantity (``v_A`` and ``v_B`` share a letter)."""
    found = [_LETTER_RE.match(name_key(name)) for name in (a, b)]
    if not all(found):
        return False
    first, second = (_LETTER_VARIANTS.get(m.group(1), m.group(1)) for m in found)
    return first == second


def same_family(a: str, b: str) -> bool:
    """True when two different names are one symbol with different numbered subscripts (``\\omega_1``
    and ``\\omega_3``): a third frequency beside the two asked is a candidate answer, not commentary.
    Lettered subscripts name other quantities (``\\beta_c`` beside ``\\beta_0``: the centre of mass's)."""
    key_a, key_b = name_key(a), name_key(b)
    if key_a == key_b:
        return False
    base_a, _, sub_a = key_a.partition('_')
    base_b, _, sub_b = key_b.partition('_')
    return bool(base_a) and base_a == base_b and sub_a.isdigit() and sub_b.isdigit()


_DECORATION_RE = re.compile(r"'|\\(?:bar|hat|dot|ddot|tilde|overline|vec|widetilde|widehat)(?![A-Za-z])|[()\[\]|,;=]")
_SUBSCRIPT_TAIL_RE = re.compile(r'_(?:\{([^{}]+)\}|(\\[A-Za-z]+|[A-Za-z0-9]+))$')
_WORD_SUPERSCRIPT_TAIL_RE = re.compile(r'\^(?:\{([A-Za-z]+)\}|([A-Za-z]+))$')
#: subscripts that name a component of a vector (``B_z`` beside ``B``), not a description of the quantity
_COMPONENTS = r'[xyzrtn]|\\(?:theta|phi|varphi|rho|perp|parallel)'
#: a letter the question writes in italics outside math (Yale's ``_h_ above the floor``)
_ITALIC_RE = re.compile(r'(?<![A-Za-z0-9_])_([A-Za-z])_(?![A-Za-z0-9])')
#: the letter a name is built on, after a difference prefix: ``\\DeltaS_{universe}`` is built on ``S``
#: (the reader glues ``\\Delta S`` to ``\\DeltaS``), ``\\Delta_0`` on ``\\Delta``
_BASE_RE = re.compile(r'(?:\\Delta(?=[A-Za-z]|\\[A-Za-z]))?(\\[A-Za-z]+|[A-Za-z]|)')
#: the subscript that is a level index when both values depend on it (:func:`_level_indices`)
_LEVEL_INDEX = 'n'
#: a question that speaks of components, where ``n`` in a subscript may be the normal one
_COMPONENT_WORDS_RE = re.compile(r'\bnormal|\bcomponent|perpendicular|\\perp', re.I)
_LETTERS_SUBSCRIPT_RE = re.compile(r'^(\\?[A-Za-z]+)_(?:\{([A-Za-z]+)\}|([A-Za-z]+))$')


def problem_tie(reference: str, answer: str, values: Sequence[str], givens: Optional['Givens']) -> Optional[str]:
    """How the problem ties two different names to one quantity, or None (the judge decides).

    Why: "find the maximum height" is answered ``h_{max} = ...`` where the reference writes ``h``;
    ``v_T`` abbreviates ``v_{term}``. Only two shapes tie, on one letter: the other name with a descriptive
    sub- or superscript added (``h``/``h_{max}``, ``E_n``/``E_n^{Ps}``; never a number, prime or accent:
    ``v_0``, ``E'``, ``\\dot{S}`` are other quantities), or a word subscript and its abbreviation
    (``f_m``/``f_{mirror}``; never ``E_{min}``/``E_{max}`` or ``v_A``/``v_B``). A change is built on its
    letter (``\\Delta S``/``\\Delta S_{universe}``), and the level index both values depend on ties
    (``S``/``S_n``, :func:`_level_indices`; ``n`` is otherwise a normal component). And only when a question
    is given and nothing in the problem makes the answer's name another quantity: the question writes no
    other symbol on that letter beside the two names, the answer defines none, and neither value
    (``values``: both sides' LaTeX) uses the answer's name (``T = T/2^{1/3}`` for ``T_f``).
    """
    if givens is None or not givens.question:
        return None
    ref_key, ans_key = name_key(reference), name_key(answer)
    if ref_key == ans_key or _DECORATION_RE.search(ref_key + ans_key):
        return None
    indexed = any(key.endswith('_' + _LEVEL_INDEX) for key in (ref_key, ans_key))
    indices = _level_indices(values, givens.question_text) if indexed else frozenset()
    how = _decorated(ref_key, ans_key, indices) or _abbreviated(ref_key, ans_key)
    base = _sympy_name(_BASE_RE.match(ans_key).group(1)) if how else None
    if base is None:
        return None
    own = _sympy_name(answer) or _sympy_name(ans_key) or ans_key
    if any(own in _free_names(v) for v in values):
        return None
    from ..read.definitions import question_symbols
    written = question_symbols(givens.question_text) | set(_ITALIC_RE.findall(givens.question_text)) \
        | {n for n, _ in givens.answer}
    if {n for n in written if n == base or n.startswith(base + '_')} - {own, _sympy_name(ref_key)}:
        return None  # the problem writes other quantities on this letter: which one the answer names is open
    return how


def _decorated(a: str, b: str, indices: FrozenSet[str] = frozenset()) -> Optional[str]:
    """'decorated' when one key is the other with a descriptive sub- or superscript added, or with the
    level index both values depend on (``S_n`` for ``S``, :func:`_level_indices`)."""
    short, long = sorted((a, b), key=len)
    if not long.startswith(short):
        return None
    tail = long[len(short):]
    sub = _SUBSCRIPT_TAIL_RE.fullmatch(tail)
    if sub and '_' not in short:
        script = sub.group(1) or sub.group(2)
        if script in indices:
            return 'indexed'
        return None if re.fullmatch(r'[0-9]+|' + _COMPONENTS, script) else 'decorated'
    sup = _WORD_SUPERSCRIPT_TAIL_RE.fullmatch(tail)
    return 'decorated' if sup and '^' not in short else None


def _level_indices(values: Sequence[str], question: str) -> FrozenSet[str]:
    """The level index (``n``) when both values depend on it and the question speaks of no component.

    Why: a subscript ``n`` is either the normal component (``B_n``, a component: another quantity than
    ``B``) or the index of a level (``S_n = 2\\pi eB(n + 1/2)/\\hbar c``, the quantity ``S`` as a function
    of ``n``). When both values are written in ``n`` and the question says nothing of a normal or a
    component it is the index: ``S`` and ``S_n`` then state one function. A value that does not depend
    on ``n`` (``E_n = 3``), or a question about a normal component, leaves ``n`` a component.
    """
    if len(values) < 2 or _COMPONENT_WORDS_RE.search(question):
        return frozenset()
    free = [_free_names(v) for v in values]
    return frozenset({_LEVEL_INDEX}) if all(_LEVEL_INDEX in f for f in free) else frozenset()


def _abbreviated(a: str, b: str) -> Optional[str]:
    """'abbreviated' when both keys are one letter with a word subscript, one the other's abbreviation."""
    ma, mb = _LETTERS_SUBSCRIPT_RE.match(a), _LETTERS_SUBSCRIPT_RE.match(b)
    if not (ma and mb) or ma.group(1) != mb.group(1):
        return None
    short, long = sorted(((ma.group(2) or ma.group(3)).lower(), (mb.group(2) or mb.group(3)).lower()), key=len)
    return 'abbreviated' if len(long) >= 3 and long != short and long.startswith(short) else None


def _sympy_name(key: str) -> Optional[str]:
    """The SymPy name the engine's reader gives a name (``h_{max}`` -> ``h_max``), or None."""
    from ..read.definitions import _symbol_name
    return _symbol_name(key) if key else None


def _free_names(latex: str) -> FrozenSet[str]:
    from ..read.definitions import _free_names as free
    return free(latex) or frozenset()


#: subscript words of opposite quantities (``E_{min}``/``E_{max}``, ``E_{in}``/``E_{out}``): never one name for the other
_OPPOSITES = (
    ({'min', 'minimum', 'lowest'}, {'max', 'maximum', 'highest'}),
    ({'in', 'inside', 'inner', 'int', 'interior'}, {'out', 'outside', 'outer', 'ext', 'exterior'}),
    ({'i', 'initial', 'init', 'before'}, {'f', 'final', 'fin', 'after'}),
    ({'upper', 'up', 'top'}, {'lower', 'down', 'bottom'}),
    ({'left'}, {'right'}),
    ({'hot', 'h'}, {'cold', 'c'}),
    ({'incident', 'inc'}, {'reflected', 'refl', 'transmitted', 'trans'}),
    ({'near'}, {'far'}),
    ({'front'}, {'back', 'rear'}),
)
_WORD_RE = re.compile(r'[A-Za-z]+')
#: a subscript that is a component (``v_x``) or a sign (``a_+``): another quantity than the whole
_COMPONENT_OR_SIGN_RE = re.compile(r'_\{?(?:' + _COMPONENTS + r'|[+-]|\\pm|\\mp)\}?(?:\(|$)|[+-]\}?$')
_SYMBOL_PREFIX_RE = re.compile(r'^(?:vec|fn|avg):\(?')
#: the answer's name a sole tie accepts: a letter with a subscript of letters, maybe with arguments; never
#: a prime, a number or a bare letter (``E'``, ``E_1``, ``v_0``, ``E``: after a change, another state, the whole)
_DESCRIBED_RE = re.compile(r"^[^_'^]+_(?:\{[^{}'0-9^]+\}|\\?[A-Za-z]+)(?:\(.*\))?$")


def _letter(symbol: str) -> str:
    """The letter a SymPy symbol name is written on: ``E_min``, ``Eprime_11``, ``vec:E_1``, ``fn:E(r)`` -> ``E``;
    an accent stays part of it (``dotS``, ``barP``, ``tildenu``: a rate, a mean, another letter)."""
    base = re.split(r'[_(]', _SYMBOL_PREFIX_RE.sub('', symbol), maxsplit=1)[0]
    base = re.sub(r'(?:prime)+$', '', base)
    return _LETTER_VARIANTS.get('\\' + base, '\\' + base)[1:] if base else ''


def _subscript_words(key: str) -> set:
    script = key.partition('_')[2]
    return {w.lower() for w in _WORD_RE.findall(script)}


def _opposed(ref_key: str, ans_key: str, question: str) -> bool:
    """Whether the two names' subscripts, or the answer's and the question's words, are opposites
    (``E_{min}`` for ``E_{max}``, or ``E_{min}`` when the question asks for the maximum energy)."""
    ref_words, ans_words = _subscript_words(ref_key), _subscript_words(ans_key)
    spoken = {w.lower() for w in _WORD_RE.findall(question) if len(w) >= 3}
    for one, other in _OPPOSITES:
        for mine, theirs in ((one, other), (other, one)):
            if ans_words & mine and (ref_words & theirs or (spoken & theirs and not spoken & mine)):
                return True
    return False


def _other_case(ref_key: str, ans_key: str) -> bool:
    """Whether the answer's name is the reference's with its Latin letter in the other case and the rest
    as written (``P``/``p``, ``Z``/``z``, ``V_A``/``v_A``): never two changes (``V_a`` for ``v_A``), never a
    Greek letter (``\\Phi``/``\\phi``, ``\\Omega``/``\\omega`` are conventionally two quantities)."""
    return bool(ans_key and ref_key) and ans_key != ref_key and ans_key[0].isascii() and ans_key[0].isalpha() \
        and ans_key[0].swapcase() == ref_key[0] and ans_key[1:] == ref_key[1:]


def sole_tie(reference: str, answer: str, values: Sequence[str], givens: Optional['Givens'],
             formulas: bool = False) -> Optional[str]:
    """'the only quantity on its letter', when the problem has one quantity on the letter both names are
    written on and the answer's name can name no other: None otherwise (the judge decides).

    Why: a reference labels its parts in its own way (``\\tau_0``, ``E'``, ``Z_1``, ``\\omega_2``) and a model
    in its own (``\\tau_{proper}``, ``E_{cm}``, ``Z_{dist}``, ``\\omega_{reflected}``); the value alone cannot
    tell ``v_A`` from ``v_B``, but the problem can: when neither the question's formulas nor any reference
    part write another quantity on that letter, a name on it with the reference's value is the reference's
    quantity. So it ties only when (both sides' letters compared on the SymPy names the reader gives them):
    the question writes neither the answer's name nor another symbol on the letter (the bare letter, a given
    such as ``\\omega`` beside the asked ``\\omega'``, is allowed, and so is the reference's own name when it is
    not the bare letter: "the threshold energy $E_0$" answered ``E_{min}``); the answer defines no other
    symbol on it (its own name it may define: ``T_{shell} = T/2^{1/4}; P_{out} = ...``); no reference part
    writes the answer's name or defines another quantity on the letter; neither value uses the answer's
    name; the answer's subscript is
    no component or sign (``v_x``, ``a_+``) and no opposite of the reference's or of the question's words
    (``E_{min}`` for ``E_{max}``, or where the question asks for the maximum), and it is a subscript of
    letters: a prime, a number or the bare letter (``E'``, ``E_1``, ``E``) stays another state, and one letter
    (``v_A``, ``A_m``: an object, an index) ties only to itself in the other case (``C_V``/``C_v``). Another letter (``T`` for
    ``N``, ``x`` for ``y``) is never tied here.

    The reference's name with its Latin letter in the other case (``P`` for ``p``, ``Z = [...]^N`` for
    ``z``, :func:`_other_case`) ties on stricter terms, 'the only quantity on its letter in either case':
    both values are formulas (``formulas``, the caller's reading: ``M = 2`` for ``m = 2`` stays two masses, a
    number with or without its unit names no quantity); the question writes no symbol on either case of the
    letter, in its formulas or its words, not even the bare letter (momentum ``p`` beside the asked pressure,
    power ``P`` beside momentum ``p``); the answer defines none besides its name; and no reference part writes
    one besides the reference's name. The caller ties only a strictly equal value.
    """
    if givens is None or not givens.question or not givens.references:
        return None
    ref_key, ans_key = name_key(reference), name_key(answer)
    ref_name = _sympy_name(reference) or _sympy_name(ref_key)
    ans_name = _sympy_name(answer) or _sympy_name(ans_key)
    if not ref_name or not ans_name or ref_name == ans_name or ref_name.endswith('_') \
            or re.search(r'[+-]\}?$|\\[pm]{2}\}?$', ref_key):
        return None  # a sign subscript (\Phi_-) is one of two branches: never tied to a described name
    letter = _letter(ref_name)
    if any(ans_name in _free_names(v) for v in values):
        return None
    from ..read.definitions import question_symbols, reference_names
    asked = question_symbols(givens.question_text) | set(_ITALIC_RE.findall(givens.question_text))
    answered = {n for n, _ in givens.answer} - {ans_name}
    symbols, defined = reference_names(givens.references)
    if _other_case(ref_key, ans_key) and re.fullmatch(r'[A-Za-z]', letter) and _letter(ans_name) == letter.swapcase():
        cases = {letter, letter.swapcase()}
        if not formulas:
            return None  # M = 2, L' = 10 nm: a number (with its unit) does not name its quantity, NkT/V does
        from .question_spelling import in_question_text
        if any(_letter(n) in cases for n in asked | answered) \
                or any(in_question_text(case, givens.question_text) for case in cases) \
                or any(_letter(n) in cases and n != ref_name for n in symbols):
            return None
        return 'the only quantity on its letter in either case'
    if not letter or _letter(ans_name) != letter or not _DESCRIBED_RE.match(ans_key) \
            or _COMPONENT_OR_SIGN_RE.search(ans_key) \
            or _opposed(ref_key, ans_key, givens.question_text):
        return None
    ans_script, ref_script = ans_key.partition('_')[2].split('(')[0], ref_key.partition('_')[2].split('(')[0]
    if re.fullmatch(r'[A-Za-z]', ans_script) and ans_script.swapcase() != ref_script:
        return None  # v_A, A_m: one letter labels an object or an index; only C_V for C_v (its case) ties
    if ref_name == letter and ref_name in asked:
        return None  # the question's bare letter may be a given of that name, not the asked quantity
    if any(_letter(n) == letter and n not in (letter, ref_name) for n in asked) \
            or any(_letter(n) == letter and n != letter for n in answered):
        return None
    if ans_name in symbols or any(_letter(n) == letter and n != ref_name for n in defined):
        return None
    return 'the only quantity on its letter'


_CROSS_SECTION_NAMES = frozenset(name_key(n) for n in (
    '\\frac{d\\sigma}{d\\Omega}', '\\dfrac{d\\sigma}{d\\Omega}', 'd\\sigma/d\\Omega', '\\frac{d\\sigma}{d\\Omega}(\\theta)', '\\sigma(\\theta)',
    '\\sigma(\\theta, \\phi)', '\\frac{d\\sigma(\\theta)}{d\\Omega}'))
"""Spellings of the differential cross-section: ``\\sigma(\\theta)`` is the older texts' name for ``d\\sigma/d\\Omega``."""
_SCATTERING_RE = re.compile(r'(?i)scatter|cross[\s-]*section')


def differential_cross_sections(a: str, b: str, givens: Optional['Givens']) -> bool:
    """Whether two different names both name the differential cross-section (``\\frac{d\\sigma}{d\\Omega}``
    and ``\\sigma(\\theta)``, see :data:`_CROSS_SECTION_NAMES`), in a question about scattering or a
    cross-section.

    Why: ``\\sigma(\\theta) = \\frac{m^2g^2}{4\\pi^2\\hbar^4}`` against ``\\frac{d\\sigma}{d\\Omega} = \\frac{m^2g^2}
    {4\\pi^2\\hbar^4}`` is one result; outside scattering ``\\sigma(\\theta)`` is as likely a surface charge, and
    ``\\sigma`` alone is the total cross-section, never the differential one."""
    if givens is None or not _SCATTERING_RE.search(givens.question_text or ''):
        return False
    keys = {name_key(a), name_key(b)}
    return len(keys) == 2 and keys <= _CROSS_SECTION_NAMES
