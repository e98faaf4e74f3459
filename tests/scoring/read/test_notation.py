"""The one "identical text" rule: layout and fraction spelling never make two answers differ; content does."""
import pytest

from evalscope_phys.scoring.read.notation import compact, same_text

SAME = [
    (r'\frac{1}{2} m v^2', r'\dfrac{1}{2}mv^2'),
    (r'\left( a+b \right)', '(a+b)'),
    (r'\left[ x \right]', '[x]'),
    (r'\displaystyle \tfrac{q}{4\pi\varepsilon_0 r}', r'\frac{q}{4\pi\varepsilon_0r}'),
    (r'x\,\mathrm{m}', r'x\;\mathrm{m}'),
    (r'$\boxed{E = m c^2}$', 'E=mc^2'),
]
DIFFERENT = [  # a letter, an order or an exponent is content: never "identical text"
    (r'\frac{1}{2}', r'\frac{2}{1}'),
    ('mv^2', 'mv^3'),
    (r'\frac{a}{b}', r'\frac{A}{b}'),
    (r'\dfrac{x}{y}', r'\frac{x}{yz}'),
    ('a-b', 'b-a'),
    (r'\frac{1}{2}', r'\dfracs{1}{2}'),  # only the fraction commands fold
    (r'x \leftarrow y', 'x arrow y'),  # \left folds as sizing only, not as the start of \leftarrow
    (r'a \rightleftharpoons b', 'a leftharpoons b'),
    (r'x \displaystyles', 'xs'),
]


@pytest.mark.parametrize('reference, answer', SAME)
def test_layout_and_fraction_spelling_are_the_same_text(reference, answer):
    assert same_text(reference, answer)


@pytest.mark.parametrize('reference, answer', DIFFERENT)
def test_content_differences_are_not(reference, answer):
    assert not same_text(reference, answer)


def test_compact_keeps_commands_that_only_start_like_a_fraction():
    assert compact(r'\dfracs') == r'\dfracs' and compact(r'\dfrac 1 2') == r'\frac12'
