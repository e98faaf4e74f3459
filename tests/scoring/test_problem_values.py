"""A formula evaluated with the problem's values and known constants (``problem_values``)."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring.definitions import read_question
from evalscope_phys.scoring.latex import to_sympy
from evalscope_phys.scoring.problem_values import value_in
from evalscope_phys.scoring.units import parse_unit


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
