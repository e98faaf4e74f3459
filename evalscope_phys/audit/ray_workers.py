"""The Ray actors of ``--engine ray``: each call takes one pool block and returns a small result.

Every actor reads its block itself (nothing of the pool passes through the driver) and gets what
the stage broadcasts (the eval gram index, the eval vectors) once, from the object store, when it
starts. Results are pickled into one binary column so Ray Data can stream them back as blocks finish.
"""
from __future__ import annotations

import os
import pickle
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional

import numpy as np

from .embedding import embed_texts, make_embedder, text_key
from .embedding_parts import EmbeddingParts
from .neighbours import exact_dot, max_norm, shortlist
from .ngram_join import match_block
from .pool_blocks import Block, PoolPlan, read_block_texts


def peak_rss_kib() -> int:
    """This process's peak resident set (VmHWM), 0 where /proc is not available."""
    try:
        for line in Path('/proc/self/status').read_text().splitlines():
            if line.startswith('VmHWM:'):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


@dataclass(frozen=True)
class BlockFailure:
    """A block that raised: sent back as a result, so the driver reports our message, not Ray's wrapper."""

    error: str
    message: str


class _BlockWorker:
    """Calls ``run`` on each block index of the batch and packs the results."""

    def __init__(self, plan: PoolPlan, shared: list) -> None:
        import ray
        self.plan = plan
        self.shared = ray.get(shared[0])  # a list, so Ray Data hands the reference over unresolved

    def run(self, block: Block) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        payloads, seconds, cpu = [], [], []
        for k in batch['block']:
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                result = self.run(self.plan.blocks[int(k)])
            except Exception as exc:  # bad rows, an unreachable endpoint, a stale cache file: one clear message
                result = BlockFailure(type(exc).__name__, str(exc))
            payloads.append(pickle.dumps(result, protocol=5))
            seconds.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        n = len(payloads)
        return {'block': np.asarray(batch['block'], np.int64), 'payload': np.array(payloads, dtype=object),
                'pid': np.full(n, os.getpid(), np.int64), 'peak_kib': np.full(n, peak_rss_kib(), np.int64),
                'seconds': np.asarray(seconds, np.float64), 'cpu_s': np.asarray(cpu, np.float64)}


class Stage1Worker(_BlockWorker):
    """Stage 1: the block's exact Jaccard hits against the broadcast eval gram index."""

    def run(self, block: Block):
        index, eval_offset = self.shared
        return match_block(index, read_block_texts(self.plan, block), block.start, eval_offset)


@dataclass(frozen=True)
class EmbedJob:
    model: str
    url: Optional[str]
    api_key: Optional[str]
    batch_size: int
    parts_root: Path


class EmbedWorker(_BlockWorker):
    """Stage 2, first pass: embed a block (one model per actor) and write its Parquet cache file."""

    def __init__(self, plan: PoolPlan, shared: list) -> None:
        super().__init__(plan, shared)
        job: EmbedJob = self.shared
        self.embedder = make_embedder(job.model, job.url, job.api_key, job.batch_size)
        self.parts = EmbeddingParts(job.parts_root, self.embedder.model_id)

    def run(self, block: Block):
        texts = read_block_texts(self.plan, block)
        vecs, stats = embed_texts(self.embedder, texts)
        self.parts.write(self.plan.digest, block.index, [text_key(self.embedder.model_id, t) for t in texts], vecs)
        return stats.embedded


@dataclass(frozen=True)
class SearchJob:
    eval_vecs: np.ndarray
    width: int
    self_rows: Optional[np.ndarray]
    """In-pool: the global pool row of each eval row (a row is never its own neighbour)."""
    pair_eval: np.ndarray
    pair_pool: np.ndarray
    """Pairs whose exact cosine is wanted (stage-1 hits): eval row and global pool row."""
    parts_root: Path
    model_id: str
    block_elements: int


class SearchWorker(_BlockWorker):
    """Stage 2, second pass: the block's shortlist of neighbours for every eval row, re-scored exactly."""

    def run(self, block: Block):
        job: SearchJob = self.shared
        texts = read_block_texts(self.plan, block)
        parts = EmbeddingParts(job.parts_root, job.model_id)
        vecs = parts.read(self.plan.digest, block.index, [text_key(job.model_id, t) for t in texts])
        found = shortlist(job.eval_vecs, vecs, job.width, pool_offset=block.start, self_rows=job.self_rows,
                          block_elements=job.block_elements)
        inside = np.flatnonzero((job.pair_pool >= block.start) & (job.pair_pool < block.start + block.rows))
        cos = exact_dot(job.eval_vecs[job.pair_eval[inside]], vecs[job.pair_pool[inside] - block.start])
        return found, inside, cos, max_norm(vecs)
