"""What the rules decide of what they used to leave undecided (``undecided_cases.json``): bars on one
side only (``|x|`` for a coordinate ``x``), a relation whose left side is the same opaque value (a
derivative), two relation chains of one shape member by member, a derivative operator on one
operand (``\\frac{d}{dt}(x+y)``), derivatives of different expressions kept apart; each accept path
with cases it must not accept."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import kinds_without_negative
from evalscope_phys.scoring import score_answer

CASES = json.loads((Path(__file__).parent / 'undecided_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_undecided_case(case):
    verdict = score_answer(case['reference'], case['answer'])
    context = f"{case['why']}: {case['reference']!r} vs {case['answer']!r} -> {verdict}"
    assert verdict.strict == case['strict'], context
    assert verdict.lenient == case['lenient'], context
    assert verdict.reason == case['reason'], context


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES) == []
