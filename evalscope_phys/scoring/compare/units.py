"""Units via ``pint``: LaTeX unit text -> a pint unit, and the factor between two units.

``46.3 kN`` against ``46300 N`` compares ``46.3 * factor(kN -> N)`` with ``46300``. A unit the
registry does not know is treated as no unit (the text is kept on the verdict's side but does not
block a numeric match); two known units of different dimensions are a ``dimension_mismatch``.
Unit text goes through a whitelist before pint sees it, and pint's own parser never evaluates it.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

_REGISTRY = None
_REGISTRY_LOCK = threading.Lock()

# Physics usage that pint's defaults read otherwise (gauss in SI, AU the astronomical unit).
_DEFINITIONS = (
    'gauss_si = 1e-4 * tesla = G_si',
    'astronomical_unit_ = astronomical_unit = AU_',
)
_REPLACEMENTS = (
    (r'\\AA\b|Å', 'angstrom'), (r'\\Omega|Ω', 'ohm'), (r'\\mho', 'siemens'),
    (r'\^\s*\{?\s*\\circ\s*\}?\s*C\b|°\s*C\b|\\degree\s*C\b', 'degC'),
    (r'\^\s*\{?\s*\\circ\s*\}?\s*F\b|°\s*F\b', 'degF'),
    (r'\^\s*\{?\s*\\circ\s*\}?|\\circ|°|\\degree', 'degree'),
    (r"''|\^\s*\{\s*\\prime\s*\\prime\s*\}", 'arcsecond'), (r"'|\^\s*\{?\s*\\prime\s*\}?", 'arcminute'),
    (r'\\%|%', 'percent'), (r'\\(mu|micro)\s*|μ|µ', 'MICRO'), (r'\\hbar', 'hbar'),
)
_WORD_ALIASES = {'G': 'G_si', 'AU': 'AU_', 'sec': 's', 'secs': 's', 'hr': 'hour', 'hrs': 'hour',
                 'Gs': 'G_si', 'gauss': 'G_si', 'amu': 'u', 'deg': 'degree', 'degrees': 'degree',
                 'rev': 'revolution', 'Angstrom': 'angstrom', 'ev': 'eV', 'kev': 'keV',
                 'mev': 'MeV', 'gev': 'GeV', 'ly': 'light_year', 'lyr': 'light_year',
                 'kWhr': 'kWh', 'pct': 'percent', 'percentage': 'percent', 'percents': 'percent', 'Celsius': 'degC',
                 'c': None, 'e': None}
_ALLOWED_RE = re.compile(r'^[A-Za-z0-9_*/(). \-]+$')


def _registry_class():
    """pint's ``UnitRegistry`` without its eager cache of every unit's root units (a third of the build).

    Why: the registry is built before the first scoring worker is ready, on the critical path of a
    one-pair ``evalscope-phys score``. pint fills the same cache entry by entry on first use
    (``_get_root_units``, ``_get_dimensionality``: the same computation, so the same factors); what is
    lost is only ``get_compatible_units``' table, which we never ask for. pint's own way to skip the
    work, its disk cache, stores pickles (docs/security.md). Relies on ``_build_cache`` and
    ``_caches`` (pint 0.25; another layout falls back to the eager build); ``tests/scoring/compare/test_units.py`` checks the factors against pint's own.
    """
    import pint
    try:
        from pint.facets.plain.registry import RegistryCache
    except ImportError:  # another layout: pint's own eager build
        return pint.UnitRegistry

    class UnitRegistry(pint.UnitRegistry):
        def _build_cache(self, loaded_files=None) -> None:
            if not isinstance(getattr(self, '_caches', None), dict):
                super()._build_cache(loaded_files)
                return
            self._cache = RegistryCache()
            self._caches[()] = self._cache

    return UnitRegistry


def registry():
    """The process-wide pint registry (built once, about half a second)."""
    global _REGISTRY
    if _REGISTRY is None:
        with _REGISTRY_LOCK:
            if _REGISTRY is None:
                ureg = _registry_class()(on_redefinition='ignore', autoconvert_offset_to_baseunit=True)
                for definition in _DEFINITIONS:
                    ureg.define(definition)
                _REGISTRY = ureg
    return _REGISTRY


def latex_unit_to_pint(text: str, drop_note: bool = False) -> Optional[str]:
    """A pint expression for a LaTeX unit (``\\mathrm{m\\,s^{-1}}`` -> ``m*s**-1``), or None."""
    s = text.strip()
    if not s or len(s) > 200:
        return None
    s = re.sub(r'\\(text|mathrm|textrm|rm|mbox|operatorname|mathit|textit|mathbf|textbf|textnormal|mathsf|textsf)\b', ' ', s)
    s = re.sub(r'(?i)\bdegrees?\s+(celsius|centigrade)\b', 'degC', s)
    s = re.sub(r'(?i)\bdegrees?\s+fahrenheit\b', 'degF', s)
    s = re.sub(r'(?i)\bkelvins?\b', 'K', s)
    s = re.sub(r'(?i)\barc\s*-?\s*(sec|min)(?:ond|ute)?s?\b', lambda m: 'arc%s' % m.group(1).lower(), s)
    s = re.sub(r'\{\s*([A-Za-zÅΩ°%\\ ]+?)\s*\}', r' \1 ', s)  # {m} -> m (exponent braces stay)
    for pattern, replacement in _REPLACEMENTS:
        s = re.sub(pattern, ' %s ' % replacement, s)
    s = re.sub(r'MICRO\s*', 'u', s)
    s = re.sub(r'\\(cdot|times|bullet)|·|⋅|\*', ' * ', s)
    s = re.sub(r'\\[,;:! ]|~|\\quad|\\qquad', ' ', s)
    s = re.sub(r'(?<=[A-Za-z])\s*-\s*(?=[A-Za-z])', ' * ', s)  # dyne-cm, N-m, kW-h: a product
    s = re.sub(r'\^\s*\{\s*([+-]?\s*[0-9./]+)\s*\}', lambda m: '**(%s)' % m.group(1).replace(' ', ''), s)
    s = re.sub(r'\^\s*([+-]?[0-9]+)', r'**\1', s)
    s = s.replace('{', ' ').replace('}', ' ')
    if drop_note:
        s = re.sub(r'\s\(\s*[A-Za-z0-9][A-Za-z0-9.\s]*\)\s*$', ' ', s)  # "nm (red)", "sec (20 minutes)"
    if '\\' in s or '^' in s:
        return None
    s = s.strip().strip('.').strip()
    if not s or not _ALLOWED_RE.match(s.replace('**', '^^').replace('^^', '*')):
        return None
    # c alone is a symbol (0.5 c), but after an electronvolt unit (GeV/c, MeV/c^2) it is light speed
    s = re.sub(r'(\b[kMGTm]?eV\s*/\s*\(?\s*)c\b', r'\1speed_of_light', s)
    words = re.findall(r'[A-Za-z_]+|\*\*|[0-9.]+|[*/()\-]', s)
    out, previous = [], None
    for word in words:
        if re.fullmatch(r'[A-Za-z_]+', word):
            if word in _WORD_ALIASES:
                word = _WORD_ALIASES[word]
                if word is None:
                    return None
            if previous is not None and (re.fullmatch(r'[A-Za-z_]+', previous) or previous == ')'
                                         or re.fullmatch(r'[0-9.]+', previous) and out[-2:-1] == ['**']):
                out.append('*')
        elif word == '(' and previous is not None and (re.fullmatch(r'[A-Za-z_]+', previous) or previous == ')'):
            out.append('*')
        out.append(word)
        previous = word
    return ''.join(out) or None


@lru_cache(maxsize=4096)
def parse_unit(text: str):
    """The pint unit for LaTeX unit text, or None when it is not a unit we know."""
    for drop_note in (False, True):
        expression = latex_unit_to_pint(text, drop_note)
        if expression is None:
            continue
        candidates = [expression]
        if re.fullmatch(r'[A-Z][a-z]{3,}', expression):
            candidates.append(expression.lower())  # a unit name written with a capital: Tesla, Joule
        for candidate in candidates:
            try:
                return registry().parse_units(candidate)
            except Exception:
                continue
    return None


PREFIXES = frozenset({'femto', 'pico', 'nano', 'micro', 'milli', 'centi', 'deci', 'kilo', 'mega', 'giga'})
"""Prefixes a plain word may carry to read as a unit (``am``, ``ab``: atto is the letters a m, a b)."""
TERA_BASES = frozenset({'electron_volt', 'hertz', 'watt'})
"""Tera only on these (``TeV``, ``THz``): ``Ts`` is T times s."""
PREFIXED_BASES = frozenset({
    'meter', 'gram', 'second', 'ampere', 'kelvin', 'mole', 'newton', 'joule', 'watt', 'pascal', 'hertz',
    'coulomb', 'volt', 'ohm', 'tesla', 'electron_volt', 'liter', 'weber', 'farad', 'henry', 'siemens',
    'gray', 'sievert', 'becquerel', 'bar', 'barn', 'radian', 'watt_hour', 'calorie', 'gauss_si', 'curie'})
"""Units physicists write with a prefix in plain text (``mA``, ``keV``, ``mg``); ``mc`` (milli-light-speed),
``Ts`` (terasecond) are symbols to a physicist: ``2mc`` is twice m times c."""
SYMBOL_PRODUCTS = frozenset({'kT'})
"""Prefixed words that read first as a product of symbols (Boltzmann's constant times a temperature)."""


def plain_word_is_unit(text: str) -> bool:
    """Whether a unit written without ``\\text{}`` reads as a unit to a physicist: every word a unit's own
    name or symbol, or a common prefix on a unit physicists prefix (:data:`PREFIXED_BASES`)."""
    expression = latex_unit_to_pint(text)
    if expression is None:
        return False
    ureg = registry()
    for word in re.findall(r'[A-Za-z_]+', expression):
        if word in SYMBOL_PRODUCTS:
            return False
        try:
            readings = ureg.parse_unit_name(word)
        except Exception:
            return False
        if not any(prefix == '' or (prefix in PREFIXES and name in PREFIXED_BASES)
                   or (prefix == 'tera' and name in TERA_BASES) for prefix, name, _ in readings):
            return False
    return True


@dataclass(frozen=True)
class UnitComparison:
    """How an answer's unit relates to the reference's."""

    factor: Optional[float]
    """Multiply the answer's value by this to express it in the reference's unit (None: cannot)."""
    reason: str
    """'no_units', 'missing_unit', 'extra_unit', 'same_unit', 'unit_converted',
    'dimension_mismatch' or 'unknown_unit'."""
    offset: float = 0.0
    """Added after the factor (temperature scales only)."""
    alternative: Optional[float] = None
    """A second factor worth trying: a dimensionless unit against a bare reference (``60\\%``
    for ``0.6`` is 0.01, but ``30^\\circ`` for ``30`` is 1): the better match wins."""


def _dimensionless_factor(text: str) -> Optional[float]:
    unit = parse_unit(text)
    if unit is None or not unit.dimensionless:
        return None
    try:
        factor = float(registry().Quantity(1.0, unit).to('dimensionless').magnitude)
    except Exception:
        return None
    return None if abs(factor - 1.0) < 1e-12 else factor


def compare_units(answer_unit: str, reference_unit: str) -> UnitComparison:
    """Factor turning answer-unit values into reference-unit values, with a reason."""
    if not answer_unit and not reference_unit:
        return UnitComparison(1.0, 'no_units')
    if not answer_unit:  # a bare 0.6 for 60 %, pi/6 for 30 degrees: the value as a pure number
        factor = _dimensionless_factor(reference_unit)
        return UnitComparison(1.0, 'missing_unit', alternative=1.0 / factor if factor else None)
    if not reference_unit:
        return UnitComparison(1.0, 'extra_unit', alternative=_dimensionless_factor(answer_unit))
    a, r = parse_unit(answer_unit), parse_unit(reference_unit)
    if a is None or r is None:
        return UnitComparison(1.0, 'unknown_unit')
    if a == r:
        return UnitComparison(1.0, 'same_unit')
    ureg = registry()
    try:
        one = ureg.Quantity(1.0, a).to(r).magnitude
        zero = ureg.Quantity(0.0, a).to(r).magnitude
    except Exception:
        light = _light_speed_factor(a, r)
        return UnitComparison(light, 'unit_converted') if light is not None else UnitComparison(None, 'dimension_mismatch')
    factor = float(one - zero)
    if abs(factor - 1.0) < 1e-12 and abs(zero) < 1e-12:
        return UnitComparison(1.0, 'same_unit')
    return UnitComparison(factor, 'unit_converted', offset=float(zero))


def _light_speed_factor(answer, reference) -> Optional[float]:
    """The factor for an energy against an energy over ``c`` or ``c^2`` (``136 MeV`` for ``136 MeV/c^2``,
    ``0.14 GeV/c^2``, ``400 MeV`` for ``400 MeV/c``), the reverse too, else None.

    Why: physicists quote masses and momenta in energy units (``c = 1``); the rule applies only when one
    side is an energy and the other that energy divided by ``c`` once or twice, never between two units
    that both divide by ``c`` (a momentum in ``MeV/c`` is not a mass in ``MeV/c^2``).
    """
    ureg = registry()
    energy = ureg.joule.dimensionality
    for plain, other, sign in ((answer, reference, 1), (reference, answer, -1)):
        if plain.dimensionality != energy:
            continue
        for power in (1, 2):
            try:
                factor = ureg.Quantity(1.0, plain / ureg.speed_of_light ** power).to(other).magnitude
            except Exception:
                continue
            return float(factor) if sign == 1 else 1.0 / float(factor)
    return None


def molar_factor(answer_unit: str, reference_unit: str) -> Optional[float]:
    """The factor turning a per-mole value into the reference's unit for one mole (``J/(mol K)`` into
    ``cal/K``), or a total for one mole into a per-mole reference; None when the units differ otherwise."""
    a, r = parse_unit(answer_unit), parse_unit(reference_unit)
    if a is None or r is None:
        return None
    ureg = registry()
    for unit in (a * ureg.mole, a / ureg.mole):
        try:
            return float(ureg.Quantity(1.0, unit).to(r).magnitude)
        except Exception:
            continue
    return None
