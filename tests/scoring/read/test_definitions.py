"""What a question defines and gives, and what an answer defines for its own notation (``definitions``)."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring.read.definitions import answer_definitions, read_question


def test_a_definition_introduced_as_one_is_read():
    givens = read_question(r'Find $k_F$ in terms of the density $\rho \equiv Nq/V$.')
    assert ('rho', 'Nq/V') in givens.definitions
    assert givens.question and not givens.conflicting


@pytest.mark.parametrize('question', [
    r'Compare the field with the field at $r = 2R$.',      # a point, not a definition
    r'Find the field for $x = a + b$.',                     # a condition
    r'If $V = \frac{q}{r}$, find the field.',               # a supposition
    r'Sketch $V = \frac{q}{r}$ against $r$.',                # no defining words before it
])
def test_conditions_are_no_definitions(question):
    assert read_question(question).definitions == ()


def test_where_and_let_introduce_definitions():
    assert ('E', r'\frac{Q}{r^2}') in read_question(r'Show that $F = qE$, where $E = \frac{Q}{r^2}$.').definitions
    assert ('mu', 'GM') in read_question(r'Let $\mu = GM$.').definitions


def test_a_symbol_defined_twice_is_conflicting_and_never_used():
    givens = read_question(r'Let $\rho = Nq/V$. In part (b) let $\rho = N/V$.')
    assert givens.definitions == () and givens.conflicting == {'rho'}


def test_numbers_with_units_inside_or_after_the_formula():
    givens = read_question(r'A radius $r = 4 \text{Å}$, a height $d = 300$ meters and $n = 1.33$.')
    values = {name: (number, unit) for name, number, unit in givens.values}
    assert values['r'][0] == '4' and 'AA' in values['r'][1]
    assert values['d'] == ('300', 'meters')
    assert values['n'] == ('1.33', '')


def test_zero_is_a_condition_and_an_english_word_no_unit():
    givens = read_question(r'At $t = 0$ it starts; $m = 2$ in the box.')
    assert [v[0] for v in givens.values] == ['m'] and givens.values[0][2] == ''


def test_two_values_for_one_symbol_conflict():
    assert read_question(r'From $n = 3$ to $n = 2$.').conflicting == {'n'}


def test_mentions_reads_each_side_of_a_relation():
    givens = read_question(r'At $t = 0$ the speed is $v = v_0\sin(\omega t)$.')
    assert givens.mentions('t') and givens.mentions('omega') and not givens.mentions('h')


def test_answer_definitions_after_where_and_with():
    own, twice = answer_definitions(r'v = \sqrt{\frac{\mu}{R}},\ \text{where } \mu = GM')
    assert ('mu', 'GM') in own and not twice
    own, _ = answer_definitions(r'E = \hbar\omega \text{ with } \omega = 2\pi f')
    assert ('omega', r'2\pi f') in own


def test_answer_definitions_twice_and_measurements():
    own, twice = answer_definitions(r'v = \sqrt{\mu/R},\ \mu = GM,\ \mu = 2GM')
    assert twice == {'mu'} and all(name != 'mu' for name, _ in own)
    own, _ = answer_definitions(r'F = ma,\ m = 2\,\text{kg}')
    assert all(name != 'm' for name, _ in own)  # a value with a unit is a measurement, not notation
