"""Specification of the input limits checked before SymPy sees an answer."""
from __future__ import annotations

import json

import pytest
import sympy as sp

from evalscope_phys.scoring.run import limits
from evalscope_phys.scoring.run.limits import check_expr_limits, check_text_limits


# --- input checks -------------------------------------------------------------------------------

# (LaTeX, expected reason or None, why)
TEXT_CASES = [
    (r'2 m g + 4\frac{m v_0^2}{l}', None, 'an ordinary answer'),
    (r'e^{-\frac{m v^2}{2 k T}}', None, 'symbolic exponents are fine'),
    (r'2.5 \times 10^{87}', None, 'large but ordinary magnitude'),
    (r'6.63\times10^{-34}', None, 'negative exponent'),
    (r'e^{371}', None, 'the largest exponent in real answers'),
    (r'x^{10^{3}}', None, 'a numeric tower that stays small (1000)'),
    (r'\frac{15!}{10!}', None, 'small factorials'),
    ('n!', None, 'symbolic factorial'),
    ('a\x00b', 'nul_byte', 'NUL bytes never belong in LaTeX'),
    ('x' * 10_001, 'too_long', 'over MAX_TEXT_CHARS'),
    ('(' * 31 + 'x' + ')' * 31, 'too_deep', 'over MAX_NESTING'),
    (r'\frac{1}{' * 31 + 'x' + '}' * 31, 'too_deep', 'nested fractions count braces'),
    ('1' * 101, 'number_too_long', 'over MAX_NUMBER_DIGITS'),
    ('2^{99999999}', 'exponent_too_large', 'a 30-million-digit integer'),
    ('2^99999', 'exponent_too_large', 'unbraced digit runs are read whole, to be safe'),
    ('10^{10^{10}}', 'exponent_too_large', 'a power tower'),
    ('2^{2^{2^{2^{2}}}}', 'exponent_too_large', '2^65536 at the top'),
    (r'2^{2\cdot 10^{9}}', 'exponent_too_large', 'products inside exponents'),
    (r'x^{\frac{10^{10}}{3}}', 'exponent_too_large', 'fractions inside exponents'),
    ('1001!', 'factorial_too_large', 'over MAX_FACTORIAL'),
    ('(10^{6})!', 'factorial_too_large', 'factorial of a group'),
]


@pytest.mark.parametrize('text, reason, why', TEXT_CASES, ids=[c[2] for c in TEXT_CASES])
def test_check_text_limits(text, reason, why):
    assert check_text_limits(text) == reason, why


def test_check_text_limits_rejects_non_text():
    assert check_text_limits(b'x') == 'not_text'  # type: ignore[arg-type]


x = sp.Symbol('x')
# (expression, expected reason or None, why) -- built unevaluated, as the parser hands them over.
EXPR_CASES = [
    (x ** 2 + 1, None, 'ordinary'),
    (sp.Pow(10, -34, evaluate=False) * x, None, 'negative exponent'),
    (sp.Pow(2, sp.Pow(10, 10, evaluate=False), evaluate=False), 'exponent_too_large', 'power tower'),
    (sp.Pow(x, 20000, evaluate=False), 'exponent_too_large', 'a huge literal exponent'),
    (sp.Integer(10) ** 150, 'number_too_large', 'a 151-digit literal'),
    (sp.factorial(sp.Integer(10 ** 6), evaluate=False), 'factorial_too_large', 'a million factorial'),
    (sp.Add(*[x ** i for i in range(7000)], evaluate=False), 'too_many_nodes', 'over MAX_EXPR_NODES'),
]


@pytest.mark.parametrize('expr, reason, why', EXPR_CASES, ids=[c[2] for c in EXPR_CASES])
def test_check_expr_limits(expr, reason, why):
    assert check_expr_limits(expr) == reason, why


def test_check_expr_limits_rejects_deep_expressions():
    expr = x
    for _ in range(limits.MAX_EXPR_DEPTH + 1):
        expr = sp.sin(expr, evaluate=False)
    assert check_expr_limits(expr) == 'too_deep'


@pytest.mark.integration
def test_no_real_reference_answer_trips_a_text_limit(shared_data):
    dev_pairs = [json.loads(line) for line in open(shared_data / 'eed' / 'eed_dev_pairs.jsonl', encoding='utf-8')]
    references = [row['gt'] for row in dev_pairs if row['kind'] != 'deeply_nested']  # 200 '(' on purpose
    references += [row['answer'] for row in
                   json.loads((shared_data / 'phybench' / 'PHYBench-fullques_v1.json').read_text('utf-8'))]
    olympiad = json.loads((shared_data / 'olympiadbench' / 'English_Olympiad_Physics.json').read_text('utf-8'))
    references += [answer for row in olympiad for answer in (row.get('final_answer') or [])]
    assert len(references) > 1000
    tripped = [(ref[:60], check_text_limits(ref)) for ref in references if check_text_limits(ref)]
    assert tripped == []
