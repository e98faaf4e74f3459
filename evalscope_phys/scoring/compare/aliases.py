"""Notation physicists treat as one: a short curated table of symbol names, each with negative golden cases.

Why a table and not a rule: ``k_B`` and ``k`` are both Boltzmann's constant, but ``m`` and ``\\mu`` (a
reduced mass) or ``M`` and ``m`` are different quantities; only pairs listed here are one symbol.
:func:`canonical_symbol` is the one name comparison the reader and the comparator consult (for
left-hand sides too); :func:`with_aliases` rewrites a value's LaTeX so that both sides spell an
aliased symbol alike. A charge or state written on a particle subscript (``m_{K^-}``, ``m_{\\pi^0}``)
names the same mass as the bare particle, unless one side uses two charges of one particle.
"""
from __future__ import annotations

import re
from typing import Optional, Tuple

from ..read.text_memo import short_texts

_UPRIGHT_RE = re.compile(r'\\(?:mathrm|text|textrm|rm|operatorname|mbox)\s*(?:\{([^{}]*)\}|\s+([A-Za-z]+))')
_SPACING_RE = re.compile(r'\s+|\\[,;:! ]')

BOLTZMANN_SPELLINGS = ('k_B', 'k_b')
"""Spellings of Boltzmann's constant other than ``k`` (after :func:`plain_name`)."""

#: a charge written on a particle in a subscript: m_{K^-}, m_{\pi^0}, m_{\Lambda^0}, m_{\pi^{+}}
_CHARGE_RE = re.compile(r'(_\{?\\?[A-Za-z]+)\^(?:\{(?:[-+0]|\\pm|\\mp)\}|[-+0])(?=\}|$)')


@short_texts
def plain_name(name: str) -> str:
    """A symbol name without spacing, upright wrappers or braces around one-character scripts
    (``k_{\\rm B}`` -> ``k_B``, ``E_{\\text{eff}}`` -> ``E_eff``)."""
    name = _UPRIGHT_RE.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), name)
    name = _SPACING_RE.sub('', name)
    name = re.sub(r'\\rm(?=[A-Z][a-z]|[a-z]{2})', '', name)  # E_n^{\rmPs}: the reader drops the space after \rm
    name = re.sub(r'([_^])\{([A-Za-z0-9]+|\\[A-Za-z]+)\}', r'\1\2', name)
    return name


@short_texts
def canonical_symbol(name: str) -> str:
    """The one spelling of a symbol name in the alias table (``k_B`` -> ``k``; ``m_{K^-}`` -> ``m_K``).

    Names outside the table come back as :func:`plain_name` spells them: ``\\mu`` stays ``\\mu`` and
    ``M`` stays ``M``.
    """
    name = plain_name(name)
    if name in BOLTZMANN_SPELLINGS:
        return 'k'
    uncharged = _CHARGE_RE.sub(r'\1', name)
    return plain_name(uncharged.replace('{', '').replace('}', '')) if uncharged != name else name


def base_symbol(name: str) -> str:
    """The letter a name is built on (``\\theta_2`` -> ``\\theta``, ``v'_0`` -> ``v``), for telling apart
    two candidates for one quantity from definitions of other quantities."""
    name = plain_name(name)
    name = re.sub(r'^\\(?:mathbf|boldsymbol|vec|bar|hat|tilde|overline|bm)\s*\{?', '', name)
    m = re.match(r'\\(?:[A-Z][a-z]+|[a-z]+)' if name.startswith('\\') else r'[A-Za-z]', name)  # \DeltaE: \Delta
    return m.group(0) if m else name


_BOLTZMANN_RE = re.compile(r'k_\{?\s*(?:\\(?:mathrm|text|textrm|rm)\s*\{?\s*)?[Bb]\s*\}?\}?')
#: an imaginary exponent (``e^{ikx}``, ``\\exp(-i k r)``): there ``k`` is a wave number
_WAVE_RE = re.compile(r'(?:e\^\{?|\\exp\s*(?:\\left)?[(\[{]?)\s*[-+]?\s*i(?![A-Za-jl-z])')  # ikx: i then k
_CHARGE = r'(?:[-+0]|\\pm|\\mp)'
_CHARGED_SUBSCRIPT_RE = re.compile(r'_\{\s*(\\?[A-Za-z]+)\s*\^\s*(?:\{\s*%s\s*\}|%s)\s*\}' % (_CHARGE, _CHARGE))


def with_aliases(reference: str, answer: str, question: str = '') -> Optional[Tuple[str, str]]:
    """Both LaTeX texts with aliased symbols spelt alike, or None when no alias applies safely.

    * ``k_B`` becomes ``k`` on a side that writes no bare ``k`` of its own, when the other side writes
      ``k`` and neither writes ``\\hbar`` or an imaginary exponent (``\\hbar k``, ``e^{ikx}``: a wave number);
    * ``m_{K^-}`` becomes ``m_{K}`` on a side where no other charge of that particle occurs;
    * a bold letter becomes plain where the other side writes it plain (:func:`_unbolded`);
    * ``m_e`` becomes ``m`` where the question is about electrons (:func:`_electron_mass`).
    """
    new_reference, new_answer = reference, answer
    for side in ('reference', 'answer'):
        text = new_reference if side == 'reference' else new_answer
        other = new_answer if side == 'reference' else new_reference
        if _BOLTZMANN_RE.search(text) and not _bare_k(_BOLTZMANN_RE.sub('', text)) \
                and _bare_k(other) and not _BOLTZMANN_RE.search(other) and '\\hbar' not in text + other \
                and not _WAVE_RE.search(text + other):
            text = _BOLTZMANN_RE.sub('k', text)
        text = _uncharged(text)
        text = _unbolded(text, other)
        text = _electron_mass(text, other, question)
        if side == 'reference':
            new_reference = text
        else:
            new_answer = text
    if (new_reference, new_answer) == (reference, answer):
        return None
    return new_reference, new_answer


_BOLD_RE = re.compile(r'\\(?:mathbf|boldsymbol|bm)\s*(?:\{\s*([A-Za-z])\s*\}|([A-Za-z]))')
_PRODUCTS_RE = re.compile(r'\\(?:cdot|times|wedge|nabla|hat|vec)|\\mathbf\s*\{?\s*[a-z]\s*\}?_')


def _unbolded(text: str, other: str) -> str:
    """``\\mathbf{S}^2`` -> ``S^2`` when the other side writes that letter plain and never bold, and
    neither side has a product of vectors or a unit vector (``\\mathbf{A}\\cdot\\mathbf{B}`` is not
    ``AB``); a bold letter that this side also writes plain (a vector and its magnitude) stays bold."""
    letters = {m.group(1) or m.group(2) for m in _BOLD_RE.finditer(text)}
    if not letters or _PRODUCTS_RE.search(text) or _PRODUCTS_RE.search(other) or _BOLD_RE.search(other):
        return text
    commands = r'\\(?:text|mathrm|rm|mbox)\s*\{[^{}]*\}|\\[A-Za-z]+'
    plain_here, plain_other = re.sub(commands, ' ', _BOLD_RE.sub(' ', text)), re.sub(commands, ' ', other)
    safe = {x for x in letters if x in plain_other and not re.search(r'%s(?!\s*_)' % x, plain_here)}
    return _BOLD_RE.sub(lambda m: (m.group(1) or m.group(2)) if (m.group(1) or m.group(2)) in safe else m.group(0), text)


#: the electron's mass: m_e, m_{e}, m_{\rm e}, m_{\mathrm{e}}, m_\text{e}
_ELECTRON_MASS_RE = re.compile(r'(?<![A-Za-z\\])m_(?:\{\s*(?:e|\\rm\s+e|\\(?:mathrm|text|textrm|rm)\s*\{\s*e\s*\})\s*\}|\\(?:mathrm|text|textrm|rm)\s*\{\s*e\s*\}|e)')
#: any mass symbol other than a bare m: m_p, m_\mu, m_{\pi}, M, \mu (a reduced mass)
_OTHER_MASS_RE = re.compile(r'(?<![A-Za-z\\])m_|(?<![A-Za-z\\])M(?![A-Za-z])|\\mu(?![A-Za-z])')
#: a question about an electron's motion: the electron, an atom in Bohr's model, hydrogen
_ABOUT_ELECTRONS_RE = re.compile(r'electron|hydrogen|\bbohr', re.I)
#: a question that also has another light particle or an effective mass, which a bare m may name
_OTHER_PARTICLES_RE = re.compile(r'muon|pion|kaon|meson|positron|exciton|quark|\bholes?\b|effective mass|reduced mass'
                                 r'|\\mu\^-|\\pi\^', re.I)


def _electron_mass(text: str, other: str, question: str) -> str:
    """``m_e`` -> ``m`` when the other side writes the electron's mass as a bare ``m``: both sides name
    one mass and no other, and the question is about electrons and no other light particle.

    Why: ``E_n = -m_e e^4/(32\\pi^2\\epsilon_0^2\\hbar^2 n^2)`` answers a reference that writes ``m``; in
    a muonic atom or beside a proton mass ``m_p`` a bare ``m`` may be another particle's."""
    if not _ELECTRON_MASS_RE.search(text) or _ELECTRON_MASS_RE.search(other) or not _ABOUT_ELECTRONS_RE.search(question) \
            or _OTHER_PARTICLES_RE.search(question):
        return text
    rest = _ELECTRON_MASS_RE.sub(' ', text)
    if _bare_m(rest) or not _bare_m(other) or _OTHER_MASS_RE.search(rest) or _OTHER_MASS_RE.search(other):
        return text
    return _ELECTRON_MASS_RE.sub('m', text)


def _bare_m(text: str) -> bool:
    """Whether ``m`` occurs as a symbol of its own (``me^4``, ``2m``), not in a command, word or subscript."""
    text = re.sub(r'\\(?:text|mathrm|rm|textrm|mbox)\s*\{[^{}]*\}|\\[A-Za-z]+', ' ', text)
    text = re.sub(r'_\{[^{}]*\}|_[A-Za-z0-9]', ' ', text)
    return 'm' in text


def _bare_k(text: str) -> bool:
    """Whether ``k`` occurs as a symbol of its own (``Nk``, ``kT``, ``e^{-E/kT}``), not in a command, word
    or subscript (``E_k``); an exponent is a formula, so a ``k`` in it counts."""
    text = re.sub(r'\\(?:text|mathrm|rm|textrm|mbox)\s*\{[^{}]*\}|\\[A-Za-z]+', ' ', text)
    text = re.sub(r'_\{[^{}]*\}|_[A-Za-z0-9]', ' ', text)
    return 'k' in text


def _uncharged(text: str) -> str:
    """``m_{K^-}`` -> ``m_{K}`` unless the particle occurs with two charges (``m_{\\pi^+} - m_{\\pi^0}``)
    or bare beside a charged spelling."""
    particles = {}
    for m in _CHARGED_SUBSCRIPT_RE.finditer(text):
        particles.setdefault(m.group(1), set()).add(re.sub(r'\s', '', m.group(0)))
    if not particles:
        return text
    safe = {p for p, spellings in particles.items()
            if len(spellings) == 1 and not re.search(r'_\{?\s*%s\s*\}?(?![\^A-Za-z])' % re.escape(p), text)}
    return _CHARGED_SUBSCRIPT_RE.sub(lambda m: '_{%s}' % m.group(1) if m.group(1) in safe else m.group(0), text)
