"""Stage 1 as a broadcast join: matching pool blocks against the eval index gives the local engine's hits,
bit for bit, however the pool is split."""
from __future__ import annotations

import numpy as np
import pytest

from evalscope_phys.audit.corpus import load_corpus
from evalscope_phys.audit.ngram import JaccardHits, NgramConfig, jaccard_candidates
from evalscope_phys.audit.ngram_join import build_eval_index, match_block, merge_block_hits

from .test_ngram import _mutated_corpus


def _identical(a: JaccardHits, b: JaccardHits) -> bool:
    return (np.array_equal(a.eval_index, b.eval_index) and np.array_equal(a.pool_index, b.pool_index)
            and a.jaccard.tobytes() == b.jaccard.tobytes())


def _blocked(eval_texts, pool, config, block):
    index = build_eval_index(eval_texts, config)
    return merge_block_hits([match_block(index, pool[s:s + block], s) for s in range(0, len(pool), block)])


def _blocked_in_pool(texts, config, chunk, block):
    parts = []
    for cs in range(0, len(texts), chunk):
        index = build_eval_index(texts[cs:cs + chunk], config)
        parts.append(merge_block_hits([match_block(index, texts[s:s + block], s, eval_offset=cs)
                                       for s in range(0, len(texts), block)], eval_offset=cs))
    ie, ip = np.concatenate([p.eval_index for p in parts]), np.concatenate([p.pool_index for p in parts])
    jac = np.concatenate([p.jaccard for p in parts])
    order = np.lexsort((ip, ie))
    return JaccardHits(ie[order], ip[order], jac[order], 0)


@pytest.mark.parametrize('seed', range(3))
@pytest.mark.parametrize('n, threshold', [(5, 0.4), (3, 0.5), (2, 0.25), (5, 1.0), (1, 0.4)])
@pytest.mark.parametrize('block', [1, 7, 1000])
def test_blocks_give_the_local_hits_bit_for_bit(seed: int, n: int, threshold: float, block: int) -> None:
    evals, pool = _mutated_corpus(seed)
    config = NgramConfig(n, threshold)
    local = jaccard_candidates(evals, pool, config)
    assert len(local) > 0
    assert _identical(_blocked(evals, pool, config, block), local)


@pytest.mark.parametrize('chunk, block', [(30, 11), (1000, 1000), (1, 5)])
def test_in_pool_chunks_give_the_local_pairs(chunk: int, block: int) -> None:
    evals, pool = _mutated_corpus(5)
    texts = pool + evals
    local = jaccard_candidates([], texts, in_pool=True)
    assert len(local) > 0
    assert _identical(_blocked_in_pool(texts, NgramConfig(), chunk, block), local)


def test_words_outside_the_eval_side_and_short_texts() -> None:
    evals = ['e = m c^2', '', 'alpha beta gamma delta epsilon zeta', 'f = m a']
    pool = ['E=m c^{2}', 'zeta omega alpha beta gamma delta epsilon zeta', '', 'F = ma', 'brand new words only here']
    for config in (NgramConfig(), NgramConfig(2, 0.3)):
        assert _identical(_blocked(evals, pool, config, 2), jaccard_candidates(evals, pool, config))


def test_empty_sides() -> None:
    assert len(_blocked([], ['a b c d e f'], NgramConfig(), 1)) == 0
    assert len(_blocked(['', ''], ['a b c d e f', ''], NgramConfig(), 1)) == 0
    assert len(merge_block_hits([])) == 0


@pytest.mark.integration
def test_real_pair_in_blocks_equals_local(shared_data) -> None:
    pool = load_corpus(shared_data / 'phopile' / 'train.json')
    ev = load_corpus(shared_data / 'olympiadbench' / 'English_Olympiad_Physics.json')
    local = jaccard_candidates(ev.texts, pool.texts)
    assert len(local) == 307
    assert _identical(_blocked(ev.texts, pool.texts, NgramConfig(), 500), local)
