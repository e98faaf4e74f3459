"""Stage-2 neighbours: exact scores and a certified top-k that do not depend on how the pool is split."""
from __future__ import annotations

import numpy as np
import pytest

from evalscope_phys.audit.embedding import HashedWordsEmbedder, make_embedder, normalise_rows
from evalscope_phys.audit.neighbours import (SEARCH_MARGIN, Shortlist, error_bound, exact_dot, max_norm,
                                             nearest_neighbours, shortlist)


def _vectors(seed: int, n: int, dim: int = 16) -> np.ndarray:
    return normalise_rows(np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32))


def _brute(ev: np.ndarray, pool: np.ndarray, k: int, exclude_self: bool = False):
    """The definition: exact scores of all pairs, best first, ties to the lower pool row."""
    scores = np.array([[exact_dot(ev[i:i + 1], pool[j:j + 1])[0] for j in range(len(pool))] for i in range(len(ev))])
    if exclude_self:
        np.fill_diagonal(scores, -np.inf)
    order = np.lexsort((np.broadcast_to(np.arange(len(pool)), scores.shape), -scores), axis=1)[:, :k]
    return order, np.take_along_axis(scores, order, 1)


def _with_copies():
    ev, pool = _vectors(0, 40), _vectors(1, 300)
    pool[100:130] = pool[5]  # 31 identical pool rows: more near-ties than the shortlist margin
    ev[3] = pool[5]
    return ev, pool


def test_exact_dot_does_not_depend_on_the_batch() -> None:
    a, b = _vectors(2, 50, 384), _vectors(3, 50, 384)
    whole = exact_dot(a, b)
    assert all(exact_dot(a[i:i + 1], b[i:i + 1])[0] == whole[i] for i in range(50))
    assert np.allclose(whole, np.sum(a.astype(np.float64) * b, axis=1), rtol=0, atol=1e-12)


@pytest.mark.parametrize('block_elements', [1024, 5000, 1 << 25])
@pytest.mark.parametrize('k', [1, 3, 7])
def test_nearest_neighbours_is_the_definition(block_elements: int, k: int) -> None:
    ev, pool = _with_copies()
    got = nearest_neighbours(ev, pool, k, block_elements)
    want_idx, want_score = _brute(ev, pool, k)
    np.testing.assert_array_equal(got.index, want_idx)
    assert got.score.tobytes() == want_score.tobytes()
    assert list(got.index[3, :3]) == [5, 100, 101][:min(k, 3)]  # equal copies: lower rows first


def test_in_pool_excludes_each_row_itself() -> None:
    _, pool = _with_copies()
    got = nearest_neighbours(pool, pool, 3, 2048, exclude_self=True)
    want_idx, want_score = _brute(pool, pool, 3, exclude_self=True)
    np.testing.assert_array_equal(got.index, want_idx)
    assert got.score.tobytes() == want_score.tobytes()


@pytest.mark.parametrize('block', [1, 13, 77, 300])
def test_merged_block_shortlists_select_the_same_neighbours(block: int) -> None:
    ev, pool = _with_copies()
    k, width = 3, 3 + SEARCH_MARGIN
    merged = Shortlist.empty(len(ev), width)
    for s in range(0, len(pool), block):
        merged = merged.merge(shortlist(ev, pool[s:s + block], width, pool_offset=s))
    top, certified = merged.select(k, error_bound(16, max_norm(ev), max_norm(pool)))
    want_idx, want_score = _brute(ev, pool, k)
    assert not certified[3] and certified.sum() >= len(ev) - 2  # row 3 has 31 tied neighbours: searched again
    np.testing.assert_array_equal(top.index[certified], want_idx[certified])
    assert top.score[certified].tobytes() == want_score[certified].tobytes()


def test_small_pools_pad_and_are_certified() -> None:
    ev, pool = _vectors(4, 5), _vectors(5, 2)
    got = nearest_neighbours(ev, pool, top_k=4)
    assert (got.index[:, 2:] == -1).all() and np.isneginf(got.score[:, 2:]).all()
    empty = nearest_neighbours(ev, pool[:0], top_k=2)
    assert (empty.index == -1).all()


def test_hashed_words_vectors_depend_on_the_text_alone() -> None:
    emb = make_embedder('hashed-words-64')
    assert isinstance(emb, HashedWordsEmbedder) and emb.model_id == 'hashed-words-64'
    texts = ['A sled of mass $m$ glides', 'a sled of mass M glides down', '', 'unrelated words here']
    together = emb.embed(texts)
    assert all(emb.embed([t])[0].tobytes() == together[i].tobytes() for i, t in enumerate(texts))
    assert together[0] @ together[1] > 0.6 and not together[2].any()
    assert make_embedder('hashed-words').model_id == 'hashed-words-384'
