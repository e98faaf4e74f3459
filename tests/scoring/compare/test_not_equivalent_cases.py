"""Right answers once read as ``not_equivalent``, end to end (``not_equivalent_cases.json``).

Each row is (kind, reference, answer, optional question, expected strict and lenient, optional reason,
why): a ratio with a zero term, a two-term ratio stated as one number, an equation with both sides
inverted or multiplied out, an alias on a relation's sides, the electron's mass written ``m_e``, a
reference symbol the question spells in the other case, a Lorentz factor ``\\gamma`` beside ``\\beta``.
A row whose ``why`` starts with NEGATIVE is a form the rule must not accept. To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import check_golden_case, kinds_without_negative

CASES = json.loads((Path(__file__).parent / 'not_equivalent_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_not_equivalent_case(case):
    check_golden_case(case)


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES) == []
