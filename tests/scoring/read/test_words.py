"""Words in answers: one text detector (reading, locating and routing) and word answers compared as words."""
import json
import os

import pytest

from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.read.words import is_connective, is_prose, word_relation

TABLE = json.load(open(os.path.join(os.path.dirname(__file__), 'word_answers.json'), encoding='utf-8'))


@pytest.mark.parametrize('case', TABLE['detector'], ids=lambda c: c['text'][:40])
def test_text_is_told_from_formulas(case):
    assert is_prose(case['text']) is case['prose'], case['why']


@pytest.mark.parametrize('case', TABLE['pairs'], ids=lambda c: f"{c['reference']}|{c['answer']}"[:50])
def test_word_answers_are_compared_as_words(case):
    verdict = score_answer(case['reference'], case['answer'], eed=False)
    assert (verdict.strict, verdict.reason) == (case['strict'], case['reason']), case['why']


def test_the_table_has_both_sides():
    assert {c['prose'] for c in TABLE['detector']} == {True, False}
    accepted = [c for c in TABLE['pairs'] if c['strict']]
    assert len(accepted) >= 10 and len(TABLE['pairs']) - len(accepted) >= 10


@pytest.mark.parametrize('reference,answer,relation', [
    ('north', 'thorn', 'not_equivalent'), ('increases', 'increasing', 'undecided'),
    ('same', 'unchanged', 'undecided'), ('left', 'left or right', 'hedged'), ('a b', 'a b', 'equivalent'),
    ('the cart rolls down the hill', 'the cart rolls up the hill', 'not_equivalent'),
    ('the cart rolls down', 'it moves downward along the slope', 'undecided'),
])
def test_word_relation(reference, answer, relation):
    assert word_relation(reference, answer) == relation


def test_detector_is_linear_on_hostile_input():
    assert is_prose('_{' * 50_000) is False
    assert is_prose('\\begin{' * 50_000 + 'words words') is False


@pytest.mark.parametrize('text, joins', [
    (r'\text{and}', True), (r'\text{ hence}', True), (r'\text{so we get:}', True), ('i.e.', True),
    (r'\text{or}', False), (r'\text{and } x', False), ('x', False), (r'\text{constant}', False), ('', False),
])
def test_connective_lines(text, joins):
    assert is_connective(text) is joins
