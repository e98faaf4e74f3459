"""Stage 1: exact word n-gram Jaccard join between an eval set and a pool.

Why exact and still fast: a pair with Jaccard >= t shares at least ``ceil(t * |x|)`` grams with
``x``, so (prefix-filtering lemma) it shares a gram among the first ``|x| - ceil(t * |x|) + 1``
grams of each side once grams are sorted in one global order (rarest first keeps prefixes rare).
Candidates come from an inverted index over those prefixes (a sparse product); every candidate's
exact Jaccard is then computed from the full gram sets. No pair above the threshold can be missed,
so the hits equal a brute-force comparison of all pairs (tests check this on real data).

A text shorter than ``n`` words counts as one gram (itself); an empty text has no grams.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable, List, Sequence, Set, Tuple

import numpy as np
import scipy.sparse as sp

from .corpus import tokens

_PAD = -1  # pads texts shorter than n words to one gram; no real token id is negative
_PAIR_CHUNK = 200_000  # candidate pairs scored per step: bounds memory of the row-wise products


@dataclass(frozen=True)
class NgramConfig:
    """Stage-1 settings (the paper's audit: word 5-grams, Jaccard >= 0.4)."""

    n: int = 5
    """Words per gram."""
    threshold: float = 0.4
    """A pair is a stage-1 hit when its Jaccard is at least this (0 < threshold <= 1)."""

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f'n must be >= 1, got {self.n}')
        if not 0 < self.threshold <= 1:
            raise ValueError(f'the Jaccard threshold must be in (0, 1], got {self.threshold}')


@dataclass(frozen=True)
class JaccardHits:
    """Pairs ``(eval_index[k], pool_index[k])`` with ``jaccard[k] >= threshold``; ``candidates`` counts
    the pairs whose exact Jaccard was computed (what the index saved against all pairs)."""

    eval_index: np.ndarray
    pool_index: np.ndarray
    jaccard: np.ndarray
    candidates: int

    def __len__(self) -> int:
        return int(self.eval_index.size)

    def as_set(self) -> Set[Tuple[int, int]]:
        return set(zip(self.eval_index.tolist(), self.pool_index.tolist()))


def gram_sets(texts: Sequence[str], n: int) -> List[Set[Tuple[str, ...]]]:
    """Python sets of word n-grams (the reference definition, used by the brute-force check)."""
    out = []
    for text in texts:
        toks = tokens(text)
        if len(toks) < n:
            out.append({tuple(toks)} if toks else set())
        else:
            out.append({tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)})
    return out


def jaccard(a: Set, b: Set) -> float:
    """Jaccard of two sets; two empty sets have Jaccard 0 (nothing to match on)."""
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def brute_force_hits(eval_sets: Sequence[Set], pool_sets: Sequence[Set], threshold: float,
                     in_pool: bool = False) -> Set[Tuple[int, int]]:
    """All pairs with Jaccard >= threshold by comparing every pair (reference and benchmark only)."""
    hits = set()
    for i, a in enumerate(eval_sets):
        if not a:
            continue
        for j, b in enumerate(pool_sets):
            if in_pool and j <= i:
                continue
            if b and jaccard(a, b) >= threshold:
                hits.add((i, j))
    return hits


def _token_ids(texts: Iterable[str]) -> List[np.ndarray]:
    """Normalised word tokens of each text as int32 ids (texts are tokenised one at a time to bound memory).

    Ids are unique per word but not contiguous: ``setdefault`` draws a fresh number from the counter on
    every call and keeps it only for a new word, which is faster than computing ``len(vocab)``.
    """
    vocab: dict = {}
    counter = itertools.count()
    out = []
    for text in texts:
        out.append(np.array(list(map(vocab.setdefault, tokens(text), counter)), dtype=np.int32))
    return out


def gram_rows(ids: Sequence[np.ndarray], n: int) -> Tuple[np.ndarray, np.ndarray]:
    """(doc index, n-gram as n token ids) for every gram position in every document."""
    ids = [a if a.size >= n or a.size == 0 else np.concatenate([a, np.full(n - a.size, _PAD, np.int32)])
           for a in ids]
    lengths = np.fromiter((a.size for a in ids), dtype=np.int64, count=len(ids))
    counts = np.where(lengths > 0, lengths - n + 1, 0)
    if counts.sum() == 0:
        return np.zeros(0, np.int64), np.zeros((0, n), np.int32)
    flat = np.concatenate(ids)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    first_gram = np.concatenate([[0], np.cumsum(counts)[:-1]])
    docs = np.repeat(np.arange(len(ids), dtype=np.int64), counts)
    starts = np.repeat(offsets, counts) + (np.arange(int(counts.sum())) - np.repeat(first_gram, counts))
    grams = np.lib.stride_tricks.sliding_window_view(flat, n)[starts]
    return docs, grams


def gram_ids(grams: np.ndarray) -> np.ndarray:
    """Exact integer id per gram row: a 64-bit hash, verified collision-free (else a row sort)."""
    if grams.shape[0] == 0:
        return np.zeros(0, np.int64)
    h = np.zeros(grams.shape[0], dtype=np.uint64)
    with np.errstate(over='ignore'):
        for col in range(grams.shape[1]):
            h = h * np.uint64(0x9E3779B97F4A7C15) + (grams[:, col] + 2).astype(np.uint64)
            h ^= h >> np.uint64(29)
    uniq, inverse = np.unique(h, return_inverse=True)
    order = np.argsort(inverse, kind='stable')
    sorted_grams, sorted_inv = grams[order], inverse[order]
    same_id = sorted_inv[1:] == sorted_inv[:-1]
    if np.any(np.any(sorted_grams[1:] != sorted_grams[:-1], axis=1) & same_id):
        _, inverse = np.unique(grams, axis=0, return_inverse=True)  # a hash collision: exact fallback
    return inverse.reshape(-1).astype(np.int64)


def set_matrix(docs: np.ndarray, gram_ids: np.ndarray, n_docs: int, n_grams: int) -> sp.csr_matrix:
    """Binary doc x gram matrix (each gram once per doc)."""
    key = np.sort(docs * n_grams + gram_ids)  # sort + diff: numpy 2's hash-based unique is far slower here
    key = key[np.concatenate([[True], key[1:] != key[:-1]])] if key.size else key
    rows, cols = key // n_grams, key % n_grams
    return sp.csr_matrix((np.ones(key.size, np.float32), (rows, cols)), shape=(n_docs, n_grams))


def prefix_lengths(sizes: np.ndarray, threshold: float) -> np.ndarray:
    """``|x| - ceil(t|x|) + 1`` per set size (0 for an empty set): the prefix-filter prefix length."""
    # The small epsilon keeps ceil() from overshooting on float noise (0.4 * 5 = 2.0000000000000004):
    # a shorter required overlap only lengthens the prefix, which stays exact.
    need = np.ceil(threshold * sizes - 1e-9).astype(np.int64)
    return np.where(sizes > 0, sizes - need + 1, 0)


def _prefix_matrix(m: sp.csr_matrix, rank: np.ndarray, threshold: float) -> sp.csr_matrix:
    """Keep each row's ``|x| - ceil(t|x|) + 1`` lowest-ranked grams (the prefix-filter prefix)."""
    return lowest_ranked(m, rank, prefix_lengths(np.diff(m.indptr), threshold))


def lowest_ranked(m: sp.csr_matrix, rank: np.ndarray, keep_len: np.ndarray) -> sp.csr_matrix:
    """Keep the ``keep_len[r]`` lowest-ranked columns of each row ``r`` of a binary matrix."""
    sizes = np.diff(m.indptr)
    rows = np.repeat(np.arange(m.shape[0]), sizes)
    order = np.lexsort((rank[m.indices], rows))
    pos = np.arange(m.indices.size) - np.repeat(m.indptr[:-1], sizes)
    sel = order[pos < np.repeat(keep_len, sizes)]
    return sp.csr_matrix((np.ones(sel.size, np.float32), (rows[sel], m.indices[sel])), shape=m.shape)


def row_overlap(a: sp.csr_matrix, b: sp.csr_matrix, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    out = np.empty(ia.size, dtype=np.int64)
    for s in range(0, ia.size, _PAIR_CHUNK):
        e = s + _PAIR_CHUNK
        out[s:e] = np.asarray(a[ia[s:e]].multiply(b[ib[s:e]]).sum(axis=1)).ravel()
    return out


def jaccard_candidates(eval_texts: Sequence[str], pool_texts: Sequence[str], config: NgramConfig = NgramConfig(),
                       in_pool: bool = False) -> JaccardHits:
    """All (eval, pool) pairs with word n-gram Jaccard >= ``config.threshold``, exactly.

    With ``in_pool`` the pool is joined with itself (``eval_texts`` is ignored) and each unordered
    pair ``i < j`` is reported once.
    """
    if in_pool:
        eval_texts = pool_texts
    ids = _token_ids(list(eval_texts) + ([] if in_pool else list(pool_texts)))
    docs, grams = gram_rows(ids, config.n)
    del ids
    gids = gram_ids(grams)
    del grams
    n_grams = int(gids.max()) + 1 if gids.size else 1
    full = set_matrix(docs, gids, len(eval_texts) + (0 if in_pool else len(pool_texts)), n_grams)
    del docs, gids
    n_eval = len(eval_texts)
    ev, po = (full, full) if in_pool else (full[:n_eval], full[n_eval:])
    df = np.bincount(full.indices, minlength=n_grams)
    rank = np.empty(n_grams, np.int64)
    rank[np.lexsort((np.arange(n_grams), df))] = np.arange(n_grams)
    cand = (_prefix_matrix(ev, rank, config.threshold) @ _prefix_matrix(po, rank, config.threshold).T).tocoo()
    ie, ip = cand.row.astype(np.int64), cand.col.astype(np.int64)
    if in_pool:
        keep = ie < ip
        ie, ip = ie[keep], ip[keep]
    return verified_hits(ev, po, ie, ip, np.diff(ev.indptr), np.diff(po.indptr), config.threshold)


def verified_hits(ev: sp.csr_matrix, po: sp.csr_matrix, ie: np.ndarray, ip: np.ndarray, eval_sizes: np.ndarray,
                  pool_sizes: np.ndarray, threshold: float) -> JaccardHits:
    """The candidate pairs ``(ie, ip)`` whose exact Jaccard is >= ``threshold``, sorted by (eval, pool).

    ``ev``/``po`` are binary set matrices over one gram vocabulary (``po`` may hold only the grams
    that can be shared); ``*_sizes`` are the true distinct-gram counts. Both engines score through
    this one function, so equal integers give bit-identical Jaccard values.
    """
    size_e, size_p = eval_sizes[ie], pool_sizes[ip]
    # Size filter: J >= t needs t*|x| <= |y| <= |x|/t; cheap and exact.
    ok = (size_p >= threshold * size_e - 1e-9) & (size_e >= threshold * size_p - 1e-9)
    ie, ip, size_e, size_p = ie[ok], ip[ok], size_e[ok], size_p[ok]
    inter = row_overlap(ev, po, ie, ip)
    jac = inter / np.maximum(size_e.astype(np.int64) + size_p - inter, 1)
    hit = jac >= threshold
    order = np.lexsort((ip[hit], ie[hit]))
    return JaccardHits(eval_index=ie[hit][order], pool_index=ip[hit][order], jaccard=jac[hit][order],
                       candidates=int(ie.size))


def pair_jaccard(eval_texts: Sequence[str], pool_texts: Sequence[str], pairs: Iterable[Tuple[int, int]],
                 n: int) -> List[float]:
    """Exact Jaccard of given pairs (for stage-2 candidates that were not stage-1 hits)."""
    pairs = list(pairs)
    e_sets = {i: s for i, s in zip(sorted({p[0] for p in pairs}),
                                   gram_sets([eval_texts[i] for i in sorted({p[0] for p in pairs})], n))}
    p_sets = {j: s for j, s in zip(sorted({p[1] for p in pairs}),
                                   gram_sets([pool_texts[j] for j in sorted({p[1] for p in pairs})], n))}
    return [jaccard(e_sets[i], p_sets[j]) for i, j in pairs]
