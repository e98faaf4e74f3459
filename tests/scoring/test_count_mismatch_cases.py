"""Multi-part responses whose parts were several values or no answer by a reading or pairing defect, and
their negative twins (``count_mismatch_cases.json``).

Each row is (kind, references (one: a single-answer problem), response, each part's strict verdict,
why); a row whose ``why`` starts with NEGATIVE is a form the new reading must not accept. To add a
case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import kinds_without_negative
from evalscope_phys.scoring import score_answer

CASES = json.loads((Path(__file__).parent / 'count_mismatch_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_count_mismatch_case(case):
    references = case['references']
    if len(references) == 1:
        verdict = score_answer(references[0], case['response'])
        got = [bool(verdict.strict)]
        parts = [verdict]
    else:
        verdict = score_answer(references, case['response'], multiple='ordered', labels=case.get('labels', ()))
        got = [bool(p.strict) for p in verdict.parts]
        parts = verdict.parts
    assert got == case['strict'], f"{case['why']}: {[(p.reason, p.detail) for p in parts]}"


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES, accepts=lambda c: any(c['strict'])) == []
