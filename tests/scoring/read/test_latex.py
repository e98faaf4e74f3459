"""LaTeX normalisation and LaTeX -> SymPy, including the rule for e and the fallback chain."""
from __future__ import annotations

import pytest
import sympy

from evalscope_phys.scoring.read.latex import LatexError, normalize_latex, to_sympy


def sym(name):
    return sympy.Symbol(name, positive=True)


def same(a, b):
    return sympy.simplify(to_sympy(a) - to_sympy(b)) == 0


@pytest.mark.parametrize('a,b', [
    (r'\frac{a}{2}\left(1-x\right)', r'\frac{a}{2}(1-x)'),
    (r'\dfrac{m}{k}', r'\frac{m}{k}'),
    (r'\tfrac{m}{k}', r'\frac{m}{k}'),
    (r'3\times 10^8', r'3\cdot 10^8'),
    (r'2mg', r'2 \cdot m \cdot g'),
    (r'v_0^2', r'v_{0}^{2}'),
    (r'\sqrt[3]{x}', r'x^{1/3}'),
    (r'\ln 2', r'\log 2'),
    (r'\log_{2} 8', r'3'),
    (r'\epsilon_0', r'\varepsilon_0'),
    (r'\frac12', r'\frac{1}{2}'),
    (r'\sin^2\theta + \cos^2\theta', '1'),
    (r'\tan^{-1} x', r'\arctan x'),
    (r'\exp(x)', r'e^{x}'),
    (r'\mathrm{e}^{-t/\tau}', r'e^{-t/\tau}'),
    (r'1.5e-3', r'1.5\times 10^{-3}'),
    (r'\ f r a c { 1 } { 2 }', r'\frac{1}{2}'),
    (r'\rhog', r'\rho g'),
    (r'√2', r'\sqrt{2}'),
])
def test_equal_forms(a, b):
    assert same(a, b)


def test_symbols_keep_their_case_and_subscripts():
    expr = to_sympy(r'\mu R h + r + v_{\text{max}} + \omega_0')
    assert expr.free_symbols == {sym('mu'), sym('R'), sym('h'), sym('r'), sym('v_max'), sym('omega_0')}


def test_the_e_rule():
    assert to_sympy('e') == sym('e')                      # elementary charge
    assert to_sympy('e^2') == sym('e') ** 2               # charge squared
    assert to_sympy(r'\frac{e^3}{m}') == sym('e') ** 3 / sym('m')
    assert to_sympy('e^{x}') == sympy.exp(sym('x'))       # Euler: non-integer exponent
    assert to_sympy('e^{-1}') == sympy.exp(-1)
    assert to_sympy(r'\mathrm{e}') == sympy.E             # upright e is Euler's number
    assert to_sympy('m_e') == sym('m_e')


@pytest.mark.parametrize('text', [r'\hat{r}', r'\hat r', r'\hat{\mathbf{r}}', r'\mathbf{\hat{r}}', r'\mathbf{e}_r',
                                  r'\mathbf{e_r}', r'\vec{e}_r', r'\hat{e}_r', 'e_r'])
def test_unit_vector_notations_are_one_symbol(text):
    expected = to_sympy(r'\hat{r}')
    assert expected.name == 'vec:e_r'  # a vector, not the positive scalar e_r
    assert to_sympy(text) == expected or text == 'e_r'


def test_vector_notations_are_one_vector_symbol():
    assert to_sympy(r'\mathbf v_0') == to_sympy(r'\vec{v_0}') == to_sympy(r'\vec{v}_0') == to_sympy(r'\boldsymbol{v}_{0}')
    assert to_sympy(r'|\vec{E}_0|') == sym('E_0')  # the magnitude of a vector is the scalar
    assert to_sympy(r'\vec{E}') != sym('E')


def test_unit_vectors_only_for_coordinate_directions():
    assert to_sympy(r'\hat{\theta}') == to_sympy(r'\mathbf{e}_{\theta}')
    assert to_sympy(r'\hat{\varphi}') == to_sympy(r'\mathbf{e}_\varphi')
    assert to_sympy(r'\hat{H}') != to_sympy('e_H')  # an operator, not a direction
    assert to_sympy(r'\vec{r}') != to_sympy('e_r')  # the position vector, not its direction


def test_words_inside_a_formula_are_refused_short_names_kept():
    with pytest.raises(LatexError) as info:
        to_sympy(r'2\text{ moves left}')
    assert info.value.unsupported
    assert to_sympy(r'\mathrm{M}') != to_sympy(r'\mathrm{m}')  # short names keep their case
    assert to_sympy(r'\text{Re}') == sym('Re')


def test_gamma_and_I_are_plain_symbols():
    assert to_sympy(r'\gamma - 1') == sym('gamma') - 1
    assert to_sympy(r'\Gamma') == sym('Gamma')
    assert to_sympy('I R') == sym('I') * sym('R')


def test_infinity_and_pi():
    assert to_sympy(r'\infty') == sympy.oo
    assert to_sympy(r'2\pi') == 2 * sympy.pi


def test_degrees_inside_an_expression_are_radians():
    assert sympy.simplify(to_sympy(r'\sin 30^\circ') - sympy.Rational(1, 2)) == 0


def test_normalisation_uses_opaque_symbols():
    assert normalize_latex(r'\left(v_{0}\right)') == r'(\variable{v_0})'


@pytest.mark.parametrize('text,reason', [
    ('', 'empty'),
    (r'\frac{a}{b', 'unbalanced_braces'),
    (r'\frac{mg}{k} \\ \frac{mg}{2k}', 'unknown_control_symbol'),
    (r'\int_0^1 x\,dx', 'unsupported_command'),
    (r'\frac{7}{0}', 'undefined_value'),
    (r'x \pm 1', 'relation_in_value'),
])
def test_unparseable_text_has_a_reason(text, reason):
    with pytest.raises(LatexError) as info:
        to_sympy(text)
    assert info.value.reason == reason


def test_never_calls_sympify_or_parse_expr_on_text(monkeypatch):
    import sympy.parsing.sympy_parser as sp_parser

    def refuse(*args, **kwargs):
        raise AssertionError('text reached a Python-evaluating parser')
    monkeypatch.setattr(sp_parser, 'parse_expr', refuse)
    for text in [r'\frac{a}{2}\left(1-x\right)', r'__import__("os")', r'\sqrt{2gh}', r'e^{i\omega t}']:
        try:
            to_sympy(text)
        except LatexError:
            pass


@pytest.mark.parametrize('text', [r'x \leftarrow y', r'a \leftrightarrow b', r'p \rightleftharpoons q'])
def test_an_arrow_is_not_a_sizing_command_followed_by_letters(text):
    # \left and \right size a delimiter; read as the start of \leftarrow they left a product of a, r, r, o, w
    assert '\\variable{a}\\variable{r}' not in normalize_latex(text).replace(' ', '')
