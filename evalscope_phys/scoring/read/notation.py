"""Surface notation of answers: Unicode and plain-text math as LaTeX, and wrappers cleaned off.

Why first: models write ``√(2gh)``, ``v₀``, ``x⁻³``, ``≈``, ``3e8``, ``**`` and ``>=`` as often as LaTeX;
rewriting them once here means the reader and the comparator see one notation.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Tuple

from .scan import boxed_spans, matching_brace, strip_leading, strip_trailing
from .text_memo import short_texts
from .words import CJK_RE

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
    """Unicode math as LaTeX (``v₀`` -> ``v_{0}``, ``x⁻³`` -> ``x^{-3}``, ``≈`` -> ``\\approx``).

    Its output is its own fixpoint (``to_latex(to_latex(t)) == to_latex(t)``): what the compatibility
    normalisation turns into a character of the tables (``𝜋`` -> ``π``, the ohm sign -> ``Ω``) is
    rewritten too, so a text rewritten once is in the one notation every later stage reads."""
    if text.isascii():
        return text
    text = _rewrite(text)
    if not text.isascii() and not CJK_RE.search(text):  # CJK text keeps its own punctuation
        normalised = unicodedata.normalize('NFKC', text)
        text = _rewrite(normalised) if normalised != text else text
    return text


def _rewrite(text: str) -> str:
    text = _SCRIPT_RUN_RE.sub(_script_run, text)
    return _UNICODE_RE.sub(lambda m: _UNICODE[m.group(0)], text)


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


BACKSLASH_SPACE_RE = re.compile(r'(?<!\\)\\ ')


_WRAPPER_RE = re.compile(r'^\s*(\\displaystyle|\\textstyle|\\scriptstyle)\s*')


_LABEL_RE = re.compile(r'^\s*(\\text(bf)?\{\s*\(?[a-z0-9]{1,3}\)\s*\}|\([a-z0-9]{1,3}\)|[a-z]\))\s*:?\s*(?=\S)')


_DELIMS_OPEN = ('$$', '$', '\\[', '\\(')


_DELIMS_CLOSE = ('$$', '$', '\\]', '\\)')


def clean(text: str) -> str:
    """Strip math delimiters, boxes, labels, spacing, final punctuation and an outer pair of braces."""
    return clean_and_label(text)[0]


@short_texts
def clean_and_label(text: str) -> Tuple[str, str]:
    """:func:`clean`'s text and the leading label it dropped (``\\textbf{(b)} decreases`` -> ``(b)``; '' for
    none): words after an option's label name that option (:mod:`..compare.choices`)."""
    text, label = text.strip(), ''
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
        m = _LABEL_RE.match(text)
        if m:
            label, text = label or m.group(1), text[m.end():]
        text = strip_trailing(strip_leading(text)).strip()
        if text.startswith('{') and matching_brace(text, 0) == len(text) - 1:
            text = text[1:-1].strip()
        spans = boxed_spans(text)
        if len(spans) == 1 and spans[0][0] == 0 and spans[0][2] == len(text) - 1:
            text = text[spans[0][1]:spans[0][2]].strip()
        if text == before:
            break
    return text, label


_LAYOUT_RE = re.compile(r'\s+|\\[,;:! ]|\\(?:left|right|displaystyle)(?![A-Za-z])')
_FRACTION_SPELLINGS_RE = re.compile(r'\\[dtc]frac(?![A-Za-z])')


def compact(text: str) -> str:
    """Text as compared when neither side can be read: spacing, sizing and the display spelling of a
    fraction (``\\dfrac`` is ``\\frac``) do not make two answers different."""
    text = _FONT_SWITCH_RE.sub(lambda m: '\\math%s{%s}' % (_FONT_SWITCHES[m.group(1)], m.group(2).strip()), text)
    return _FRACTION_SPELLINGS_RE.sub(r'\\frac', _LAYOUT_RE.sub('', text))


#: old font switches, ``{\\rm max}``, ``\\rm Ps``: written as ``\\mathrm{max}`` before spaces go, so ``\\rm max``
#: never becomes a command ``\\rmmax``
_FONT_SWITCHES = {'rm': 'rm', 'bf': 'bf', 'it': 'it', 'sf': 'sf', 'tt': 'tt'}
_FONT_SWITCH_RE = re.compile(r'\\(rm|bf|it|sf|tt)\s+([A-Za-z][A-Za-z0-9 ]*?)(?=\s*[}$^_\\]|\s*$)')


def same_text(reference: str, answer: str) -> bool:
    """The very text of the reference (as :func:`compact` compares it): equal whatever it means."""
    return compact(clean(to_latex(reference or ''))) == compact(clean(to_latex(answer or '')))


#: one particle of a reaction or decay: a name (``K``, ``\\pi``, ``\\bar{K}``, ``\\overline{\\nu}``), an
#: optional subscript (``\\nu_e``, ``\\nu_{\\mu}``) and an optional charge (``^+``, ``^{-}``, ``^0``, ``^{++}``);
#: an unbraced superscript is one character, as LaTeX reads it, so ``K^++K^-`` is ``K^+``, ``+``, ``K^-``
_PARTICLE_RE = re.compile(
    r'(?P<name>(?:\\(?:bar|overline)\{(?:\\[A-Za-z]+|[A-Za-z])\}|\\(?:bar|overline)(?:\\[A-Za-z]+|[A-Za-z])'
    r'|\\[A-Za-z]+|[A-Za-z]))'
    r'(?P<sub>_(?:\{[A-Za-z0-9\\]+\}|\\[A-Za-z]+|[A-Za-z0-9]))?'
    r'(?P<charge>\^(?:\{(?:[+\-]{1,2}|0)\}|[+\-0]))?')
_PARTICLE_NAME_RE = re.compile(r'\\(?:bar|overline)\{?(\\[A-Za-z]+|[A-Za-z])\}?')
_NOT_PARTICLES = frozenset({'\\to', '\\rightarrow', '\\frac', '\\sqrt', '\\cdot', '\\times', '\\text', '\\mathrm'})


def particles(text: str, alone: bool = False):
    """The particles on one side of a reaction or decay, as a multiset (a ``Counter`` of spellings), when
    the side is nothing but particles -- at least two, at least one with a charge (``K^+K^-``, ``p + \\pi^-``,
    ``e^- \\bar{\\nu}_e \\nu_\\mu``), written side by side or joined by ``+``; else None. The charge is what
    says "particles": ``K^+ K^-`` is no product of numbers, and a side with no charge (``ab``, ``x + y``)
    stays algebra. ``\\overline{\\nu}`` is ``\\bar{\\nu}``; a count (``2\\gamma``) is not read. With
    ``alone`` (the other side of a reaction already said "particles") one particle, charged or not, is a
    side too: ``\\rho^0`` is a particle there, never ``\\rho`` to the power 0."""
    from collections import Counter
    text = compact(text)
    found, position, charged = Counter(), 0, False
    while position < len(text):
        if found and text[position] == '+':
            position += 1
        match = _PARTICLE_RE.match(text, position)
        if match is None or match.group('name') in _NOT_PARTICLES:
            return None
        name = _PARTICLE_NAME_RE.sub(r'\\bar{\1}', match.group('name'))
        sub = (match.group('sub') or '').replace('{', '').replace('}', '')
        charge = (match.group('charge') or '').replace('{', '').replace('}', '')
        charged = charged or bool(charge)
        found[name + sub + charge] += 1
        position = match.end()
    if alone:
        return found or None
    return found if charged and sum(found.values()) >= 2 else None
