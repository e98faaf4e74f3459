"""Stage-2 search: blocked top-k equals a full sort of the whole similarity matrix."""
from __future__ import annotations

import numpy as np
import pytest

from evalscope_phys.audit.cosine import CosineConfig, cosine_histogram, top_k_cosine
from evalscope_phys.audit.embedding import normalise_rows


def _vectors(seed: int, n: int, dim: int = 16) -> np.ndarray:
    return normalise_rows(np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32))


@pytest.mark.parametrize('backend', ['numpy', 'torch'])
@pytest.mark.parametrize('block_elements', [1024, 5000, 1 << 25])
@pytest.mark.parametrize('k', [1, 3, 7])
def test_blocked_top_k_equals_full_sort(block_elements: int, k: int, backend: str) -> None:
    if backend == 'torch':
        pytest.importorskip('torch')
    ev, pool = _vectors(0, 70), _vectors(1, 530)
    got = top_k_cosine(ev, pool, k, block_elements, backend=backend)
    full = ev @ pool.T
    want_idx = np.argsort(-full, axis=1, kind='stable')[:, :k]
    np.testing.assert_allclose(got.score, np.take_along_axis(full, want_idx, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got.index, want_idx)  # random floats: no ties


@pytest.mark.parametrize('backend', ['numpy', 'torch'])
def test_exclude_self_in_pool_mode(backend: str) -> None:
    if backend == 'torch':
        pytest.importorskip('torch')
    pool = _vectors(2, 300)
    pool[10] = pool[200]  # an exact duplicate pair
    got = top_k_cosine(pool, pool, 2, block_elements=2048, exclude_self=True, backend=backend)
    assert not np.any(got.index == np.arange(300)[:, None])
    assert got.index[10, 0] == 200 and got.index[200, 0] == 10
    assert got.score[10, 0] == pytest.approx(1.0)


def test_more_neighbours_than_pool_rows_pad_with_minus_one() -> None:
    got = top_k_cosine(_vectors(3, 4), _vectors(4, 2), top_k=5)
    assert (got.index[:, 2:] == -1).all() and np.isneginf(got.score[:, 2:]).all()
    assert got.pairs_at_least(-1.0) and all(j in (0, 1) for _, j, _ in got.pairs_at_least(-1.0))


def test_pairs_at_least_threshold_and_histogram() -> None:
    ev = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    pool = normalise_rows(np.array([[1.0, 0.05], [1.0, 1.0], [0.0, -1.0]], np.float32))
    got = top_k_cosine(ev, pool, 2)
    pairs = got.pairs_at_least(0.9)
    assert [(i, j) for i, j, _ in pairs] == [(0, 0)]
    hist = cosine_histogram(got.score[:, 0])
    assert sum(c for _, _, c in hist) == 2


def test_config_validation() -> None:
    with pytest.raises(ValueError):
        CosineConfig(top_k=0)
    with pytest.raises(ValueError):
        CosineConfig(threshold=1.5)
