"""A word answer to an option-letter reference, read as the option it names (``option_named_cases.json``).

Each row is (kind, reference, answer, optional question, expected strict and lenient, reason, why). The
question lists lettered options (``(a) ... (b) ... (c) ...``); the answer names one by its label, by its
words equal to one option's text (case, spacing, dashes, final punctuation and ``\\text{}`` aside), or by
both when they agree (:func:`evalscope_phys.scoring.compare.choices.named_option`). A row whose ``why``
starts with NEGATIVE is a form the rule must not accept: another option, a label with another option's
words, a paraphrase, words two options share, a true/false list, no options. To add a case, add a row.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import check_golden_case, kinds_without_negative

CASES = json.loads((Path(__file__).parent / 'option_named_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('case', CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_option_named_case(case):
    check_golden_case(case)


def test_every_kind_has_a_negative_case():
    assert kinds_without_negative(CASES) == []
