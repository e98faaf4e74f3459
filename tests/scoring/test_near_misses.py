"""The strict verdict as a promise: our own near misses are never accepted, and the right forms are.

``near_misses.json`` is a table a physicist can read and extend without the code: each row is
(class, reference, answer, the strict verdict a physicist gives, why). Classes are the ways a strict
scorer goes wrong: a relation's kind or direction, ``\\pm`` read as one branch, a hedged answer,
derivatives written as fractions, cross products, expectation values, function values read as
products, unknown units, functions equal only on a small range, undefined values, ordered objects,
definitions and equations, and the notations models write. Every class has at least five negative
rows; to add a case, add a row.
"""
from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from evalscope_phys.scoring import score_answer

ROWS = json.loads((Path(__file__).parent / 'near_misses.json').read_text(encoding='utf-8'))
NEGATIVE = [r for r in ROWS if not r['strict']]
POSITIVE = [r for r in ROWS if r['strict']]


@pytest.mark.parametrize('row', NEGATIVE, ids=[f"{r['class']}-{i}" for i, r in enumerate(NEGATIVE)])
def test_a_wrong_form_is_never_strictly_accepted(row):
    verdict = score_answer(row['reference'], row['answer'], eed=False)
    assert verdict.strict is not True, f"{row['why']}: {row['reference']!r} vs {row['answer']!r} -> {verdict}"


@pytest.mark.parametrize('row', POSITIVE, ids=[f"{r['class']}-{i}" for i, r in enumerate(POSITIVE)])
def test_a_right_form_is_accepted(row):
    verdict = score_answer(row['reference'], row['answer'], eed=False)
    assert verdict.strict is True, f"{row['why']}: {row['reference']!r} vs {row['answer']!r} -> {verdict}"


def test_every_class_of_mistake_has_five_negative_cases():
    counts = collections.Counter(r['class'] for r in NEGATIVE)
    for cls in ('relation', 'pm', 'hedge', 'derivative', 'cross', 'expectation', 'function_value', 'unit',
                'domain', 'undefined', 'tuple', 'definition'):
        assert counts[cls] >= 5, cls
