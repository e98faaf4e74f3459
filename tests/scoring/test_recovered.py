"""Right answers the rules used to reject, and their negative twins (``recovered_cases.json``).

Each row is (kind, reference, answer, optional question, expected strict and lenient, optional reason,
why); a row whose ``why`` starts with NEGATIVE is a form the new reading must not accept. The question,
when a row has one, is the problem's text (its definitions and values). To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import kinds_without_negative
from evalscope_phys.scoring import score_answer

CASES = json.loads((Path(__file__).parent / 'recovered_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_recovered_case(case):
    verdict = score_answer(case['reference'], case['answer'], question=case.get('question'))
    context = f"{case['why']}: {case['reference']!r} vs {case['answer']!r} -> {verdict}"
    assert verdict.strict == case['strict'], context
    assert verdict.lenient == case['lenient'], context
    if 'reason' in case:
        assert verdict.reason == case['reason'], context


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES) == []
