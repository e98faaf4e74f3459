"""Lines of a multi-line (``aligned``) answer that are no answer pieces, or continue the piece before them,
and their negative twins (``aligned_pairing_cases.json``).

Each row is (kind, references (one: a single-answer problem), response, each part's strict verdict,
why, optionally the question); a row whose ``why`` starts with NEGATIVE is a form the reading must not accept: a wrong line, a
hedge, a tautology. To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import kinds_without_negative
from evalscope_phys.scoring import score_answer

CASES = json.loads((Path(__file__).parent / 'aligned_pairing_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_aligned_pairing_case(case):
    references = case['references']
    if len(references) == 1:
        parts = [score_answer(references[0], case['response'], question=case.get('question'))]
    else:
        parts = score_answer(references, case['response'], multiple='ordered', question=case.get('question')).parts
    got = [bool(p.strict) for p in parts]
    assert got == case['strict'], f"{case['why']}: {[(p.reason, p.detail, p.extracted) for p in parts]}"


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES, accepts=lambda c: any(c['strict'])) == []
