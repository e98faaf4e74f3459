"""SEED (CMPhysBench's score) on the engine's answer model.

``cmphysbench_seed_cases.json`` is the table: (answer type, reference, answer, SEED, why). Its partial scores are
the EED arithmetic of the definition (a relabelled symbol is distance 1; a bracket is one node), so
each row is true whatever the engine's future readings of harder forms.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalscope_phys.scoring import score_answer
from evalscope_phys.scoring.cmphysbench_seed import NUMERIC_BANDS, SEED_TYPES, seed_score, seed_type

ROWS = json.loads((Path(__file__).parent / 'cmphysbench_seed_cases.json').read_text(encoding='utf-8'))


@pytest.mark.parametrize('row', ROWS, ids=[f"{r['type']}-{i}" for i, r in enumerate(ROWS)])
def test_seed_table(row):
    result = seed_score(row['reference'], row['answer'], row['type'])
    assert result.scored, result
    assert result.score == pytest.approx(row['seed'], abs=1e-6), f"{row['why']}: {result}"


def test_a_wrong_expression_gets_the_engines_eed_as_partial_credit():
    reference, answer = r'2 m g + 4\frac{m v_0^2}{l}', r'\boxed{2 m g + 2\frac{m v_0^2}{l}}'
    result = seed_score(reference, answer, 'Expression')
    assert 0 < result.score < 60
    assert result.score == pytest.approx(score_answer(reference, answer).eed)


def test_a_wrong_equation_gets_the_edit_distance_of_its_difference_form():
    result = seed_score('x + y = 1', r'\boxed{x + 2 y = 1}', 'Equation')
    assert 0 < result.score < 60 and result.reason == 'not_equivalent'


@pytest.mark.parametrize('answer, paper, release', [
    ('100.8', 90, 100),   # 0.8%: second band of the paper, first of the release
    ('101.5', 80, 90),
    ('103', 0, 80),       # 3%: only the release's widest band
])
def test_the_release_bands_are_twice_as_wide(answer, paper, release):
    assert seed_score('100', answer, 'Numeric').score == paper
    assert seed_score('100', answer, 'Numeric', bands='release').score == release


def test_band_edges_are_relative_to_the_reference():
    # SEED divides by the reference: 99.5 and 100.5 are both exactly 0.5% off, on the band's edge
    assert seed_score('100', '99.5', 'Numeric').score == 100
    assert seed_score('100', '100.5', 'Numeric').score == 100
    assert seed_score('200', '201.02', 'Numeric').score == 90  # 0.51%: just outside the first band


def test_a_numeric_answer_with_symbols_is_scored_as_an_expression():
    result = seed_score('3.0', r'\boxed{3 k_B}', 'Numeric')
    assert result.scored and result.score < 100


@pytest.mark.parametrize('raw, canonical', [('numeric', 'Numeric'), (' Tuple ', 'Tuple'), ('Matrix', None), (None, None)])
def test_answer_type_names(raw, canonical):
    assert seed_type(raw) == canonical


@pytest.mark.parametrize('reference, response, answer_type, reason', [
    (None, '2', 'Numeric', 'unparseable_reference'),
    ('', '2', 'Numeric', 'unparseable_reference'),
    (r'\frac{', 'x', 'Expression', 'unparseable_reference'),
    ('x' * 60_000, 'x', 'Expression', 'input_too_large'),
    ('x', 'x', 'Vector', 'error'),
])
def test_what_cannot_be_scored_is_unscored_with_a_reason(reference, response, answer_type, reason):
    result = seed_score(reference, response, answer_type)
    assert result.reason == reason and result.score is None and not result.scored


def test_unknown_bands_are_an_error_not_a_score():
    result = seed_score('1', '1', 'Numeric', bands='loose')
    assert result.reason == 'error' and result.score is None


@pytest.mark.parametrize('response', ['', None, 'words only, no formula in sight, just a long sentence here'])
def test_no_answer_scores_zero(response):
    result = seed_score('x', response, 'Expression')
    assert result.score == 0 and result.scored


def test_an_oversized_response_is_the_models_failure():
    result = seed_score('x', 'x' * 1_100_000, 'Expression')
    assert result.score == 0 and result.reason == 'answer_too_large'


def test_the_deadline_makes_a_slow_answer_unscored_and_the_pool_recovers():
    reference = '+'.join('%dx^{%d}' % (k % 7 + 2, k) for k in range(1, 200))
    answer = '+'.join('%dy^{%d}' % (k % 5 + 2, k) for k in range(1, 200))
    result = seed_score(reference, answer, 'Expression', timeout=0.5)
    assert result.reason == 'timeout' and result.score is None
    assert seed_score('x', 'x', 'Expression').score == 100


def test_every_type_and_band_set_is_documented():
    assert set(SEED_TYPES) == {'Expression', 'Equation', 'Tuple', 'Interval', 'Numeric'}
    assert [credit for _, credit in NUMERIC_BANDS['paper']] == [100.0, 90.0, 80.0]
    assert [limit for limit, _ in NUMERIC_BANDS['paper']] == [0.005, 0.01, 0.02]
