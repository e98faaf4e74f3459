"""A solution becomes numbered steps: sentences and lines, never cutting math."""
from __future__ import annotations

import pytest

from evalscope_phys.analysis.steps import MAX_SOLUTION_CHARS, MAX_STEPS, numbered, solution_steps

CASES = [
    # (solution, steps)
    ('Energy: $E = m g h$. Friction does work $\\mu m g d$. So $d = h/\\mu$.\n\n\\boxed{\\frac{h}{\\mu}}',
     ['Energy: $E = m g h$.', 'Friction does work $\\mu m g d$.', 'So $d = h/\\mu$.', '\\boxed{\\frac{h}{\\mu}}']),
    # a full stop inside inline math, display math over several lines, \begin..\end
    ('Take $x = 1. Then$ nothing. We get\n\\[\na = b.\nC = d\n\\]\nDone.',
     ['Take $x = 1. Then$ nothing.', 'We get', '\\[\na = b.\nC = d\n\\]', 'Done.']),
    ('Sum:\n\\begin{align}\nF &= ma. \\\\\nA &= 2\n\\end{align}\nEnd.',
     ['Sum: \\begin{align}\nF &= ma. \\\\\nA &= 2\n\\end{align}', 'End.']),
    ('$$E = mc^2. X$$ Then more.', ['$$E = mc^2. X$$ Then more.']),
    # list markers, abbreviations and lower-case continuations do not end a step
    ('1. First we note e.g. Newton. 2. Then see Eq. 3 here.', ['1. First we note e.g. Newton.', '2. Then see Eq. 3 here.']),
    ('It is 3.5 m. and so on', ['It is 3.5 m. and so on']),
    # clauses after ';' followed by math are steps
    ('$I = 2$ so \\boxed{2}; $U = 3$ so \\boxed{3}; done', ['$I = 2$ so \\boxed{2};', '$U = 3$ so \\boxed{3}; done']),
    # an unbalanced $ (a truncated reply) is closed by the next blank line
    ('We have $\\frac{1}{v} = \\frac{u - f}{\n\nNext paragraph. Another one.',
     ['We have $\\frac{1}{v} = \\frac{u - f}{', 'Next paragraph.', 'Another one.']),
    # rules, bullets and blank lines are not steps; CRLF is a line break
    ('Step 1\r\n---\r\n- \r\nA is B.', ['Step 1', 'A is B.']),
    ('', []),
    ('   \n\n  ', []),
]


@pytest.mark.parametrize('solution, steps', CASES)
def test_solution_steps_golden(solution: str, steps: list) -> None:
    assert solution_steps(solution) == steps


def test_numbered_is_what_the_judge_quotes_from() -> None:
    assert numbered(['A.', 'B.']) == '[1] A.\n[2] B.'


def test_a_runaway_reply_is_bounded_and_nothing_past_the_cap_is_dropped_silently() -> None:
    steps = solution_steps('\n'.join(f'Line {i}.' for i in range(MAX_STEPS + 50)))
    assert len(steps) == MAX_STEPS
    assert steps[-1].startswith(f'Line {MAX_STEPS - 1}.') and steps[-1].endswith(f'Line {MAX_STEPS + 49}.')
    huge = solution_steps('x' * (MAX_SOLUTION_CHARS * 4))
    assert sum(map(len, huge)) == MAX_SOLUTION_CHARS


def test_hostile_input_is_linear_time() -> None:
    # many unclosed openers and markers: one scan, no backtracking
    text = ('$ \\[ \\begin{x} . A ' * 20_000)[:MAX_SOLUTION_CHARS]
    assert solution_steps(text)  # returns (a hang here would time the test suite out)
