"""Stage 1: the indexed Jaccard join returns exactly the pairs a brute-force comparison returns."""
from __future__ import annotations

import random
import time

import pytest

from evalscope_phys.audit.corpus import load_corpus
from evalscope_phys.audit.ngram import (NgramConfig, brute_force_hits, gram_sets, jaccard, jaccard_candidates,
                                        pair_jaccard)

from .conftest import FIXTURES, real_data

WORDS = ('mass spring block incline charge field lens orbit photon electron gas heat work energy '
         'momentum torque wave frequency pressure volume current voltage resistor magnet').split()


def _mutated_corpus(seed: int, n_base: int = 40, copies: int = 60) -> tuple[list[str], list[str]]:
    """Random texts plus copies with a few words changed, so Jaccard values spread around 0.4."""
    rng = random.Random(seed)
    base = [' '.join(rng.choice(WORDS) for _ in range(rng.randint(1, 30))) for _ in range(n_base)]
    pool = list(base)
    evals = []
    for _ in range(copies):
        words = rng.choice(base).split()
        for _ in range(rng.randint(0, 6)):
            if words:
                words[rng.randrange(len(words))] = rng.choice(WORDS)
        evals.append(' '.join(words))
    evals.append('')
    return evals, pool


@pytest.mark.parametrize('seed', range(4))
@pytest.mark.parametrize('n, threshold', [(5, 0.4), (3, 0.5), (2, 0.25), (5, 1.0), (1, 0.4)])
def test_hits_equal_brute_force_on_random_near_copies(seed: int, n: int, threshold: float) -> None:
    evals, pool = _mutated_corpus(seed)
    hits = jaccard_candidates(evals, pool, NgramConfig(n, threshold))
    expected = brute_force_hits(gram_sets(evals, n), gram_sets(pool, n), threshold)
    assert hits.as_set() == expected
    assert len(expected) > 0  # the case is not vacuous
    for i, j, jac in zip(hits.eval_index, hits.pool_index, hits.jaccard):
        assert jac == pytest.approx(jaccard(gram_sets([evals[i]], n)[0], gram_sets([pool[j]], n)[0]))


def test_threshold_on_float_boundary_is_kept() -> None:
    # y's 7 grams are a subset of x's 25: Jaccard is exactly 0.28, and 0.28 * 25 = 7.000000000000001
    # in floats. A prefix filter that rounds that up to 8 would miss the pair.
    assert 0.28 * 25 > 7
    x = ' '.join(f'w{i}' for i in range(29))
    y = ' '.join(f'w{i}' for i in range(11))
    assert jaccard(*gram_sets([x, y], 5)) == 0.28
    hits = jaccard_candidates([y, x], [x, y], NgramConfig(5, 0.28))
    assert hits.as_set() == {(0, 0), (0, 1), (1, 0), (1, 1)}


def test_fixture_pair_finds_the_respaced_copy_only() -> None:
    pool = load_corpus(FIXTURES / 'pool.jsonl')
    ev = load_corpus(FIXTURES / 'eval.json')
    hits = jaccard_candidates(ev.texts, pool.texts)
    found = {(ev.items[i].id, pool.items[j].id) for i, j in hits.as_set()}
    # eval 1 is pool's incline problem with other LaTeX spacing and case; eval 6 drops a clause.
    assert found == {('1', 'p-block-incline'), ('1', 'p-block-incline-copy'), ('6', 'p-gas')}
    # eval 2 is a paraphrase of p-magnet: no 5-gram overlap, which is why stage 2 exists.
    assert pair_jaccard(ev.texts, pool.texts, [(1, 4)], 5) == [0.0]


def test_in_pool_reports_each_unordered_pair_once() -> None:
    pool = load_corpus(FIXTURES / 'pool.jsonl')
    hits = jaccard_candidates([], pool.texts, in_pool=True)
    assert hits.as_set() == {(0, 7)}
    evals, texts = _mutated_corpus(7)
    texts = texts + evals
    sets = gram_sets(texts, 5)
    assert jaccard_candidates([], texts, in_pool=True).as_set() == brute_force_hits(sets, sets, 0.4, in_pool=True)


def test_short_and_empty_texts() -> None:
    hits = jaccard_candidates(['e = m c^2', '', 'f = m a'], ['E=m c^{2}', 'F = ma', ''])
    assert hits.as_set() == {(0, 0)}  # shorter than 5 words: the whole text is one gram


def test_config_validation() -> None:
    with pytest.raises(ValueError):
        NgramConfig(0, 0.4)
    with pytest.raises(ValueError):
        NgramConfig(5, 0.0)


@pytest.mark.integration
def test_real_phopile_vs_olympiadbench_equals_brute_force() -> None:
    pool_path, eval_path = real_data()
    pool, ev = load_corpus(pool_path), load_corpus(eval_path)
    t0 = time.perf_counter()
    hits = jaccard_candidates(ev.texts, pool.texts)
    indexed = time.perf_counter() - t0
    expected = brute_force_hits(gram_sets(ev.texts, 5), gram_sets(pool.texts, 5), 0.4)
    assert hits.as_set() == expected
    eval_items = len(set(hits.eval_index.tolist()))
    print(f'\nPhoPile x OlympiadBench physics: {len(hits)} stage-1 hits on {eval_items} eval items '
          f'({hits.candidates} candidates verified, {indexed:.2f}s)')
    assert len(hits) > 100  # SOURCES.md: many OlympiadBench physics problems overlap PhoPile
