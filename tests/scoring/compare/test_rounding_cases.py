"""Numbers as physicists round them and write their units, end to end (``rounding_cases.json``).

Each row is (kind, reference, answer, expected strict and lenient, optional reason, why); a row whose
``why`` starts with NEGATIVE is a form the rule must not accept (a value off in its last stated digit,
ten times off, degrees read as radians, symbols read as a unit). To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import check_golden_case, kinds_without_negative

CASES = json.loads((Path(__file__).parent / 'rounding_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_rounding_case(case):
    check_golden_case(case)


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES) == []
