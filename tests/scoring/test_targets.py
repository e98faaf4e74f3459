"""The issue's targets on the shared dev material (skipped where ../shared/data is absent).

Runs ``scripts/bench_scoring.py`` in-process: the PHYBench dev pairs (equivalent rewrites, agreement
with the official EED where it is a fair reference), the Yale o3-mini verdicts and the peers' cases.
Speed is the benchmark script's to report (ratios measured in one run), not a timed test's.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.integration


def _bench():
    spec = importlib.util.spec_from_file_location('bench_scoring', ROOT / 'scripts' / 'bench_scoring.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope='module')
def dev_figures(shared_data):
    from evalscope_phys.scoring.engine import clear_cache
    clear_cache()
    return _bench().bench_pairs(str(shared_data / 'eed' / 'eed_dev_pairs.jsonl'), cpu=False)


@pytest.fixture(scope='module')
def yale_figures(shared_data):
    directory = shared_data / 'physics_yale' / 'outputs' / 'o3-mini_together_output'
    if not directory.is_dir():
        pytest.skip('Yale outputs not in shared data')
    return _bench().bench_yale(str(directory))


def test_equivalent_rewrites_score_100_and_strict(dev_figures):
    assert dev_figures['equivalent_share'] >= 0.97


def test_agreement_with_the_official_score_where_it_is_fair(dev_figures):
    assert dev_figures['fair_agreement'] >= 0.90


def test_no_pair_runs_into_the_deadline(dev_figures):
    assert dev_figures['over_5s'] == 0 and dev_figures['unscored'] <= 5


def test_yale_formula_pairs(yale_figures):
    # floors under the measured 67.5% / 2.2% (docs/scoring.md; 75.2% / 2.8% before relations compared their
    # left-hand sides: a right answer naming the quantity otherwise now waits for the judge). The remaining
    # rejections they accept are renamed symbols and prose-free approximations; every acceptance they
    # reject states their value with \approx or a rounded figure
    assert yale_figures['formula_accept_of_accepted'] >= 0.66
    assert yale_figures['formula_accept_of_rejected'] <= 0.03


def test_peer_cases_and_near_misses(shared_data):
    figures = _bench().bench_peer(str(shared_data / 'peer' / 'math_verify_cases.jsonl'),
                                  str(shared_data / 'peer' / 'near_miss_examples.jsonl'))
    assert figures['headline_agreement'] >= 0.90
    assert figures['near_miss_wrong_accepts'] == 0
