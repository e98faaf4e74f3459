"""Right answers the rules used to reject, and their negative twins (``recovered_cases.json``).

Each row is (kind, reference, answer, optional question, expected strict and lenient, optional reason,
why); a row whose ``why`` starts with NEGATIVE is a form the new reading must not accept. The question,
when a row has one, is the problem's text (its definitions and values). To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import check_golden_case, kinds_without_negative

CASES = json.loads((Path(__file__).parent / 'recovered_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_recovered_case(case):
    check_golden_case(case)


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES) == []
