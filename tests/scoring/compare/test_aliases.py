"""The alias table: one spelling per symbol physicists treat as one, and the names it must keep apart."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring.compare.aliases import base_symbol, canonical_symbol, plain_name, with_aliases


@pytest.mark.parametrize('name, canonical', [
    ('k_B', 'k'), ('k_{B}', 'k'), ('k_{\\rm B}', 'k'), ('k_{\\mathrm{B}}', 'k'), ('k', 'k'),
    ('m_{K^-}', 'm_K'), ('m_{\\pi^{0}}', 'm_\\pi'), ('m_{\\Lambda^0}', 'm_\\Lambda'), ('E_{\\text{eff}}', 'E_eff'),
])
def test_canonical_spelling(name, canonical):
    assert canonical_symbol(name) == canonical


@pytest.mark.parametrize('one, other', [('m', '\\mu'), ('M', 'm'), ('k_F', 'k'), ('E', 'E_0'), ('m_{K^*}', 'm_K')])
def test_names_kept_apart(one, other):
    assert canonical_symbol(one) != canonical_symbol(other)


def test_plain_name_drops_upright_wrappers_and_script_braces():
    assert plain_name('E_{\\rm kin}') == 'E_kin'
    assert plain_name('x_{0}') == 'x_0'


@pytest.mark.parametrize('name, base', [('\\theta_2', '\\theta'), ("v'_0", 'v'), ('\\mathbf{E}', 'E'), ('E_n^{Ps}', 'E')])
def test_base_symbol(name, base):
    assert base_symbol(name) == base


def test_aliases_rewrite_only_where_safe():
    assert with_aliases('Nk\\ln 2', 'Nk_B\\ln 2') == ('Nk\\ln 2', 'Nk\\ln 2')
    assert with_aliases('\\hbar k', '\\hbar k_B') is None
    assert with_aliases('m_{\\pi^+} - m_{\\pi^0}', '0') is None
    assert with_aliases('x', 'y') is None
