"""Hostile inputs: nothing executes, nothing hangs, nothing raises, nothing scores as correct.

Every input is scored both as the answer (against a normal reference) and as the reference
(against a normal answer). Strings that would run code if anything evaluated them try to create a
sentinel file; the test proves it never appears.
"""
from __future__ import annotations

import os
import time

import pytest

from evalscope_phys.scoring import Verdict, score_answer

REFERENCE = r'\frac{mg}{k}'
DEADLINE = 2.0
SLACK = 4.0  # pool start-up and a worker restart on a loaded CI machine


def hostile_inputs(sentinel: str):
    touch = f"__import__('os').system('touch {sentinel}')"
    inputs = [
        # code injection, in every costume
        touch, f'\\boxed{{{touch}}}', f'$${touch}$$', f'x = {touch}', f'\\text{{{touch}}}',
        f"eval(\"{touch}\")", f"exec('import os; os.system(\"touch {sentinel}\")')",
        f"(lambda: {touch})()", "[c for c in ().__class__.__base__.__subclasses__()]",
        f"__builtins__.open('{sentinel}', 'w')", f"open('{sentinel}','w').write('x')",
        f"\\variable{{{touch}}}", r"\variable{__import__}('os')", f"\\mathrm{{{touch}}}",
        f"\\operatorname{{{touch}}}", f"\\input{{{sentinel}}}", f"\\include{{{sentinel}}}",
        f"\\write18{{touch {sentinel}}}", f"\\immediate\\write18{{touch {sentinel}}}",
        f"import os; os.system('touch {sentinel}')", f"os.system('touch {sentinel}')",
        "Symbol('x').__class__.__init__.__globals__", f"sympify(\"{touch}\")",
        f"parse_expr(\"{touch}\")", f"${{{touch}}}", "{{7*7}}", "${7*7}", "%s%s%s%n",
        r"\def\x{\x}\x", r"\newcommand{\a}{\a}\a", r"\catcode`\^=12",
        f"{touch} + 1", f"1 + {touch}", f"\\frac{{{touch}}}{{2}}",
        # malformed LaTeX
        r"\frac{a}{", r"\frac{a}", r"\frac", r"\sqrt", r"\sqrt[", r"\sqrt[3", "}}}}{{{{", "{{{{",
        r"\left(", r"\right)", r"\left(\right.", r"\begin{matrix}", r"\end{matrix}",
        r"\begin{pmatrix} a & b \\ c", r"a_{", r"a^{", r"a^", r"a_", "^^^^", "____", r"\\\\\\",
        "$$$$", "$", r"\boxed{", r"\boxed", r"\[", r"\]", "= = =", "=", r"\approx", r"\le\le\le",
        r"\frac{}{}", r"\sqrt{}", "()", "[]", "||||", r"\|", r"\,\,\,", r"\text{", r"\mathrm{",
        r"\unknowncommand{x}", r"\\frac{1}{2}", r"\%\%\%", "∫∑∏", "\u202e\u202d", "\ufeffx",
        "x\x01\x02\x03", "\x1b[31mred\x1b[0m", "\r\n\r\n", "\t\t\t", "a\u0000b", "\u0000",
        # size and nesting
        'x' * 10_000, '1' * 10_000, '+'.join(['x'] * 3000), r'\frac{1}{' * 500 + '1' + '}' * 500,
        '(' * 5000 + 'x' + ')' * 5000, '{' * 3000 + 'x' + '}' * 3000, r'\sqrt{' * 400 + 'x' + '}' * 400,
        'x^{' * 300 + '2' + '}' * 300, r'\sin(' * 300 + 'x' + ')' * 300, 'a_{' * 200 + 'b' + '}' * 200,
        r'\left(' * 1000 + 'x' + r'\right)' * 1000, '-' * 5000 + '1', r'\sin' * 2000 + ' x',
        r'\text{(a) ' * 4000, r'\text{' + 'a' * 20_000 + ' ', r'(a)\ x, (b)\ y \\ ' * 2000,
        r'\text{(a) 1; (b) 2' * 2000,  # unit candidates, prose lead-ins and part labels stay linear
        # numbers that explode
        r'10^{10^{10}}', r'2^{2^{2^{2^{2^{2}}}}}', r'9^{9^{9^{9}}}', r'10^{999999999}', r'2^{99999999}',
        r'1000000!', r'(10^{10})!', r'\sqrt[10^{10}]{2}', r'e^{e^{e^{e^{10}}}}', r'10^{-10^{10}}',
        r'\exp(10^{10})', r'1' + '0' * 5000, '9' * 400 + '.' + '9' * 400, r'1e999999',
        r'(x+y)^{100000}', r'(a+b+c+d)^{500}', r'\prod_{i=1}^{10^{9}} i', r'\sum_{n=1}^{\infty} n',
        r'x^{10^{6}} - x^{10^{6}}', r'\frac{1}{0}', r'0^{-1}', r'\infty - \infty', r'\ln 0',
        r'\frac{0}{0}', r'\tan\frac{\pi}{2}', r'\log_{1} 5', r'0^0', r'(-1)^{\frac{1}{3}}',
        r'\int_0^\infty e^{-x^2}\,dx', r'\lim_{x\to 0}\frac{\sin x}{x}',
    ]
    return inputs


def _check(verdict, elapsed):
    assert isinstance(verdict, Verdict)
    assert elapsed < DEADLINE + SLACK
    assert verdict.reason
    if not verdict.scored:
        assert verdict.eed is None and verdict.strict is None and verdict.lenient is None


def test_there_are_at_least_100_hostile_inputs(tmp_path):
    assert len(hostile_inputs(str(tmp_path / 'x'))) >= 100


def test_hostile_answers_and_references(tmp_path):
    sentinel = str(tmp_path / 'pwned')
    for text in hostile_inputs(sentinel):
        started = time.perf_counter()
        as_answer = score_answer(REFERENCE, text, timeout=DEADLINE)
        _check(as_answer, time.perf_counter() - started)
        assert as_answer.strict is not True, (text[:80], as_answer)
        started = time.perf_counter()
        as_reference = score_answer(text, r'\frac{mg}{k}', timeout=DEADLINE)
        _check(as_reference, time.perf_counter() - started)
        assert not os.path.exists(sentinel), f'{text[:80]!r} executed code'
    assert not os.path.exists(sentinel)


HUGE = {
    'long': r'\boxed{' + 'x' * 10_001 + '}',
    'deep': '(' * 100 + 'x' + ')' * 100,
    'tower': r'10^{10^{10}}',
    'nested_powers': 'x^{' * 50 + '2' + '}' * 50,
    'huge_binomial': r'\binom{10^{9}}{5\cdot 10^{8}}',
    'huge_factorial': r'(10^{6})!',
    'huge_exponential': r'e^{100000}',
    'nested_cosh': r'\cosh(' * 5 + '100' + ')' * 5,
    'nested_exp': r'\exp(' * 5 + '10' + ')' * 5,
}


@pytest.mark.parametrize('text', HUGE.values(), ids=HUGE.keys())
def test_oversized_answers_are_the_models_failure_and_oversized_references_unscored(text):
    as_answer = score_answer(REFERENCE, text)
    assert (as_answer.reason, as_answer.strict, as_answer.scored) == ('answer_too_large', False, True), as_answer
    as_reference = score_answer(text, REFERENCE)
    assert not as_reference.scored and as_reference.strict is None, as_reference


def test_a_nul_byte_is_unreadable():
    verdict = score_answer(REFERENCE, 'a\x00b')
    assert (verdict.reason, verdict.strict) == ('unparseable_answer', False)


def test_long_prose_without_a_formula_has_no_answer():
    verdict = score_answer(REFERENCE, 'I think about it. ' * 3000)
    assert verdict.reason == 'no_answer' and verdict.scored and verdict.strict is False


def test_a_huge_response_with_a_small_final_answer_is_fine():
    response = 'Long reasoning. ' * 2000 + r'\boxed{\frac{mg}{k}}'
    assert score_answer(REFERENCE, response).strict is True


@pytest.mark.parametrize('bad', [None, 42, b'bytes'])
def test_non_string_answers(bad):
    verdict = score_answer(REFERENCE, bad)
    assert isinstance(verdict, Verdict) and verdict.strict is not True


def test_a_hostile_left_side_is_not_parsed_as_an_equation():
    left = '(' * 200 + 'x' + ')' * 200
    verdict = score_answer('x^2+y^2=1', f'{left} = 1', timeout=DEADLINE)
    assert verdict.strict is not True


# Values that stay small must not be refused by the size guards (negative cases of the rules above).
SMALL_BUT_NEAR_THE_GUARDS = [
    (r'\binom{10^{9}}{2}', '499999999500000000', 'a huge top with a small bottom is an ordinary number'),
    ('5!', '120', 'a small factorial'),
    (r'e^{-371}', r'\exp(-371)', 'the largest exponent in real answers'),
    (r'\cosh(\cosh(1))', r'\cosh(\cosh(1))', 'nesting alone is not size'),
]


@pytest.mark.parametrize('answer, reference, why', SMALL_BUT_NEAR_THE_GUARDS,
                         ids=[c[2] for c in SMALL_BUT_NEAR_THE_GUARDS])
def test_values_near_the_size_guards_are_still_compared(answer, reference, why):
    verdict = score_answer(reference, answer)
    assert (verdict.strict, verdict.reason) == (True, 'equivalent'), (why, verdict)
