"""Golden cases: one or more per ``kind`` of the PHYBench dev pairs, readable without the code.

Each row of ``golden_cases.json`` is (kind, reference, answer, expected strict/lenient/reason,
expected EED: 100, 0, a [low, high] band or null, why). To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalscope_phys.scoring import score_answer

CASES = json.loads((Path(__file__).parent / 'golden_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_golden_case(case):
    verdict = score_answer(case['reference'], case['answer'])
    context = f"{case['why']}: {case['reference']!r} vs {case['answer']!r} -> {verdict}"
    assert verdict.strict == case['strict'], context
    assert verdict.lenient == case['lenient'], context
    assert verdict.reason == case['reason'], context
    expected = case['eed']
    if isinstance(expected, list):
        low, high = expected
        assert verdict.eed is not None and low <= verdict.eed <= high, context
    else:
        assert verdict.eed == expected, context


def test_the_table_covers_every_dev_kind(shared_data):
    kinds = {json.loads(line)['kind'] for line in (shared_data / 'eed' / 'eed_dev_pairs.jsonl').open()}
    assert kinds <= {c['kind'] for c in CASES}


def test_readme_example_scores_about_47():
    """The PHYBench README's EED example (a peer case: GaoZhitao121/phybench README.md, see ../shared/data/SOURCES.md)."""
    verdict = score_answer(r'2 m g + 4\frac{mv_0^2}{l}', r'2 m g+2\frac{mv_0^2}{l}')
    assert verdict.eed == pytest.approx(47, abs=1)
    assert score_answer(r'2 m g + 4\frac{mv_0^2}{l}', r'2 m g + 4\frac{mv_0^2}{l}').eed == 100
