"""Physics-R1's "strict" (a boxed answer equal to or containing the gold, after their normalisation)."""
import pytest

from evalscope_phys.benchmarks.substring_strict import boxed_contents, normalise, substring_strict

# (response, gold, expected, why) -- worked through the rules in the module docstring
GOLDEN = [
    ('so \\boxed{5 m}', '5 m', True, 'equal after dropping whitespace'),
    ('\\boxed{15 m}', '5 m', True, 'the gold is a substring: a wrong answer passes'),
    ('\\boxed{46.3 kN}', '46300 N', False, 'no unit conversion: a right answer fails'),
    ('\\boxed{12\\,\\mathrm{J}}', '12 J', False, '\\mathrm is not unwrapped: 12\\mathrm{j} does not contain 12j'),
    ('\\boxed{12\\,\\text{J}}', '12 J', True, '\\text{} is unwrapped, \\, dropped'),
    ('$x = \\boxed{3}$, then \\boxed{4 \\text{ s}}', '4 s', True, 'any box may match'),
    ('\\boxed{A$B$}', 'ab', True, 'dollars dropped, lower-cased'),
    ('\\boxed{\\frac{1}{2}}', '\\frac{1}{2}', True, 'braces nest inside a box'),
    ('the answer is 5 m', '5 m', False, 'no box, no match'),
    ('\\boxed {5 m}', '5 m', False, 'only the exact "\\boxed{" opens a box'),
    ('\\boxed{5 m', '5 m', False, 'an unclosed box is not read'),
    ('\\boxed{3} and \\boxed{5 m', '3', True, 'boxes before an unclosed one are kept'),
    ('\\boxed{5 m}', '', False, 'an empty gold is wrong'),
    ('\\boxed{}', '$ $', True, 'a gold that normalises to nothing equals an empty box'),
    ('\\boxed{3} \\boxed{5 m}', ['3', '5 m'], True, 'a list gold (our schema): every part matched'),
    ('\\boxed{3}', ['3', '5 m'], False, 'a list gold with a part unmatched'),
]


@pytest.mark.parametrize('response, gold, expected, why', GOLDEN, ids=[g[-1] for g in GOLDEN])
def test_substring_strict_golden_cases(response, gold, expected, why):
    assert substring_strict(response, gold) is expected


def test_boxes_in_order_a_box_inside_a_box_stays_inside():
    assert boxed_contents('\\boxed{ a \\boxed{b} } x \\boxed{c}') == ['a \\boxed{b}', 'c']


def test_normalisation_steps():
    assert normalise(' \\text{Ab} $x$ \\, \\! \\; Y ') == 'abxy'
    assert normalise('\\text{\\text{a}}') == '\\text{a}'  # one pass; braces inside \\text{} end it


def test_long_replies_stay_fast():
    reply = '{' * 50_000 + '\\boxed{' + 'x' * 50_000 + '}' * 50_001
    assert substring_strict(reply, 'xx') is True
