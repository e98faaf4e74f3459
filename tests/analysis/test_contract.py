"""The judge's reply contract: what a valid reply is, what is refused (and why), and the prompt it gets."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalscope_phys.analysis.contract import (CLASSES, NO_REFERENCE_SOLUTION, ContractError, Judgement,
                                              correction, load_prompt, normalise_label, parse_judgement,
                                              quote_in_step, render_prompt)

STEPS = 3
VALID = [
    # (reply, expected judgement)
    ('{"step": 2, "quote": "v = 3", "class": "PP", "reason": "Wrong model."}', Judgement('PP', 2, 'v = 3', 'Wrong model.')),
    ('Thinking...\n```json\n{"step": "3", "quote": "x", "class": "rr_symbolic", "reason": "  Sign\n slip. "}\n```',
     Judgement('RR-symbolic', 3, 'x', 'Sign slip.')),
    ('{"step": "[1]", "quote": "F = ma", "class": "RR semantic", "reason": "Missing friction."}',
     Judgement('RR-semantic', 1, 'F = ma', 'Missing friction.')),
    ('{"step": null, "quote": "", "class": "none", "reason": "Right; mis-scored."}', Judgement('none', None, '', 'Right; mis-scored.')),
    ('{"step": 0, "class": "None", "reason": "Equal to the reference."}', Judgement('none', None, '', 'Equal to the reference.')),
    ('{"class": "unclear", "reason": "Cut off."}', Judgement('unclear', None, '', 'Cut off.')),
    ('{"step": 2, "quote": "q", "class": "unclear", "reason": "Garbled from here."}', Judgement('unclear', 2, 'q', 'Garbled from here.')),
    ('{"step": 2.0, "quote": "$\\\\frac{a}{b}$", "class": "PP", "reason": "r"}', Judgement('PP', 2, '$\\frac{a}{b}$', 'r')),
    # the same judgement twice (a judge that repeats itself) is still one judgement
    ('{"step": 1, "quote": "a", "class": "PP", "reason": "r"} so: {"step": 1, "quote": "a", "class": "PP", "reason": "r"}',
     Judgement('PP', 1, 'a', 'r')),
]
INVALID = [
    # (reply, words the refusal must contain)
    ('The first error is in step 2, a PP error.', 'no JSON object'),
    ('', 'no JSON object'),
    ('{"label": "PP", "reason": "r"}', 'no JSON object'),
    ('{"step": 1, "quote": "a", "class": "RR", "reason": "r"}', "'RR', not one of"),
    ('{"step": 1, "quote": "a", "class": "PP"}', '"reason"'),
    ('{"step": 1, "quote": "a", "class": "PP", "reason": "  "}', '"reason"'),
    ('{"step": 4, "quote": "a", "class": "PP", "reason": "r"}', 'between 1 and 3'),
    ('{"step": null, "quote": "a", "class": "RR-symbolic", "reason": "r"}', 'needs "step"'),
    ('{"step": 1, "quote": "", "class": "PP", "reason": "r"}', 'needs "quote"'),
    ('{"step": true, "quote": "a", "class": "PP", "reason": "r"}', 'not true/false'),
    ('{"step": "two", "quote": "a", "class": "PP", "reason": "r"}', 'step number'),
    ('{"step": 2, "quote": "a", "class": "none", "reason": "r"}', 'class none'),
    ('{"step": 9, "class": "unclear", "reason": "r"}', 'between 1 and 3'),
    ('{"step": 1, "quote": "a", "class": "PP", "reason": "r"} {"step": 2, "quote": "b", "class": "PP", "reason": "r"}',
     'disagree'),
]


@pytest.mark.parametrize('reply, judgement', VALID)
def test_valid_replies(reply: str, judgement: Judgement) -> None:
    assert parse_judgement(reply, STEPS) == judgement


@pytest.mark.parametrize('reply, why', INVALID)
def test_invalid_replies_are_refused_with_a_reason(reply: str, why: str) -> None:
    with pytest.raises(ContractError, match=None) as exc:
        parse_judgement(reply, STEPS)
    assert why in str(exc.value)


@pytest.mark.parametrize('stated, why', [('c0123456789', None), (' c0123456789 ', None), (None, 'names no case'),
                                         ('', 'names no case'), ('c9999999999', 'another case')])
def test_a_reply_must_name_the_case_it_was_asked(stated, why) -> None:
    reply = {'step': None, 'quote': '', 'class': 'none', 'reason': 'r'}
    if stated is not None:
        reply['case'] = stated
    if why is None:
        assert parse_judgement(json.dumps(reply), STEPS, 'c0123456789').label == 'none'
    else:
        with pytest.raises(ContractError, match=why):
            parse_judgement(json.dumps(reply), STEPS, 'c0123456789')


def test_labels_normalise_only_to_the_five_classes() -> None:
    assert [normalise_label(c.upper()) for c in CLASSES] == list(CLASSES)
    assert normalise_label('RR\u2013semantic') == 'RR-semantic'
    assert [normalise_label(x) for x in ('RR', 'P P', 'symbolic', 3, None, 'unparseable', 'error')] == [None] * 7


def test_the_correction_tells_the_judge_what_was_wrong() -> None:
    text = correction('no JSON object with a "class" key')
    assert 'no JSON object with a "class" key' in text and '"RR-semantic"' in text


def test_prompt_carries_every_input_and_leaves_latex_braces_alone() -> None:
    template = load_prompt()
    prompt = render_prompt(template, problem='Find $\\frac{a}{b}$ {steps}', reference_solution='Use $F = ma$.',
                           reference_answer='$$x = {1}$$', steps=['First.', 'Second $\\{y\\}$.'],
                           scorer_note='it read `3`.')
    assert 'Find $\\frac{a}{b}$ {steps}' in prompt  # a placeholder inside a text is not substituted
    assert 'Use $F = ma$.' in prompt and '$$x = {1}$$' in prompt and 'it read `3`.' in prompt
    assert '[1] First.\n[2] Second $\\{y\\}$.' in prompt
    assert not any(p in prompt.replace('{steps}$', '') for p in ('{problem}', '{reference_solution}', '{scorer_note}'))
    bare = render_prompt(template, problem='P', reference_solution='  ', reference_answer='A', steps=[], scorer_note='n')
    assert NO_REFERENCE_SOLUTION in bare and '(the model gave no solution)' in bare


def test_a_custom_prompt_must_keep_every_placeholder(tmp_path: Path) -> None:
    path = tmp_path / 'p.txt'
    path.write_text('{problem} {steps}', encoding='utf-8')
    with pytest.raises(ValueError, match='reference_solution'):
        load_prompt(path)


@pytest.mark.parametrize('quote, step, found', [
    ('the stored energy is $C V_0^2$', 1, True),
    ('THE STORED ENERGY IS C V_0^2', 1, True),       # case, spacing and $ ignored
    ('All the stored ... is $C V_0^2$', 1, True),     # a shortened quote
    ('the stored energy is $\\frac12 C V_0^2$', 1, False),
    ('boxed', 1, False),                               # in another step, not in the cited one
    ('', 1, None),
    ('x', None, None),
])
def test_quote_in_step(quote: str, step, found) -> None:
    steps = ['All the stored energy turns into heat, and the stored energy is $C V_0^2$.', '\\boxed{C V_0^2}']
    assert quote_in_step(quote, steps, step) is found
