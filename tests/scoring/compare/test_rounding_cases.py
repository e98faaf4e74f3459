"""Numbers as physicists round them and write their units, end to end (``rounding_cases.json``).

Each row is (kind, reference, answer, expected strict and lenient, optional reason, why); a row whose
``why`` starts with NEGATIVE is a form the rule must not accept (a value off in its last stated digit,
ten times off, degrees read as radians, symbols read as a unit). To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import kinds_without_negative
from evalscope_phys.scoring import score_answer

CASES = json.loads((Path(__file__).parent / 'rounding_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_rounding_case(case):
    verdict = score_answer(case['reference'], case['answer'], question=case.get('question'))
    context = f"{case['why']}: {case['reference']!r} vs {case['answer']!r} -> {verdict}"
    assert (verdict.strict, verdict.lenient) == (case['strict'], case['lenient']), context
    if 'reason' in case:
        assert verdict.reason == case['reason'], context


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES) == []
