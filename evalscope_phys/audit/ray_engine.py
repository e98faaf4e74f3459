"""``--engine ray``: stage 1, stage 2 and in-pool deduplication on a Ray cluster, with the local engine's answers.

For a pool of 10^6-10^8 items and an eval side of 10^3-10^4, every stage is a broadcast join: the
driver builds the eval side once (gram index, or embedding matrix), puts it in the object store
(``ray.put``), and a Ray Dataset of pool blocks is processed with ``map_batches`` by a fixed pool of
actors (``ActorPoolStrategy``); each actor reads its blocks from the pool file itself and returns
only hits (stage 1) or a shortlist of neighbours per eval row (stage 2). The driver saves each
block's result as it arrives (:mod:`.block_results`), so an interrupted run resumes from its
finished blocks. Stage 3 stays on the driver. In-pool deduplication runs the same joins with
chunks of the pool as the eval side (each pair once, from the chunk of its earlier row).

Same answers as the local engine: stage 1 through :mod:`.ngram_join` (exact, same arithmetic),
stage 2 through :mod:`.neighbours` (exact re-scoring, certified top-k), both bit for bit.
"""
from __future__ import annotations

import hashlib
import logging
import os
import pickle
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .block_results import BlockResults, digest, texts_digest
from .cosine import DEFAULT_BLOCK_ELEMENTS, TopK
from .embedding import text_key
from .embedding_parts import EmbeddingParts
from .neighbours import SEARCH_MARGIN, Shortlist, error_bound, max_norm
from .ngram import JaccardHits, NgramConfig
from .ngram_join import build_eval_index, merge_block_hits
from .pool_blocks import DEFAULT_BLOCK_ROWS, Block, PoolPlan, plan_pool, read_block_texts, rows_texts
from .ray_workers import BlockFailure, EmbedJob, EmbedWorker, SearchJob, SearchWorker, Stage1Worker

DEFAULT_CHUNK_ROWS = 20_000
"""In-pool deduplication: pool rows per broadcast eval side (bounds each worker's index memory)."""


class RayEngineError(RuntimeError):
    """Ray is missing or unreachable, or a distributed pass stopped (finished blocks are kept)."""


@dataclass(frozen=True)
class RayOptions:
    """Where and how wide the Ray engine runs."""

    address: Optional[str] = None
    """A running cluster (``ray://host:10001`` or ``auto``); None starts a local one on this machine."""
    workers: Optional[int] = None
    """Actors per pass (each takes one CPU); default: every CPU of the cluster."""
    block_rows: int = DEFAULT_BLOCK_ROWS
    """Pool rows per block: the unit of work, of worker memory and of resumption."""
    chunk_rows: int = DEFAULT_CHUNK_ROWS
    object_store_mb: int = 1024
    """Object store of a local cluster (the broadcast eval side and results pass through it)."""


@dataclass
class PassStats:
    """What one distributed pass did: blocks run now or found finished, and each worker's peak memory."""

    stage: str
    blocks: int
    run: int
    resumed: int
    workers: int
    seconds: float = 0.0
    peak_kib: Dict[int, int] = field(default_factory=dict)
    """Worker process id -> peak resident set (KiB)."""
    blocks_by_worker: Dict[int, int] = field(default_factory=dict)
    cpu_s: float = 0.0
    """CPU seconds the workers spent on blocks (per-worker throughput is rows / this, whatever the load)."""


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class RayEngine:
    """Runs the audit's block passes on Ray; ``on_block(stage, block)`` is called after each saved block."""

    def __init__(self, options: RayOptions, work_dir: Path, log: Callable[[str], None] = _stderr,
                 on_block: Optional[Callable[[str, int], None]] = None) -> None:
        self.options, self.work_dir, self.log, self.on_block = options, Path(work_dir), log, on_block
        self.passes: List[PassStats] = []
        self._workers: Optional[int] = None
        self._started = False
        self._plans: Dict[Tuple[str, Tuple[str, ...]], PoolPlan] = {}

    def workers(self) -> int:
        """Connect (or start a local cluster) once; the number of actors each pass uses."""
        if self._workers is None:
            try:
                import ray
                import ray.data
            except ImportError as exc:
                raise RayEngineError('--engine ray needs Ray: pip install "evalscope-phys[ray]"') from exc
            if not ray.is_initialized():
                self._started = True
                try:
                    if self.options.address:
                        ray.init(address=self.options.address, log_to_driver=False)
                    else:
                        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False,
                                 object_store_memory=self.options.object_store_mb << 20)
                except (ConnectionError, RuntimeError, ValueError) as exc:
                    raise RayEngineError(f'cannot start or reach the Ray cluster '
                                         f'({self.options.address or "local"}): {exc}') from exc
            logging.getLogger('ray.data').setLevel(logging.WARNING)  # no per-dataset chatter on stderr
            ctx = ray.data.DataContext.get_current()
            ctx.enable_progress_bars = False  # ours, per stage, on stderr
            ctx.print_on_execution_start = False
            cpus = int(ray.cluster_resources().get('CPU', 1))
            self._workers = max(1, min(self.options.workers or cpus, cpus))
        return self._workers

    def close(self) -> None:
        """Stop the local cluster this engine started (a cluster it joined keeps running)."""
        if self._started:
            import ray
            ray.shutdown()
            self._started, self._workers = False, None

    def plan(self, path: Path, fields: Sequence[str]) -> PoolPlan:
        key = (str(Path(path).resolve()), tuple(fields))
        if key not in self._plans:
            self._plans[key] = plan_pool(Path(path), fields, self.work_dir / 'pools', self.options.block_rows)
        return self._plans[key]

    def _pass(self, stage: str, worker: type, plan: PoolPlan, shared: Any, blocks: Sequence[Block],
              done: Callable[[int], bool], save: Callable[[int, Any], None]) -> PassStats:
        """Run ``worker`` over the unfinished ``blocks``, saving each result as it arrives."""
        import ray
        import ray.data
        from tqdm import tqdm
        workers = self.workers()
        todo = [b for b in blocks if not done(b.index)]
        stats = PassStats(stage, len(blocks), len(todo), len(blocks) - len(todo), min(workers, max(1, len(todo))))
        self.passes.append(stats)
        if stats.resumed:
            self.log(f'{stage}: {stats.resumed} of {len(blocks)} blocks finished in an earlier run; resuming')
        if not todo:
            return stats
        t0 = time.perf_counter()
        items = ray.data.from_items([{'block': b.index} for b in todo], override_num_blocks=len(todo))
        out = items.map_batches(worker, fn_constructor_kwargs={'plan': plan, 'shared': [ray.put(shared)]},
                                batch_size=1, compute=ray.data.ActorPoolStrategy(size=stats.workers, max_tasks_in_flight_per_actor=1),
                                num_cpus=1)  # one block at a time per actor: a slow starter gets no queue
        finished = 0
        with tqdm(total=sum(b.rows for b in blocks), initial=sum(b.rows for b in blocks) - sum(b.rows for b in todo),
                  desc=f'{stage} ({stats.workers} Ray workers)', unit='item', file=sys.stderr,
                  dynamic_ncols=True) as bar:
            try:
                for row in out.iter_rows():
                    k = int(row['block'])
                    result = pickle.loads(row['payload'])
                    if isinstance(result, BlockFailure):
                        raise RayEngineError(f'block {k} (rows {plan.blocks[k].start}-'
                                             f'{plan.blocks[k].start + plan.blocks[k].rows - 1}) failed: '
                                             f'{result.error}: {result.message}')
                    save(k, result)
                    finished += 1
                    pid = int(row['pid'])
                    stats.peak_kib[pid] = max(stats.peak_kib.get(pid, 0), int(row['peak_kib']))
                    stats.blocks_by_worker[pid] = stats.blocks_by_worker.get(pid, 0) + 1
                    stats.cpu_s += float(row['cpu_s'])
                    bar.update(plan.blocks[k].rows)
                    if self.on_block:
                        self.on_block(stage, k)
            except Exception as exc:
                raise RayEngineError(f'{stage} stopped after {finished} of {len(todo)} blocks: {_cause(exc)}. '
                                     f'The finished blocks are kept under {self.work_dir}: run the same command '
                                     'again to resume') from exc
            finally:
                stats.seconds = time.perf_counter() - t0
        peak = max(stats.peak_kib.values(), default=0) / 1024
        self.log(f'{stage}: {stats.run} blocks on {stats.workers} Ray workers in {stats.seconds:.1f}s, '
                 f'peak memory per worker {peak:.0f} MiB')
        return stats

    def _results(self, name: str) -> BlockResults:
        return BlockResults(self.work_dir / 'blocks', name)

    # -- stage 1 -------------------------------------------------------------------------------------

    def jaccard_hits(self, plan: PoolPlan, eval_texts: Sequence[str], config: NgramConfig = NgramConfig(),
                     stage: str = 'stage 1') -> JaccardHits:
        """All (eval, pool row) pairs with n-gram Jaccard >= the threshold: the local engine's hits."""
        index = build_eval_index(eval_texts, config)
        res = self._results('stage1-' + digest(plan.digest, texts_digest(eval_texts), config.n, config.threshold))
        self._pass(stage, Stage1Worker, plan, (index, None), plan.blocks, res.has, res.save)
        return merge_block_hits([res.load(b.index) for b in plan.blocks])

    def jaccard_hits_in_pool(self, plan: PoolPlan, config: NgramConfig = NgramConfig(),
                             stage: str = 'stage 1 in-pool') -> JaccardHits:
        """Pairs ``i < j`` of pool rows with Jaccard >= the threshold (the local in-pool hits)."""
        found = []
        for cs in range(0, plan.rows, self.options.chunk_rows):
            ce = min(plan.rows, cs + self.options.chunk_rows)
            index = build_eval_index(rows_texts(plan, cs, ce), config)
            res = self._results('dedup1-' + digest(plan.digest, cs, ce, config.n, config.threshold))
            blocks = [b for b in plan.blocks if b.start + b.rows - 1 > cs]
            self._pass(f'{stage}, rows {cs}-{ce - 1}', Stage1Worker, plan, (index, cs), blocks, res.has, res.save)
            found.append(merge_block_hits([res.load(b.index) for b in blocks], eval_offset=cs))
        return _concat_hits(found)

    # -- stage 2 -------------------------------------------------------------------------------------

    def embed_pool(self, plan: PoolPlan, job: EmbedJob, model_id: str, stage: str = 'stage 2: embed') -> Tuple[int, int]:
        """Embed every pool block not yet in the Parquet cache; (texts embedded now, rows from cache)."""
        parts = EmbeddingParts(job.parts_root, model_id)
        cached = sum(b.rows for b in plan.blocks if parts.has(plan.digest, b.index))
        embedded: List[int] = []
        self._pass(stage, EmbedWorker, plan, job, plan.blocks, lambda k: parts.has(plan.digest, k),
                   lambda k, n: embedded.append(n))
        return sum(embedded), cached

    def vectors(self, plan: PoolPlan, parts_root: Path, model_id: str, start: int, stop: int) -> np.ndarray:
        """Cached vectors of pool rows ``start .. stop - 1`` (the driver reads an in-pool chunk)."""
        parts = EmbeddingParts(parts_root, model_id)
        out = []
        for b in plan.blocks:
            if b.start + b.rows <= start or b.start >= stop:
                continue
            keys = [text_key(model_id, t) for t in read_block_texts(plan, b)]
            out.append(parts.read(plan.digest, b.index, keys)[max(0, start - b.start):stop - b.start])
        return np.concatenate(out) if out else np.zeros((0, 0), np.float32)

    def neighbours(self, plan: PoolPlan, parts_root: Path, model_id: str, eval_vecs: np.ndarray, top_k: int,
                   pair_eval: np.ndarray, pair_pool: np.ndarray, self_rows: Optional[np.ndarray] = None,
                   block_elements: int = DEFAULT_BLOCK_ELEMENTS,
                   stage: str = 'stage 2: cosine') -> Tuple[TopK, np.ndarray]:
        """Exact top-k pool neighbours of every eval row, and the exact cosine of each given pair."""
        eval_vecs = np.ascontiguousarray(eval_vecs, dtype=np.float32)
        n_eval = eval_vecs.shape[0]
        out = TopK(np.full((n_eval, top_k), -1, np.int64), np.full((n_eval, top_k), -np.inf, np.float64))
        cos = np.full(len(pair_eval), np.nan)
        rows, width = np.arange(n_eval), top_k + SEARCH_MARGIN
        first = True
        while rows.size and n_eval:
            pe = np.asarray(pair_eval, np.int64) if first else np.zeros(0, np.int64)
            pp = np.asarray(pair_pool, np.int64) if first else np.zeros(0, np.int64)
            sr = None if self_rows is None else np.asarray(self_rows, np.int64)[rows]
            job = SearchJob(eval_vecs[rows], width, sr, pe, pp, Path(parts_root), model_id, block_elements)
            name = digest(plan.digest, model_id, hashlib.sha256(job.eval_vecs.tobytes()).hexdigest(), width,
                          None if sr is None else hashlib.sha256(sr.tobytes()).hexdigest(),
                          hashlib.sha256(pe.tobytes() + pp.tobytes()).hexdigest(), block_elements)
            res = self._results('search-' + name)
            self._pass(stage if first else f'{stage} (wider shortlist for {rows.size} rows)', SearchWorker, plan,
                       job, plan.blocks, res.has, res.save)
            found, pool_norm = Shortlist.empty(rows.size, width), 0.0
            for b in plan.blocks:
                part, inside, c, norm = res.load(b.index)
                found, pool_norm = found.merge(part), max(pool_norm, norm)
                cos[inside] = c
            top, certified = found.select(top_k, error_bound(eval_vecs.shape[1], max_norm(eval_vecs), pool_norm))
            done = rows[certified]
            out.index[done], out.score[done] = top.index[certified], top.score[certified]
            rows, width, first = rows[~certified], width * 4, False
        return out, cos


def _concat_hits(parts: Sequence[JaccardHits]) -> JaccardHits:
    if not parts:
        z = np.zeros(0, np.int64)
        return JaccardHits(z, z, np.zeros(0), 0)
    ie = np.concatenate([p.eval_index for p in parts])
    ip = np.concatenate([p.pool_index for p in parts])
    jac = np.concatenate([p.jaccard for p in parts])
    order = np.lexsort((ip, ie))
    return JaccardHits(ie[order], ip[order], jac[order], sum(p.candidates for p in parts))


def _cause(exc: BaseException) -> str:
    """A one-line reason: our own message as is, Ray's errors by their first line."""
    if isinstance(exc, RayEngineError):
        return str(exc)
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return f'{type(exc).__name__}: {lines[0] if lines else ""}'
