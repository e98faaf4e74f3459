"""Stage-2 neighbours that do not depend on how the search was split: exact re-scoring and a certified top-k.

A float32 matrix product rounds each dot product in a way that depends on the block shapes (and on
the BLAS kernel), and its top-k breaks ties arbitrarily, so two engines that split the pool
differently could disagree on a near-tie at the k-th place or at the threshold. Here the fast
search only shortlists ``top_k + SEARCH_MARGIN`` neighbours per eval row; every shortlisted pair is
re-scored by :func:`exact_dot` (float64 sum of the exact float32 products, one fixed order per pair),
and the top-k is taken by (exact score, then lower pool row). The shortlist is *certified* when its
last fast score is more than twice the float32 error bound below the k-th fast score: then no pool
row outside it can reach the exact top-k. Rows that are not certified (many near-identical
neighbours, e.g. copies of one text) are searched again with a wider shortlist. Both engines use
this module, so their candidates and cosines are bit-identical.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import numpy as np

from .cosine import DEFAULT_BLOCK_ELEMENTS, TopK, top_k_cosine

SEARCH_MARGIN = 8
"""Neighbours shortlisted beyond top-k, so near-ties can be re-ordered by the exact score."""
_EXACT_CHUNK = 1 << 22  # floats per operand of one exact re-scoring step (32 MiB in float64)


def exact_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise dot products ``a[r] . b[r]`` in float64 from float32 rows (products are exact).

    Each row is summed by itself, in one order, so the value of a pair does not depend on the
    other pairs in the call: any engine, any batch gives the same bits.
    """
    a = np.ascontiguousarray(a, dtype=np.float32)
    b = np.ascontiguousarray(b, dtype=np.float32)
    out = np.empty(a.shape[0], np.float64)
    step = max(1, _EXACT_CHUNK // max(1, a.shape[1]))
    for s in range(0, a.shape[0], step):
        out[s:s + step] = np.multiply(a[s:s + step], b[s:s + step], dtype=np.float64).sum(axis=1)
    return out


def error_bound(dim: int, max_norm_eval: float, max_norm_pool: float) -> float:
    """A bound on |float32 dot - exact dot| for any summation order (2x the classic gamma_d bound)."""
    u = 2.0 ** -24
    return 2 * dim * u / (1 - dim * u) * max(max_norm_eval, 1e-30) * max(max_norm_pool, 1e-30)


def max_norm(vecs: np.ndarray) -> float:
    return float(np.sqrt(np.max(np.einsum('ij,ij->i', vecs, vecs, dtype=np.float64)))) if vecs.size else 0.0


@dataclass(frozen=True)
class Shortlist:
    """Per eval row, up to ``width`` pool rows (-1 pad) with their fast and exact scores (-inf pad)."""

    index: np.ndarray
    fast: np.ndarray
    exact: np.ndarray

    @classmethod
    def empty(cls, n_eval: int, width: int) -> 'Shortlist':
        return cls(np.full((n_eval, width), -1, np.int64), np.full((n_eval, width), -np.inf, np.float32),
                   np.full((n_eval, width), -np.inf, np.float64))

    @property
    def width(self) -> int:
        return self.index.shape[1]

    def merge(self, other: 'Shortlist') -> 'Shortlist':
        """The best ``width`` of both by fast score (which of equal scores stay does not matter: see select)."""
        idx = np.concatenate([self.index, other.index], axis=1)
        fast = np.concatenate([self.fast, other.fast], axis=1)
        exact = np.concatenate([self.exact, other.exact], axis=1)
        keep = np.argsort(-fast, axis=1, kind='stable')[:, :self.width]
        return Shortlist(np.take_along_axis(idx, keep, 1), np.take_along_axis(fast, keep, 1),
                         np.take_along_axis(exact, keep, 1))

    def select(self, top_k: int, bound: float) -> Tuple[TopK, np.ndarray]:
        """The exact top-k of each row and a mask of the rows whose shortlist is certified."""
        valid = self.index >= 0
        exact = np.where(valid, self.exact, -np.inf)
        tie = np.where(valid, self.index, np.iinfo(np.int64).max)
        order = np.lexsort((tie, -exact), axis=1)[:, :top_k]
        index = np.take_along_axis(np.where(valid, self.index, -1), order, 1)
        score = np.take_along_axis(exact, order, 1)
        index[~np.isfinite(score)] = -1
        fast = np.sort(np.where(valid, self.fast, -np.inf), axis=1)[:, ::-1]
        exhausted = valid.sum(axis=1) < self.width  # the whole pool is in the shortlist
        kth = fast[:, min(top_k, self.width) - 1]
        certified = exhausted | (fast[:, -1].astype(np.float64) < kth.astype(np.float64) - 2 * bound)
        return TopK(index, score), certified


def shortlist(eval_vecs: np.ndarray, pool_vecs: np.ndarray, width: int, pool_offset: int = 0,
              self_rows: Optional[np.ndarray] = None, block_elements: int = DEFAULT_BLOCK_ELEMENTS,
              progress: Optional[Callable[[int], None]] = None) -> Shortlist:
    """The fast top-``width`` of each eval row over ``pool_vecs`` (global rows ``pool_offset``...),
    re-scored exactly. ``self_rows[i]`` (in-pool mode) is the global pool row of eval row ``i``,
    which is never its own neighbour."""
    extra = 0 if self_rows is None else 1  # one more, so dropping the row itself leaves ``width``
    top = top_k_cosine(eval_vecs, pool_vecs, width + extra, block_elements, progress=progress)
    valid = top.index >= 0
    if self_rows is not None:
        valid &= top.index + pool_offset != np.asarray(self_rows)[:, None]
    fast = np.where(valid, top.score, -np.inf).astype(np.float32)
    keep = np.argsort(-fast, axis=1, kind='stable')[:, :width]
    valid, fast = np.take_along_axis(valid, keep, 1), np.take_along_axis(fast, keep, 1)
    local = np.take_along_axis(top.index, keep, 1)
    rows, cols = np.nonzero(valid)
    exact = np.full(valid.shape, -np.inf, np.float64)
    exact[rows, cols] = exact_dot(eval_vecs[rows], pool_vecs[local[rows, cols]])
    return Shortlist(np.where(valid, local + pool_offset, -1), fast, exact)


def nearest_neighbours(eval_vecs: np.ndarray, pool_vecs: np.ndarray, top_k: int = 5,
                       block_elements: int = DEFAULT_BLOCK_ELEMENTS, exclude_self: bool = False,
                       progress: Optional[Callable[[int], None]] = None) -> TopK:
    """Exact top-k neighbours (exact scores, ties to the lower pool row) of every eval row: the local engine.

    ``exclude_self`` (in-pool mode: the eval rows are the pool rows) keeps a row from being its own neighbour.
    """
    eval_vecs = np.ascontiguousarray(eval_vecs, dtype=np.float32)
    pool_vecs = np.ascontiguousarray(pool_vecs, dtype=np.float32)
    n_eval = eval_vecs.shape[0]
    out = TopK(np.full((n_eval, top_k), -1, np.int64), np.full((n_eval, top_k), -np.inf, np.float64))
    if n_eval == 0 or pool_vecs.shape[0] == 0:
        if progress:
            progress(pool_vecs.shape[0])
        return out
    bound = error_bound(eval_vecs.shape[1], max_norm(eval_vecs), max_norm(pool_vecs))
    rows, width = np.arange(n_eval), top_k + SEARCH_MARGIN
    while rows.size:
        sl = shortlist(eval_vecs[rows], pool_vecs, width, self_rows=rows if exclude_self else None,
                       block_elements=block_elements, progress=progress if rows.size == n_eval else None)
        top, certified = sl.select(top_k, bound)
        done = rows[certified]
        out.index[done], out.score[done] = top.index[certified], top.score[certified]
        rows, width = rows[~certified], width * 4
    return out
