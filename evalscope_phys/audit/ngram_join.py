"""Stage 1 as a broadcast join: an index of the eval side that any process matches pool blocks against.

The local engine (:func:`.ngram.jaccard_candidates`) needs the whole pool in one process; this
module splits the same join so a pool can be streamed block by block, in any number of workers,
with the same hits and bit-identical Jaccard values:

* **Grams are matched exactly.** The index holds the eval vocabulary. A pool word outside it can
  be in no shared gram, so a pool gram is looked up only when all its words are eval words: a
  64-bit hash (collision-free over the eval grams, checked when the index is built) finds the eval
  gram, and a comparison of the n word ids confirms it, so no hash collision can add or hide a match.
* **The prefix filter keeps every hit.** Grams are put in one fixed order: every gram absent from
  the eval side first, then eval grams by eval document frequency (rarest first, ties by id). Any
  fixed order keeps the prefix-filter lemma (a pair with Jaccard >= t shares a gram between the
  two prefixes), so candidates are a superset of the hits.
* **Jaccard is the same arithmetic.** Distinct-gram counts of both sides are exact and scored by
  :func:`.ngram.verified_hits`, the function the local engine uses.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Dict, Optional, Sequence

import numpy as np
import scipy.sparse as sp

from .corpus import tokens
from .ngram import (JaccardHits, NgramConfig, gram_ids, gram_rows, lowest_ranked, prefix_lengths, set_matrix,
                    verified_hits)

_MIX = np.uint64(0x9E3779B97F4A7C15)


def _hash_rows(rows: np.ndarray, seed: int) -> np.ndarray:
    h = np.full(rows.shape[0], seed, dtype=np.uint64)
    with np.errstate(over='ignore'):
        for col in range(rows.shape[1]):
            h = h * _MIX + (rows[:, col].astype(np.int64) + 2).astype(np.uint64)
            h ^= h >> np.uint64(29)
    return h


@dataclass(frozen=True)
class EvalGramIndex:
    """What every worker needs of the eval side (numpy arrays and one dict; built once, broadcast)."""

    config: NgramConfig
    vocab: Dict[str, int]
    """Eval word -> id (0 .. len-1)."""
    seed: int
    """Seed of the gram hash; chosen so that no two eval grams share a hash."""
    hash_sorted: np.ndarray
    gram_of_hash: np.ndarray
    gram_words: np.ndarray
    """(grams, n) word ids of each eval gram (-1 pads a text shorter than n words)."""
    rank: np.ndarray
    """Position of each eval gram in the global order (rarest first)."""
    eval_sets: sp.csr_matrix
    """(eval items, grams) binary."""
    eval_prefix_t: sp.csr_matrix
    """(grams, eval items): the eval prefixes, transposed for the candidate product."""

    @property
    def eval_sizes(self) -> np.ndarray:
        return np.diff(self.eval_sets.indptr)

    def __len__(self) -> int:
        return self.eval_sets.shape[0]


def build_eval_index(eval_texts: Sequence[str], config: NgramConfig = NgramConfig()) -> EvalGramIndex:
    """Index the eval side for :func:`match_block` (the driver does this once per eval set)."""
    vocab: Dict[str, int] = {}
    ids = [np.array([vocab.setdefault(w, len(vocab)) for w in tokens(t)], dtype=np.int32) for t in eval_texts]
    docs, grams = gram_rows(ids, config.n)
    gids = gram_ids(grams)
    n_grams = int(gids.max()) + 1 if gids.size else 0
    words = np.zeros((n_grams, config.n), np.int32)
    words[gids] = grams
    sets = set_matrix(docs, gids, len(eval_texts), max(n_grams, 1))
    seed = 0
    while True:
        h = _hash_rows(words, seed)
        order = np.argsort(h, kind='stable')
        if not np.any(h[order][1:] == h[order][:-1]):
            break
        seed += 1  # two eval grams share a hash under this seed: pick another
    df = np.bincount(sets.indices, minlength=max(n_grams, 1))
    rank = np.empty(df.size, np.int64)
    rank[np.lexsort((np.arange(df.size), df))] = np.arange(df.size)
    prefix = lowest_ranked(sets, rank, prefix_lengths(np.diff(sets.indptr), config.threshold))
    return EvalGramIndex(config=config, vocab=vocab, seed=seed, hash_sorted=h[order], gram_of_hash=order,
                         gram_words=words, rank=rank, eval_sets=sets, eval_prefix_t=prefix.T.tocsr())


@dataclass(frozen=True)
class BlockHits:
    """Hits of one pool block: eval index, global pool row and Jaccard, plus the pairs verified."""

    eval_index: np.ndarray
    pool_row: np.ndarray
    jaccard: np.ndarray
    candidates: int
    rows: int


def match_block(index: EvalGramIndex, texts: Sequence[str], row_offset: int = 0,
                eval_offset: Optional[int] = None) -> BlockHits:
    """Stage-1 hits of the pool texts ``texts`` (global rows ``row_offset``...) against the index.

    ``eval_offset`` (in-pool deduplication, where the eval side is a chunk of the pool starting at
    that global row) keeps only pairs whose pool row is after the eval row, so each unordered pair
    is reported once, as the local engine does.
    """
    n, threshold = index.config.n, index.config.threshold
    n_vocab = len(index.vocab)
    vocab = dict(index.vocab)
    fresh = itertools.count(n_vocab)  # words outside the eval vocabulary get ids >= n_vocab
    ids = [np.array(list(map(vocab.setdefault, tokens(t), fresh)), dtype=np.int64) for t in texts]
    docs, grams = gram_rows([a.astype(np.int64) for a in ids], n)
    del ids
    local = gram_ids(grams)
    n_local = int(local.max()) + 1 if local.size else 1
    block = set_matrix(docs, local, len(texts), n_local)
    sizes = np.diff(block.indptr)
    eval_gram = np.full(n_local, -1, np.int64)
    if local.size and index.hash_sorted.size:
        _, first = np.unique(local, return_index=True)
        rep = grams[first]
        maybe = np.flatnonzero((rep < n_vocab).all(axis=1))
        h = _hash_rows(rep[maybe], index.seed)
        pos = np.minimum(np.searchsorted(index.hash_sorted, h), index.hash_sorted.size - 1)
        cand = index.gram_of_hash[pos]
        same = (index.hash_sorted[pos] == h) & (index.gram_words[cand] == rep[maybe]).all(axis=1)
        eval_gram[maybe[same]] = cand[same]
    del grams, docs, local
    mapped = eval_gram[block.indices]
    keep = mapped >= 0
    rows = np.repeat(np.arange(len(texts)), sizes)
    n_eval_grams = index.eval_sets.shape[1]
    shared = sp.csr_matrix((np.ones(int(keep.sum()), np.float32), (rows[keep], mapped[keep])),
                           shape=(len(texts), n_eval_grams))
    # Grams absent from the eval side come first in the global order, so they fill the pool prefix
    # before any eval gram: only the rest of the prefix length goes to (the rarest) shared grams.
    outside = sizes - np.diff(shared.indptr)
    prefix = lowest_ranked(shared, index.rank, np.maximum(prefix_lengths(sizes, threshold) - outside, 0))
    cand = (prefix @ index.eval_prefix_t).tocoo()
    ib, ie = cand.row.astype(np.int64), cand.col.astype(np.int64)
    if eval_offset is not None:
        later = ib + row_offset > ie + eval_offset
        ib, ie = ib[later], ie[later]
    hits = verified_hits(index.eval_sets, shared, ie, ib, index.eval_sizes, sizes, threshold)
    return BlockHits(eval_index=hits.eval_index, pool_row=hits.pool_index + row_offset, jaccard=hits.jaccard,
                     candidates=hits.candidates, rows=len(texts))


def merge_block_hits(parts: Sequence[BlockHits], eval_offset: int = 0) -> JaccardHits:
    """One :class:`JaccardHits` (sorted by eval, then pool row) from the blocks' hits, in any order."""
    if not parts:
        z = np.zeros(0, np.int64)
        return JaccardHits(z, z, np.zeros(0), 0)
    ie = np.concatenate([p.eval_index for p in parts]).astype(np.int64) + eval_offset
    ip = np.concatenate([p.pool_row for p in parts]).astype(np.int64)
    jac = np.concatenate([p.jaccard for p in parts]).astype(np.float64)
    order = np.lexsort((ip, ie))
    return JaccardHits(eval_index=ie[order], pool_index=ip[order], jaccard=jac[order],
                       candidates=sum(p.candidates for p in parts))
