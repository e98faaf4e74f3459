"""Units through pint: LaTeX unit text, conversion factors, dimension checks."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.compare.units import compare_units, latex_unit_to_pint, parse_unit


@pytest.mark.parametrize('text,expected', [
    (r'\text{ m/s}', 'm/s'),
    (r'\mathrm{m\,s^{-1}}', 'm*s**(-1)'),
    (r'\text{V} \cdot \text{s}^2', 'V*s**2'),
    (r'\mu m', 'um'),
    (r'^\circ C', 'degC'),
    (r'\%', 'percent'),
    (r'\Omega', 'ohm'),
])
def test_latex_to_pint(text, expected):
    assert latex_unit_to_pint(text) == expected


def test_unknown_units_are_none():
    assert parse_unit(r'\text{undefined}') is None
    assert parse_unit(r'\text{e}') is None  # e is the charge symbol, not a unit here
    assert parse_unit('c') is None  # c alone is a symbol (0.5 c) ...


def test_light_speed_after_an_electronvolt_unit():
    # ... but GeV/c and MeV/c^2 are the particle physicist's momentum and mass units
    assert compare_units(r'\text{ MeV/c}', r'\text{GeV}/c').factor == pytest.approx(1e-3)
    assert compare_units(r'\text{MeV}/c^2', r'\text{GeV/}c^2').factor == pytest.approx(1e-3)
    assert parse_unit(r'\text{GeV}/c').dimensionality != parse_unit(r'\text{GeV}').dimensionality  # c is light speed
    assert score_answer(r'p_\mu = 0.47 \, \text{GeV}/c', r'470\,\text{MeV/c}').strict is True


def test_factors():
    assert compare_units('kN', 'N').factor == pytest.approx(1000)
    assert compare_units(r'\text{G}', r'\text{T}').factor == pytest.approx(1e-4)  # gauss, SI
    assert compare_units('m', 's').reason == 'dimension_mismatch'
    assert compare_units('', 'N').reason == 'missing_unit'
    assert compare_units('N', '').reason == 'extra_unit'


@pytest.mark.parametrize('reference,answer,strict,reason', [
    (r'46300\,\text{N}', r'46.3\,\text{kN}', True, 'unit_converted'),
    (r'46.3\,\text{kN}', '46300 N', True, 'unit_converted'),
    (r'3 \times 10^4 \, \text{N}', r'3\times10^{9}\,\mathrm{dyn}', True, 'unit_converted'),
    (r'46300\,\text{N}', '46300', False, 'missing_unit'),  # lenient only
    (r'46300\,\text{N}', '46.3', False, 'not_equivalent'),
    (r'46300\,\text{N}', r'46.3\,\text{m}', False, 'dimension_mismatch'),
    (r'300\,\text{K}', r'26.85\,^\circ\text{C}', True, 'unit_converted'),
    (r'\sqrt{2gh}', r'\sqrt{2gh}\ \mathrm{m\,s^{-1}}', True, 'equivalent'),
    (r'5.4 \times 10^3 \, \text{s}', r'5400\text{ sec (90 minutes)}', True, 'numeric_match'),  # a note after the unit
])
def test_unit_aware_verdicts(reference, answer, strict, reason):
    verdict = score_answer(reference, answer)
    assert (verdict.strict, verdict.reason) == (strict, reason), verdict


@pytest.mark.parametrize('answer', [r'8.7\,\mu\mathrm{b}', r'8.7\,\mathrm{\mu b}', r'8.7\,\mu b', r'8700\,\mathrm{nb}'])
def test_micro_prefixes(answer):
    assert score_answer(r'8.7\,\mu\mathrm{b}', answer).strict is True


def test_a_missing_unit_is_lenient_only():
    verdict = score_answer(r'0.64\,\text{N}', '0.64')
    assert (verdict.strict, verdict.lenient, verdict.reason) == (False, True, 'missing_unit')


def test_dimensionless_units_against_a_bare_reference():
    assert score_answer('0.6', r'60\%').strict is True
    assert score_answer('30', r'30^\circ').strict is True
    assert score_answer(r'\frac{\pi}{6}', r'30^\circ').strict is True


def test_the_records_own_unit():
    assert score_answer('46300', '46.3 kN', unit='N').reason == 'unit_converted'


@pytest.mark.parametrize('word, is_unit', [
    ('m', True), ('kg', True), ('mA', True), ('mC', True), ('keV', True), ('MeV/c', True), ('m s^{-2}', True),
    ('years', True), ('pc', True), ('kWh', True),
    ('mc', False), ('ab', False), ('kT', False), ('Ts', False), ('am', False),  # symbols to a physicist
])
def test_plain_words_read_as_units_only_as_physicists_write_them(word, is_unit):
    from evalscope_phys.scoring.compare.units import plain_word_is_unit
    assert plain_word_is_unit(word) is is_unit


@pytest.mark.parametrize('answer, reference, factor', [
    ('MeV', 'MeV/c^2', 1.0), ('MeV', 'GeV/c^2', 1e-3), ('MeV/c^2', 'MeV', 1.0), ('MeV', 'MeV/c', 1.0),
    ('MeV/c', 'MeV/c^2', None), ('MeV s', 'MeV/c^2', None), ('kg', 'MeV/c', None),
])
def test_an_energy_against_an_energy_over_light_speed(answer, reference, factor):
    comparison = compare_units(answer, reference)
    if factor is None:
        assert comparison.reason == 'dimension_mismatch'
    else:
        assert comparison.reason == 'unit_converted' and comparison.factor == pytest.approx(factor)


@pytest.mark.parametrize('answer, reference, factor', [
    ('J/(mol K)', 'J/K', 1.0), ('J/(mol K)', 'cal/K', 1 / 4.184), ('J/K', 'J/(mol K)', 1.0), ('J/(mol s)', 'J/K', None),
])
def test_molar_factor(answer, reference, factor):
    from evalscope_phys.scoring.compare.units import molar_factor
    got = molar_factor(answer, reference)
    assert got == (None if factor is None else pytest.approx(factor))


def _plain(registry, name):
    factor, root = registry.get_root_units(name)
    return factor, str(root), str(registry.get_dimensionality(name))


def test_the_registry_converts_every_unit_as_pint_does():
    # our registry skips pint's eager cache and fills it on use: every unit must still have pint's
    # own root units, factor and dimensionality (a wrong factor would be a wrong verdict)
    import pint

    from evalscope_phys.scoring.compare.units import _registry_class

    ours = _registry_class()(on_redefinition='ignore', autoconvert_offset_to_baseunit=True)
    theirs = pint.UnitRegistry(on_redefinition='ignore', autoconvert_offset_to_baseunit=True)
    assert type(ours) is not pint.UnitRegistry  # the lazy path is the one under test
    names = sorted(theirs._units)
    assert len(names) > 500 and set(ours._units) <= set(names)  # pint adds prefixed names as it meets them
    differ = []
    for name in names:
        try:
            expected = _plain(theirs, name)
        except Exception as exc:  # a unit pint itself cannot resolve must fail alike
            expected = type(exc).__name__
        try:
            got = _plain(ours, name)
        except Exception as exc:
            got = type(exc).__name__
        if got != expected:
            differ.append((name, got, expected))
    assert differ == [] and sorted(ours._units) == names
    assert ours.Quantity(46.3, 'kN').to('N').magnitude == theirs.Quantity(46.3, 'kN').to('N').magnitude
