"""LaTeX read as written (``written_forms_cases.json``): layout that carries no meaning is read through,
and the negative twins that differ in meaning stay rejected or routed.

A ``pair`` row is (reference, answer) through :func:`score_answer`; a ``parts`` row is (references, the
model's response) through the adapters' multi-part path, with one expected strict verdict per part. A row
whose ``why`` starts with NEGATIVE is a form the reading must not accept. To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalscope_phys.benchmarks.multipart import score_parts
from conftest import kinds_without_negative
from evalscope_phys.scoring import score_answer

CASES = json.loads((Path(__file__).parent / 'written_forms_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_written_form(case):
    if isinstance(case['reference'], list):
        parts = score_parts(case['reference'], case['answer']).parts
        got = [p.strict for p in parts]
        reasons = [p.reason for p in parts]
    else:
        verdict = score_answer(case['reference'], case['answer'])
        got, reasons = verdict.strict, verdict.reason
    context = f"{case['why']}: {case['reference']!r} vs {case['answer']!r} -> {got} {reasons}"
    assert got == case['strict'], context
    if 'reason' in case:
        assert reasons == case['reason'], context


def test_every_kind_has_a_negative_case():
    def accepts(c):
        return any(c['strict']) if isinstance(c['strict'], list) else c['strict']
    assert kinds_without_negative(CASES, lambda c: accepts(c) and not c['why'].startswith('NEGATIVE')) == []
