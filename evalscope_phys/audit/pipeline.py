"""The three-stage audit end to end: for every (pool, eval) pair run the n-gram join, the embedding
search and the judge, then write the per-pair JSONL, the summaries, the plots and clean pools.

Flagged pool items (removed by ``write_clean``): stage-1 hits and judged near-duplicates; when no
judge ran, every stage-2 candidate (the conservative choice). ``unparseable`` and ``error`` pairs
are kept and counted in the summary, never guessed. Failed judge calls beyond the judge's
``max_failures`` (default: any) fail the audit (:mod:`evalscope_phys.llm.gate`): the pairs and
summaries are written, no clean pool is, and a re-run asks only the failed calls.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from .corpus import Corpus, load_corpus
from .cosine import CosineConfig, cosine_histogram
from .embedding import DEFAULT_MODEL, REFERENCE_MODEL, EmbeddingCache, embed_texts, is_reference_model, make_embedder
from evalscope_phys.llm.gate import JudgeCallsFailed, failure

from .judge import NEAR_DUPLICATE, JudgeCache, JudgeConfig, judge_pairs
from .engines import LocalEngine, make_engine
from .ngram import NgramConfig, pair_jaccard
from .ray_engine import RayOptions
from .report import PairRecord, plot_cosines, summarise, write_clean, write_pairs, write_summaries


@dataclass(frozen=True)
class CorpusSpec:
    """Where a pool or eval set is and which of its fields to read."""

    path: Path
    text_fields: Tuple[str, ...] = ()
    id_field: Optional[str] = None


@dataclass(frozen=True)
class EmbedSpec:
    """Which embedder stage 2 uses: a sentence-transformers model, or an endpoint when ``url`` is set."""

    model: str = DEFAULT_MODEL
    url: Optional[str] = None
    api_key: Optional[str] = field(default=None, repr=False)
    batch_size: int = 64


@dataclass(frozen=True)
class AuditConfig:
    pools: Tuple[CorpusSpec, ...]
    evals: Tuple[CorpusSpec, ...] = ()
    """Empty with ``in_pool``: each pool is audited against itself (deduplication)."""
    out_dir: Path = Path('audit_out')
    in_pool: bool = False
    ngram: NgramConfig = NgramConfig()
    cosine: CosineConfig = CosineConfig()
    embed: Optional[EmbedSpec] = EmbedSpec()
    """None skips stage 2 (and so stage 3)."""
    judge: Optional[JudgeConfig] = None
    """None skips stage 3."""
    cache_dir: Optional[Path] = None
    """Embedding and judge caches; default ``<out_dir>/cache``."""
    write_clean: bool = False
    engine: str = 'local'
    """``local`` (this process) or ``ray`` (stages 1-2 and in-pool deduplication on a Ray cluster)."""
    ray: RayOptions = RayOptions()

    def __post_init__(self) -> None:
        if self.engine not in ('local', 'ray'):
            raise ValueError(f'unknown engine {self.engine!r} (use local or ray)')
        if not self.pools:
            raise ValueError('at least one pool is needed')
        if not self.in_pool and not self.evals:
            raise ValueError('give at least one eval set, or use in-pool mode')


Log = Callable[[str], None]


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _bar(total: int, desc: str):
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit='item', file=sys.stderr, dynamic_ncols=True, leave=True)


class _Embeddings:
    """Loads the embedder once and embeds each corpus once (through the on-disk cache)."""

    def __init__(self, spec: EmbedSpec, cache: EmbeddingCache, log: Log) -> None:
        self.spec = spec
        self.embedder = make_embedder(spec.model, spec.url, spec.api_key, spec.batch_size)
        self.cache, self.log = cache, log
        self._done: Dict[Path, np.ndarray] = {}

    def of(self, corpus: Corpus) -> np.ndarray:
        if corpus.path not in self._done:
            with _bar(len(corpus), f'stage 2: embed {corpus.name}') as bar:
                vecs, stats = embed_texts(self.embedder, corpus.texts, self.cache, progress=bar.update)
            self.log(f'stage 2: {corpus.name}: {stats.embedded} embedded, {stats.cached} from cache')
            self._done[corpus.path] = vecs
        return self._done[corpus.path]


def _print_cosine_note(model_id: str, threshold: float, top1: np.ndarray, log: Log) -> None:
    if not is_reference_model(model_id):
        log(f'note: the cosine threshold {threshold} was set for {REFERENCE_MODEL}; this run uses {model_id!r}, '
            'whose cosines are scaled differently. Check the distribution below and set --cos-threshold to suit.')
    finite = top1[np.isfinite(top1)]
    if finite.size:
        q = np.quantile(finite, [0.5, 0.9, 0.99])
        log(f'top-1 cosine per eval item: median {q[0]:.3f}, p90 {q[1]:.3f}, p99 {q[2]:.3f}, max {finite.max():.3f}')
        for lo, hi, count in cosine_histogram(finite):
            if count:
                log(f'  [{lo:+.1f}, {hi:+.1f}) {count:6d} {"#" * max(1, int(50 * count / finite.size))}')


def audit_pair(pool: Corpus, evalset: Corpus, config: AuditConfig, embeddings: Optional[_Embeddings],
               judge_cache: Optional[JudgeCache], log: Log = _stderr,
               engine: Optional[Any] = None
               ) -> Tuple[List[PairRecord], Dict[str, Any], Optional[JudgeCallsFailed]]:
    """Run the three stages on one (pool, eval) pair (stages 1-2 on ``engine``, default local); the last
    item is the judge's failure when too many of its calls failed."""
    in_pool = config.in_pool
    engine = engine or LocalEngine()
    hits = engine.stage1(pool, evalset, config.ngram, in_pool)
    log(f'stage 1: {len(hits)} pairs with Jaccard ≥ {config.ngram.threshold} '
        f'({hits.candidates} candidates verified exactly)')
    pairs: Dict[Tuple[int, int], Dict[str, Any]] = {}
    for i, j, jac in zip(hits.eval_index.tolist(), hits.pool_index.tolist(), hits.jaccard.tolist()):
        pairs[(i, j)] = {'jaccard': jac, 'stage1': True, 'stage2': False, 'cosine': None}
    if embeddings is not None:
        stage1_pairs = np.array(sorted(pairs), np.int64).reshape(-1, 2)
        top, stage1_cos = engine.stage2(pool, evalset, embeddings, config.cosine, in_pool,
                                        stage1_pairs[:, 0], stage1_pairs[:, 1])
        _print_cosine_note(embeddings.embedder.model_id, config.cosine.threshold, top.score[:, 0], log)
        for i, j, cos in top.pairs_at_least(config.cosine.threshold):
            key = (min(i, j), max(i, j)) if in_pool else (i, j)
            entry = pairs.setdefault(key, {'jaccard': None, 'stage1': False, 'cosine': None})
            entry['stage2'], entry['cosine'] = True, cos
        missing = [k for k, v in pairs.items() if v['jaccard'] is None]
        for k, jac in zip(missing, pair_jaccard(evalset.texts, pool.texts, missing, config.ngram.n)):
            pairs[k]['jaccard'] = jac
        for (i, j), cos in zip(stage1_pairs.tolist(), stage1_cos.tolist()):
            if pairs[(i, j)]['cosine'] is None:
                pairs[(i, j)]['cosine'] = cos
        log(f'stage 2: {sum(v["stage2"] for v in pairs.values())} pairs with cosine ≥ {config.cosine.threshold}')
    keys = sorted(pairs)
    labels: Dict[Tuple[int, int], Tuple[str, str]] = {}
    judge_failure: Optional[JudgeCallsFailed] = None
    if config.judge is not None and judge_cache is not None and embeddings is not None:
        todo = [k for k in keys if pairs[k]['stage2']]
        with _bar(len(todo), 'stage 3: judge') as bar:
            verdicts, stats = judge_pairs([(evalset.items[i].text, pool.items[j].text) for i, j in todo],
                                          config.judge, judge_cache, progress=bar.update)
        labels = {k: (v.label, v.reason) for k, v in zip(todo, verdicts)}
        log(f'stage 3: {stats.pairs} pairs judged, {stats.calls} calls, {stats.cached} from cache, '
            f'{stats.unparseable} unparseable, {stats.errors} errors (re-run to retry errors)')
        judge_failure = failure(f'audit stage 3 ({pool.name} x {evalset.name})', stats.errors, stats.pairs,
                                config.judge.base_url, config.judge.max_failures)
    records = [PairRecord(pool=pool.name, eval=evalset.name, eval_id=evalset.items[i].id, pool_id=pool.items[j].id,
                          jaccard=float(pairs[(i, j)]['jaccard']), cosine=pairs[(i, j)]['cosine'],
                          stage1_hit=pairs[(i, j)]['stage1'], stage2_candidate=pairs[(i, j)]['stage2'],
                          label=labels.get((i, j), (None, None))[0], reason=labels.get((i, j), (None, None))[1])
               for i, j in keys]
    settings = {'ngram_n': config.ngram.n, 'jaccard_threshold': config.ngram.threshold,
                'cosine_threshold': config.cosine.threshold, 'top_k': config.cosine.top_k,
                'embed_model': embeddings.embedder.model_id if embeddings else None,
                'judge_model': config.judge.model if config.judge else None, 'in_pool': in_pool,
                'pool_fields': list(pool.text_fields), 'eval_fields': list(evalset.text_fields)}
    summary = summarise(pool, evalset, records, settings, judged=config.judge is not None and embeddings is not None,
                        embedded=embeddings is not None)
    if judge_failure is not None:
        summary['judge_failed'] = str(judge_failure)
    return records, summary, judge_failure


def flagged_pool_ids(records: Sequence[PairRecord], judged: bool, in_pool: bool) -> Set[str]:
    """Pool ids to drop. In-pool, each flagged pair drops its later item unless the earlier one is gone."""
    flagged = [r for r in records
               if r.stage1_hit or (r.stage2_candidate and (r.label == NEAR_DUPLICATE if judged else True))]
    if not in_pool:
        return {r.pool_id for r in flagged}
    dropped: Set[str] = set()
    for r in flagged:  # records are sorted by (earlier row, later row)
        if r.eval_id not in dropped and r.pool_id not in dropped:
            dropped.add(r.pool_id)
    return dropped


def _load(spec: CorpusSpec) -> Corpus:
    return load_corpus(spec.path, spec.text_fields, spec.id_field)


def _unique_names(corpora: List[Corpus]) -> List[Corpus]:
    seen: Dict[str, int] = {}
    out = []
    for c in corpora:
        n = seen.get(c.name, 0)
        seen[c.name] = n + 1
        out.append(c if n == 0 else Corpus(f'{c.name}_{n + 1}', c.path, c.items, c.records, c.text_fields))
    return out


def run_audit(config: AuditConfig, log: Log = _stderr) -> List[Dict[str, Any]]:
    """Audit every (pool, eval) pair (or each pool against itself) and write all outputs to ``out_dir``."""
    out = Path(config.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cache_dir = Path(config.cache_dir) if config.cache_dir else out / 'cache'
    pools = _unique_names([_load(s) for s in config.pools])
    evals = _unique_names([_load(s) for s in config.evals]) if not config.in_pool else []
    embeddings = None
    if config.embed is not None:
        embeddings = _Embeddings(config.embed, EmbeddingCache(cache_dir / 'embeddings.sqlite'), log)
    judge_cache = JudgeCache(cache_dir / 'judge.jsonl') if config.judge is not None else None
    engine = make_engine(config.engine, config.ray, cache_dir, log)
    try:
        summaries, failures = _audit_all(config, pools, evals, embeddings, judge_cache, engine, out, log)
    finally:
        engine.close()
    md, js = write_summaries(out, summaries)
    log(f'summary: {md} and {js}')
    if failures:
        for other in failures[1:]:
            log(f'error: {other}')
        raise failures[0]
    return summaries


def _audit_all(config: AuditConfig, pools: List[Corpus], evals: List[Corpus], embeddings: Optional[_Embeddings],
               judge_cache: Optional[JudgeCache], engine: Any, out: Path, log: Log
               ) -> Tuple[List[Dict[str, Any]], List[JudgeCallsFailed]]:
    summaries: List[Dict[str, Any]] = []
    failures: List[JudgeCallsFailed] = []
    for pool in pools:
        flagged: Set[str] = set()
        pool_failed = False
        for evalset in ([pool] if config.in_pool else evals):
            records, summary, judge_failure = audit_pair(pool, evalset, config, embeddings, judge_cache, log, engine)
            if judge_failure is not None:
                failures.append(judge_failure)
                pool_failed = True
            stem = f'{pool.name}__{evalset.name}'
            write_pairs(out / f'{stem}.pairs.jsonl', records)
            plot = plot_cosines(out / f'{stem}.cosine.png', records, summary)
            summary['files'] = {'pairs': f'{stem}.pairs.jsonl', 'plot': plot.name if plot else None}
            summaries.append(summary)
            flagged |= flagged_pool_ids(records, judged=config.judge is not None and embeddings is not None,
                                        in_pool=config.in_pool)
        if config.write_clean and pool_failed:
            log(f'clean pool: not written for {pool.name}: the judge did not answer (see the error below)')
        elif config.write_clean:
            path, removed = write_clean(pool, flagged, out)
            log(f'clean pool: {path} ({removed} of {len(pool)} items removed)')
            for s in summaries:
                if s['pool'] == pool.name:
                    s['clean_pool'] = {'path': str(path), 'removed': removed}
    return summaries, failures
