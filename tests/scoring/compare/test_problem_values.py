"""A formula evaluated with the problem's values and known constants (``problem_values``)."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring.read.definitions import read_question
from evalscope_phys.scoring.read.latex import to_sympy
from evalscope_phys.scoring.compare.problem_values import value_in
from evalscope_phys.scoring.compare.units import parse_unit


def test_a_photon_energy_from_the_wavelength_the_question_gives():
    givens = read_question(r'Light of wavelength $\lambda = 4133$ Å.')
    value, why = value_in(to_sympy(r'\frac{hc}{\lambda}'), givens, parse_unit('eV'))
    assert why == '' and value == pytest.approx(3.0, rel=1e-3)


def test_a_symbol_without_a_value_and_a_value_of_other_dimensions():
    givens = read_question(r'Light of wavelength $\lambda = 4133$ Å.')
    assert value_in(to_sympy(r'\frac{hc}{m}'), givens, parse_unit('eV')) == (None, 'no value in the problem for m')
    value, why = value_in(to_sympy('hc'), givens, parse_unit('eV'))
    assert value is None and 'dimensions' in why


def test_h_is_planck_only_when_the_question_never_writes_h():
    givens = read_question(r'A ball falls from a height $h$; light of wavelength $\lambda = 4133$ Å.')
    assert value_in(to_sympy(r'\frac{hc}{\lambda}'), givens, parse_unit('eV'))[0] is None
    assert value_in(to_sympy(r'\frac{2\pi\hbar c}{\lambda}'), givens, parse_unit('eV'))[0] == pytest.approx(3.0, rel=1e-3)


def test_functions_need_dimensionless_arguments():
    givens = read_question(r'A mass $m = 2$ kg and a time $t = 3$ s.')
    value, why = value_in(to_sympy(r'\sin(m)'), givens, None)
    assert value is None and 'dimensional' in why


RING = (r'A ring-shaped molecule is modelled as a circle of radius $r = 3 \text{Å}$ on which 10 electrons '
        r'move freely. (a) Give the one-particle eigenfunctions. (c) Find the lowest '
        r'excitation energy.')


@pytest.mark.parametrize('question, electron', [
    (RING, True),
    (RING.replace('10 electrons', '10 protons'), False),  # another particle
    (RING.replace('10 electrons', '10 electrons of mass $m$'), False),  # the question writes m itself
    (RING.replace('10 electrons', '10 beads'), False),  # no electron named
    (RING.replace('one-particle', 'a particle'), False),  # "a particle" may be anything
    (RING + ' An electron and a ball of mass 2 kg.', False),  # a mass named
])
def test_a_bare_m_is_the_electron_mass_only_when_the_question_is_about_electrons_alone(question, electron):
    value, why = value_in(to_sympy(r'\frac{5\hbar^2}{2mr^2}'), read_question(question), parse_unit('eV'))
    if electron:
        assert why == '' and value == pytest.approx(2.12, rel=3e-3)
    else:
        assert value is None and 'no value in the problem for m' in why


@pytest.mark.parametrize('answer, strict, lenient', [
    (r'\Delta E \approx 2.12\,\text{eV}', True, True),
    (r'\Delta E \approx 2.12~eV', True, True),  # a tie before the unit
    (r'\Delta E \approx 2.13\,\text{eV}', False, True),  # NEGATIVE: off in the last stated digit
    (r'\Delta E \approx 21.2\,\text{eV}', False, False),  # NEGATIVE: ten times off
])
def test_a_number_against_a_formula_with_the_electron_mass(answer, strict, lenient):
    from evalscope_phys.scoring import score_answer
    verdict = score_answer(r'\Delta E = \frac{5 \hbar^2}{2mr^2}', answer, question=RING)
    assert (verdict.strict, verdict.lenient) == (strict, lenient), verdict
