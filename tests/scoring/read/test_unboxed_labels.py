"""Unboxed responses that end in labelled parts (``unboxed_labels_cases.json``): each label's final formula
answers that label's part, through the adapters' multi-part path, with one expected strict verdict per part.

A row whose ``why`` starts with NEGATIVE holds a part that must not be accepted (prose-only label, a step
followed by another stated result, swapped labels, a hedge). To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import kinds_without_negative
from evalscope_phys.benchmarks.multipart import score_parts
from evalscope_phys.scoring.read.labelled_tail import labelled_tail

CASES = json.loads((Path(__file__).parent / 'unboxed_labels_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_unboxed_labels(case):
    parts = score_parts(case['reference'], case['answer']).parts
    got = [p.strict for p in parts]
    assert got == case['strict'], f"{case['why']}: {case['answer']!r} -> {got} {[p.reason for p in parts]}"


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES, lambda c: any(c['strict']) and not c['why'].startswith('NEGATIVE')) == []


def test_a_box_or_one_label_is_no_labelled_tail():
    assert labelled_tail('(a) $x = 1$') is None
    assert labelled_tail('(b) $x = 1$\n(a) $y = 2$') is None
    assert labelled_tail('We know $f(a) = 1$ and $g(b) = 2$.') is None


def test_labels_inside_math_are_not_parts():
    assert labelled_tail('$$f(a) = 1, \\quad f(b) = 2$$') is None
