"""Index ranges (``n = 0, 1, 2, \\ldots``) read as one condition, end to end (``index_range_cases.json``).

Each row is (kind, reference -- one part or a list of parts --, answer, expected strict and lenient,
optional reason, why): the same range in other words, a range as a set or in brackets, a range in one
part of several, a range one side leaves out, another index letter, and the one undecided item of a
part beside an extra one. A row whose ``why`` starts with NEGATIVE is a form that must not be accepted.
To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import check_golden_case, kinds_without_negative
from evalscope_phys.scoring.read.index_range import range_set, read_range

CASES = json.loads((Path(__file__).parent / 'index_range_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_index_range_case(case):
    check_golden_case(case)


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES) == []


def test_one_set_one_spelling():
    assert range_set([(False, 1), (False, 2)]) == range_set([(False, 1), (False, 2), (False, 3)])
    assert range_set([(False, 0), (True, 1)]) == range_set([(False, 0), (True, 1), (True, 2)])
    assert range_set([(False, 0), (False, 1)]) != range_set([(False, 1), (False, 2)])
    assert range_set([(True, 1), (False, 0)]) is None  # 0 after the signed members: not read


def test_not_a_range():
    for text in (r'x = 1, 2, 3', r'n = 1, 2, \ldots, N', r'(a, b)', r'n \in \mathbb{N}', r'n = a, b, \ldots'):
        assert read_range(text) is None, text
