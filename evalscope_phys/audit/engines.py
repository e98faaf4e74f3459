"""Where stages 1 and 2 run: ``local`` (this process) or ``ray`` (a cluster); both give the same answers.

The pipeline asks an engine for two things per (pool, eval) pair: the stage-1 hits, and the stage-2
neighbours plus the exact cosine of given pairs. Everything after that (pair records, judge,
reports, clean pools) is the same code for both engines.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Optional, Tuple

import numpy as np

from .corpus import Corpus
from .cosine import CosineConfig, TopK
from .neighbours import exact_dot, nearest_neighbours
from .ngram import JaccardHits, NgramConfig, jaccard_candidates
from .ray_engine import RayEngine, RayEngineError, RayOptions
from .ray_workers import EmbedJob

Log = Callable[[str], None]


def _bar(total: int, desc: str):
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit='item', file=sys.stderr, dynamic_ncols=True, leave=True)


class LocalEngine:
    """Both stages in this process, on the loaded corpora."""

    name = 'local'

    def stage1(self, pool: Corpus, evalset: Corpus, config: NgramConfig, in_pool: bool) -> JaccardHits:
        with _bar(1, f'stage 1: {config.n}-gram Jaccard {evalset.name} × {pool.name}') as bar:
            hits = jaccard_candidates(evalset.texts, pool.texts, config, in_pool=in_pool)
            bar.update(1)
        return hits

    def stage2(self, pool: Corpus, evalset: Corpus, embeddings: Any, config: CosineConfig, in_pool: bool,
               pair_eval: np.ndarray, pair_pool: np.ndarray) -> Tuple[TopK, np.ndarray]:
        po = embeddings.of(pool)
        ev = po if in_pool else embeddings.of(evalset)
        with _bar(len(pool), f'stage 2: cosine top-{config.top_k}') as bar:
            top = nearest_neighbours(ev, po, config.top_k, config.block_elements, exclude_self=in_pool,
                                     progress=bar.update)
        return top, exact_dot(ev[pair_eval], po[pair_pool])

    def close(self) -> None:
        pass


class RayAuditEngine:
    """Both stages on Ray; workers read the pool file themselves (the driver's copy serves only reports)."""

    name = 'ray'

    def __init__(self, options: RayOptions, cache_dir: Path, log: Log) -> None:
        self.cache_dir = Path(cache_dir)
        self.engine = RayEngine(options, self.cache_dir / 'ray', log)
        self.log = log

    def _plan(self, pool: Corpus):
        plan = self.engine.plan(pool.path, pool.text_fields)
        if plan.rows != len(pool):
            raise RayEngineError(f'{pool.path}: the workers read {plan.rows} rows, the driver {len(pool)}; '
                                 'the file changed during the run: start again')
        return plan

    def stage1(self, pool: Corpus, evalset: Corpus, config: NgramConfig, in_pool: bool) -> JaccardHits:
        plan = self._plan(pool)
        if in_pool:
            return self.engine.jaccard_hits_in_pool(plan, config, stage=f'stage 1: {pool.name} in-pool')
        return self.engine.jaccard_hits(plan, evalset.texts, config, stage=f'stage 1: {evalset.name} × {pool.name}')

    def stage2(self, pool: Corpus, evalset: Corpus, embeddings: Any, config: CosineConfig, in_pool: bool,
               pair_eval: np.ndarray, pair_pool: np.ndarray) -> Tuple[TopK, np.ndarray]:
        plan = self._plan(pool)
        spec, model_id = embeddings.spec, embeddings.embedder.model_id
        parts_root = self.cache_dir / 'embeddings.parquet'
        job = EmbedJob(spec.model, spec.url, spec.api_key, spec.batch_size, parts_root)
        embedded, cached = self.engine.embed_pool(plan, job, model_id, stage=f'stage 2: embed {pool.name}')
        self.log(f'stage 2: {pool.name}: {embedded} embedded, {cached} from cache')
        stage = f'stage 2: cosine top-{config.top_k}'
        if not in_pool:
            return self.engine.neighbours(plan, parts_root, model_id, embeddings.of(evalset), config.top_k,
                                          pair_eval, pair_pool, block_elements=config.block_elements, stage=stage)
        index = np.full((plan.rows, config.top_k), -1, np.int64)
        score = np.full((plan.rows, config.top_k), -np.inf)
        cos = np.full(len(pair_eval), np.nan)
        chunk = self.engine.options.chunk_rows
        for cs in range(0, plan.rows, chunk):
            ce = min(plan.rows, cs + chunk)
            mine = np.flatnonzero((pair_eval >= cs) & (pair_eval < ce))
            top, c = self.engine.neighbours(
                plan, parts_root, model_id, self.engine.vectors(plan, parts_root, model_id, cs, ce), config.top_k,
                pair_eval[mine] - cs, pair_pool[mine], self_rows=np.arange(cs, ce),
                block_elements=config.block_elements, stage=f'{stage}, rows {cs}-{ce - 1}')
            index[cs:ce], score[cs:ce], cos[mine] = top.index, top.score, c
        return TopK(index, score), cos

    def close(self) -> None:
        self.engine.close()


def make_engine(name: str, options: Optional[RayOptions], cache_dir: Path, log: Log):
    """The engine ``--engine`` names."""
    if name == 'local':
        return LocalEngine()
    if name == 'ray':
        return RayAuditEngine(options or RayOptions(), cache_dir, log)
    raise ValueError(f'unknown engine {name!r} (use local or ray)')
