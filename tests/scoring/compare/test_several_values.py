"""Several values in one part: the answer among definitions, conditions, restated givens, chain links
and named branches, and the forms that must stay rejected (``several_values_cases.json``).

Each row is (kind, reference or list of reference parts, answer, optional question, expected strict
and lenient, optional reason, optional per-part strict verdicts, why); a row whose ``why`` starts with
NEGATIVE is a form no rule may accept. To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import kinds_without_negative
from evalscope_phys.scoring import score_answer

CASES = json.loads((Path(__file__).parent / 'several_values_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_several_values_case(case):
    several = isinstance(case['reference'], list)
    verdict = score_answer(case['reference'], case['answer'], question=case.get('question'),
                           multiple='ordered' if several else None)
    context = f"{case['why']}: {case['reference']!r} vs {case['answer']!r} -> {verdict}"
    assert verdict.strict == case['strict'], context
    assert verdict.lenient == case['lenient'], context
    if 'reason' in case:
        assert verdict.reason == case['reason'], context
    if 'parts' in case:
        assert [p.strict for p in verdict.parts] == case['parts'], context


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES) == []
    assert all(not c['strict'] for c in CASES if c['why'].startswith('NEGATIVE'))
