"""Unit vectors are opaque directions (``vector_direction_cases.json``): the same vector in any notation is
equal, another or the opposite direction is not, and a direction stated on one side only goes to the judge."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalscope_phys.scoring import score_answer

CASES = json.loads((Path(__file__).parent / 'vector_direction_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[c['why'][:60] for c in CASES])
@pytest.mark.parametrize('swap', [False, True], ids=['as_given', 'swapped'])
def test_vector_direction_case(case, swap):
    reference, answer = (case['answer'], case['reference']) if swap else (case['reference'], case['answer'])
    verdict = score_answer(reference, answer)
    context = f"{case['why']}: {reference!r} vs {answer!r} -> {verdict}"
    assert verdict.strict == case['strict'], context
    assert verdict.reason == case['reason'], context
    if case['reason'] == 'undecided':
        assert not verdict.lenient, context
