"""Stage 2 search: top-k cosine neighbours of every eval item over the whole pool, in bounded memory.

The similarity matrix is never materialised: eval rows and pool rows are taken in blocks
(``block_elements`` floats per block product, 2^25 = 128 MiB by default) and a running top-k per
eval row is merged after each pool block, so memory is O(eval block x pool block + eval x k)
whatever the pool size.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

DEFAULT_BLOCK_ELEMENTS = 1 << 25


@dataclass(frozen=True)
class CosineConfig:
    """Stage-2 settings."""

    threshold: float = 0.85
    """A pair is a stage-2 candidate when its cosine is at least this (the paper's value, for mxbai)."""
    top_k: int = 5
    """Neighbours kept per eval item before thresholding."""
    block_elements: int = DEFAULT_BLOCK_ELEMENTS
    """Upper bound on the floats of one block product (memory bound)."""

    def __post_init__(self) -> None:
        if self.top_k < 1:
            raise ValueError(f'top_k must be >= 1, got {self.top_k}')
        if not -1 <= self.threshold <= 1:
            raise ValueError(f'the cosine threshold must be in [-1, 1], got {self.threshold}')
        if self.block_elements < 1024:
            raise ValueError('block_elements must be at least 1024')


@dataclass(frozen=True)
class TopK:
    """``index[i]`` / ``score[i]``: the pool rows nearest eval row ``i``, best first (-1 / -inf pad)."""

    index: np.ndarray
    score: np.ndarray

    def pairs_at_least(self, threshold: float) -> list[tuple[int, int, float]]:
        """(eval row, pool row, cosine) for every kept neighbour with cosine >= threshold."""
        rows, cols = np.nonzero((self.score >= threshold) & (self.index >= 0))
        return [(int(r), int(self.index[r, c]), float(self.score[r, c])) for r, c in zip(rows, cols)]


def _block_top_k_numpy(ev: np.ndarray, block: np.ndarray, kk: int, self_rows: Optional[np.ndarray],
                       self_cols: Optional[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    sims = ev @ block.T
    if self_rows is not None:
        sims[self_rows, self_cols] = -np.inf
    part = np.argpartition(sims, sims.shape[1] - kk, axis=1)[:, -kk:]
    return np.take_along_axis(sims, part, axis=1), part


def _block_top_k_torch(ev: np.ndarray, block: np.ndarray, kk: int, self_rows: Optional[np.ndarray],
                       self_cols: Optional[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    import torch
    sims = torch.from_numpy(ev) @ torch.from_numpy(block).T
    if self_rows is not None:
        sims[torch.from_numpy(self_rows), torch.from_numpy(self_cols)] = -torch.inf
    vals, idx = torch.topk(sims, kk, dim=1, sorted=False)
    return vals.numpy(), idx.numpy().astype(np.int64)


def _block_top_k():
    """torch's multi-threaded matmul + topk when torch is installed (about 4x numpy's argpartition)."""
    return _block_top_k_torch if importlib.util.find_spec('torch') is not None else _block_top_k_numpy


def top_k_cosine(eval_vecs: np.ndarray, pool_vecs: np.ndarray, top_k: int = 5,
                 block_elements: int = DEFAULT_BLOCK_ELEMENTS, exclude_self: bool = False,
                 progress: Optional[Callable[[int], None]] = None, backend: Optional[str] = None) -> TopK:
    """Top-k by float32 dot product (cosine for normalised rows) of each eval row over all pool rows.

    The float32 rounding of a score depends on the block shapes, and ties are broken by position:
    :func:`.neighbours.nearest_neighbours` re-scores exactly, so answers do not depend on either.

    ``exclude_self`` (in-pool mode, eval is the pool) drops each row's match with itself.
    ``progress`` is called with the number of pool rows finished, per pool block.
    ``backend`` ``'numpy'`` or ``'torch'`` forces one block kernel (default: torch when installed).
    """
    kernel = {'numpy': _block_top_k_numpy, 'torch': _block_top_k_torch, None: None}[backend] or _block_top_k()
    eval_vecs = np.ascontiguousarray(eval_vecs, dtype=np.float32)
    pool_vecs = np.ascontiguousarray(pool_vecs, dtype=np.float32)
    n_eval, n_pool = eval_vecs.shape[0], pool_vecs.shape[0]
    k = min(top_k, n_pool)
    best_idx = np.full((n_eval, top_k), -1, dtype=np.int64)
    best_val = np.full((n_eval, top_k), -np.inf, dtype=np.float32)
    if n_eval == 0 or n_pool == 0 or k == 0:
        return TopK(best_idx, best_val)
    eval_block = max(1, min(n_eval, int(np.sqrt(block_elements))))
    pool_block = max(k, block_elements // eval_block)
    for ps in range(0, n_pool, pool_block):
        pe = min(n_pool, ps + pool_block)
        block = pool_vecs[ps:pe]
        for es in range(0, n_eval, eval_block):
            ee = min(n_eval, es + eval_block)
            rows = cols = None
            if exclude_self:
                lo, hi = max(es, ps), min(ee, pe)
                if lo < hi:
                    r = np.arange(lo, hi)
                    rows, cols = r - es, r - ps
            vals, part = kernel(eval_vecs[es:ee], block, min(k, pe - ps), rows, cols)
            merged_val = np.concatenate([best_val[es:ee], vals], axis=1)
            merged_idx = np.concatenate([best_idx[es:ee], part + ps], axis=1)
            keep = np.argsort(-merged_val, axis=1, kind='stable')[:, :top_k]
            best_val[es:ee] = np.take_along_axis(merged_val, keep, axis=1)
            best_idx[es:ee] = np.take_along_axis(merged_idx, keep, axis=1)
        if progress:
            progress(pe - ps)
    best_idx[~np.isfinite(best_val)] = -1
    return TopK(best_idx, best_val)


def cosine_histogram(scores: np.ndarray, edges: np.ndarray | None = None) -> list[tuple[float, float, int]]:
    """(low, high, count) of finite scores per bin, for the printed distribution."""
    scores = scores[np.isfinite(scores)]
    if edges is None:
        edges = np.round(np.arange(-0.2, 1.0001, 0.1), 2)
    counts, _ = np.histogram(np.clip(scores, edges[0], edges[-1]), bins=edges)
    return [(float(lo), float(hi), int(c)) for lo, hi, c in zip(edges[:-1], edges[1:], counts)]
