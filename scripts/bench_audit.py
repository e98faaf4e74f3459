#!/usr/bin/env python
"""Benchmark the contamination audit's search stages and print time, peak memory and ratios.

1. Stage 1 on the real pair (../shared/data: PhoPile train as pool, OlympiadBench physics as eval):
   the indexed exact Jaccard join against brute force over all pairs (same hits; target >= 5x).
2. Stage 1 on synthetic pools (word texts with planted near-copies): time and peak memory.
3. Stage 2 cosine top-k search on synthetic 384-d embeddings: time, peak memory, pairs/s
   (target >= 1e7 pairs/s). Embedding itself is not timed here: it is model-bound and cached.

Peak memory is the process's peak resident set (VmHWM, reset before each stage via
/proc/self/clear_refs) minus the resident set just before the stage, i.e. what the stage adds
on top of its inputs; the inputs' size is printed beside it.

  bench_audit.py --quick          # 20k x 1k synthetic, a minute or so
  bench_audit.py                  # up to 250k x 10k synthetic
  bench_audit.py --sizes 100000x5000 --skip-real --json out.json
  bench_audit.py --engine ray     # stage 1, 1M x 10k: Ray with 1 and 2 workers, then local (about 25 min)
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import numpy as np

from evalscope_phys.audit.cosine import CosineConfig, top_k_cosine
from evalscope_phys.audit.corpus import load_corpus
from evalscope_phys.audit.embedding import normalise_rows
from evalscope_phys.audit.ngram import NgramConfig, brute_force_hits, gram_sets, jaccard_candidates

DATA = Path(__file__).resolve().parents[1] / '..' / 'shared' / 'data'
FULL_SIZES = [(20_000, 1_000), (100_000, 5_000), (250_000, 10_000)]
QUICK_SIZES = [(20_000, 1_000)]


def _rss_kib(field: str) -> int:
    for line in Path('/proc/self/status').read_text().splitlines():
        if line.startswith(field + ':'):
            return int(line.split()[1])
    return 0


def measure(fn: Callable[[], object]) -> Tuple[object, float, float, float]:
    """(result, wall seconds, CPU seconds of this process, extra peak MiB over the resident set at the start)."""
    try:
        Path('/proc/self/clear_refs').write_text('5')  # resets VmHWM to the current RSS
    except OSError:
        pass
    base = _rss_kib('VmRSS')
    c0, t0 = time.process_time(), time.perf_counter()
    result = fn()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return result, seconds, cpu, max(0, _rss_kib('VmHWM') - base) / 1024


def synthetic_texts(n_pool: int, n_eval: int, seed: int = 0, dup_share: float = 0.05) -> Tuple[List[str], List[str]]:
    """Zipf-distributed word texts of 40-120 words; ``dup_share`` of eval items are mutated pool copies."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f'w{i}' for i in range(50_000)])
    lengths = rng.integers(40, 121, size=n_pool + n_eval)
    words = vocab[np.minimum(rng.zipf(1.3, size=int(lengths.sum())) - 1, vocab.size - 1)]
    cuts = np.cumsum(lengths)[:-1]
    docs = [' '.join(d) for d in np.split(words, cuts)]
    pool, evals = docs[:n_pool], docs[n_pool:]
    for i in range(int(n_eval * dup_share)):
        src = pool[int(rng.integers(n_pool))].split()
        for _ in range(int(rng.integers(0, 4))):
            src[int(rng.integers(len(src)))] = 'mutated'
        evals[i] = ' '.join(src)
    return pool, evals


def synthetic_vectors(n_pool: int, n_eval: int, dim: int = 384, seed: int = 0) -> Tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    pool = normalise_rows(rng.standard_normal((n_pool, dim), dtype=np.float32))
    evals = normalise_rows(rng.standard_normal((n_eval, dim), dtype=np.float32))
    planted = rng.integers(n_pool, size=n_eval // 20)
    evals[: planted.size] = normalise_rows(pool[planted] + 0.2 * evals[: planted.size])
    return pool, evals


def bench_real(repeats: int) -> Dict[str, object]:
    pool_path = DATA / 'phopile' / 'train.json'
    eval_path = DATA / 'olympiadbench' / 'English_Olympiad_Physics.json'
    if not (pool_path.is_file() and eval_path.is_file()):
        print(f'real pair: skipped (no data at {DATA.resolve()})')
        return {}
    pool, ev = load_corpus(pool_path), load_corpus(eval_path)
    jaccard_candidates(ev.texts[:50], pool.texts[:50])  # warm imports and caches
    indexed, brute = [], []
    for _ in range(repeats):
        hits, secs, cpu, _ = measure(lambda: jaccard_candidates(ev.texts, pool.texts))
        indexed.append((secs, cpu))
    for _ in range(max(1, repeats - 1)):
        expected, secs, cpu, _ = measure(
            lambda: brute_force_hits(gram_sets(ev.texts, 5), gram_sets(pool.texts, 5), 0.4))
        brute.append((secs, cpu))
    same = hits.as_set() == expected
    (iw, ic), (bw, bc) = min(indexed), min(brute)
    row = {'pool': len(pool), 'eval': len(ev), 'hits': len(hits), 'hit_eval_items': len(set(hits.eval_index.tolist())),
           'candidates': hits.candidates, 'indexed_s': iw, 'indexed_cpu_s': ic, 'brute_force_s': bw,
           'brute_force_cpu_s': bc, 'speedup': bw / iw, 'speedup_cpu': bc / ic, 'identical': same}
    print(f'real pair PhoPile train ({len(pool)}) x OlympiadBench physics ({len(ev)}): '
          f'{len(hits)} stage-1 hits on {row["hit_eval_items"]} eval items, identical to brute force: {same}')
    print(f'  both from raw texts (tokenising included), best of {repeats} / {max(1, repeats - 1)} runs:')
    print(f'  indexed {iw:.2f}s wall, {ic:.2f}s CPU; brute force over {len(pool) * len(ev):,} pairs '
          f'{bw:.2f}s wall, {bc:.2f}s CPU')
    print(f'  speed-up {row["speedup"]:.1f}x wall, {row["speedup_cpu"]:.1f}x CPU (target >= 5x: '
          f'{"met" if min(row["speedup"], row["speedup_cpu"]) >= 5 else "NOT met"})')
    return row


def bench_stage1(n_pool: int, n_eval: int) -> Dict[str, object]:
    pool, evals = synthetic_texts(n_pool, n_eval)
    input_mib = (sum(map(len, pool)) + sum(map(len, evals))) / 2 ** 20
    hits, secs, cpu, peak = measure(lambda: jaccard_candidates(evals, pool, NgramConfig()))
    print(f'stage 1  {n_pool:>7,} x {n_eval:>6,}: {secs:7.1f}s ({cpu:.1f}s CPU)  peak +{peak:7.0f} MiB  '
          f'(texts {input_mib:.0f} MiB; {hits.candidates:,} candidates, {len(hits):,} hits)')
    return {'pool': n_pool, 'eval': n_eval, 'seconds': secs, 'cpu_s': cpu, 'peak_extra_mib': peak,
            'input_mib': input_mib,
            'candidates': hits.candidates, 'hits': len(hits)}


def bench_stage2(n_pool: int, n_eval: int, top_k: int, block_elements: int) -> Dict[str, object]:
    pool, evals = synthetic_vectors(n_pool, n_eval)
    top_k_cosine(evals[:64], pool[:4096], top_k)  # warm BLAS threads
    top, secs, cpu, peak = measure(lambda: top_k_cosine(evals, pool, top_k, block_elements))
    found = len(top.pairs_at_least(0.85))
    rate = n_pool * n_eval / secs
    print(f'stage 2  {n_pool:>7,} x {n_eval:>6,}: {secs:7.1f}s ({cpu:.1f}s CPU)  peak +{peak:7.0f} MiB  '
          f'(vectors {(pool.nbytes + evals.nbytes) / 2 ** 20:.0f} MiB; {rate:.2e} pairs/s, '
          f'{found} pairs >= 0.85; target >= 1e7 pairs/s: {"met" if rate >= 1e7 else "NOT met"})')
    return {'pool': n_pool, 'eval': n_eval, 'seconds': secs, 'cpu_s': cpu, 'peak_extra_mib': peak, 'pairs_per_s': rate,
            'pairs_at_085': found}


def write_synthetic_pool(path: Path, n_pool: int, n_eval: int, block_rows: int, seed: int = 0) -> List[str]:
    """A Parquet pool of ``n_pool`` synthetic texts written in chunks (bounded memory); returns the eval texts."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    chunk = 100_000
    n_chunks = -(-n_pool // chunk)
    evals: List[str] = []
    with pq.ParquetWriter(path, pa.schema([('problem', pa.string())])) as writer:
        for k, start in enumerate(range(0, n_pool, chunk)):
            share = n_eval // n_chunks + (k < n_eval % n_chunks)  # eval items (5% near-copies) drawn per chunk
            pool, ev = synthetic_texts(min(chunk, n_pool - start), share, seed=seed + k)
            evals += ev
            writer.write_table(pa.table({'problem': pool}), row_group_size=block_rows)
    return evals


def _load() -> str:
    return ' '.join(f'{x:.1f}' for x in os.getloadavg())


def bench_ray(n_pool: int, n_eval: int, workers: List[int], block_rows: int, skip_local: bool,
              work: Path) -> Dict[str, object]:
    """Stage 1 on the Ray engine (each worker count) and the local engine, same pool file, same eval set."""
    import ray
    from evalscope_phys.audit.ray_engine import RayEngine, RayOptions
    from evalscope_phys.audit.ngram_join import build_eval_index
    work.mkdir(parents=True, exist_ok=True)
    path = work / f'pool_{n_pool}_{n_eval}_{block_rows}.parquet'
    eval_path = path.with_suffix('.eval.json')
    t0 = time.perf_counter()
    if path.is_file() and eval_path.is_file():  # same generator and seed: reuse an earlier run's files
        evals = json.loads(eval_path.read_text())
    else:
        evals = write_synthetic_pool(path, n_pool, n_eval, block_rows)
        eval_path.write_text(json.dumps(evals))
    print(f'ray: wrote {n_pool:,} synthetic pool items to {path} ({path.stat().st_size / 2 ** 20:.0f} MiB) and '
          f'{len(evals):,} eval items in {time.perf_counter() - t0:.0f}s', flush=True)
    ray.init(num_cpus=max(workers), include_dashboard=False, log_to_driver=False, object_store_memory=512 << 20)
    rows: List[Dict[str, object]] = []
    results = {}
    try:
        for w in workers:
            engine = RayEngine(RayOptions(workers=w, block_rows=block_rows), work / f'state_{w}_{time.time_ns()}',
                               log=lambda m: None)
            plan = engine.plan(path, ('problem',))
            load0 = _load()
            t0 = time.perf_counter()
            hits = engine.jaccard_hits(plan, evals)
            wall = time.perf_counter() - t0
            p = engine.passes[-1]
            peaks = sorted(v / 1024 for v in p.peak_kib.values())
            results[w] = hits
            row = {'engine': 'ray', 'workers': w, 'wall_s': wall, 'pass_s': p.seconds, 'blocks': p.blocks,
                   'blocks_per_worker': sorted(p.blocks_by_worker.values()), 'worker_cpu_s': p.cpu_s,
                   'items_per_worker_cpu_s': n_pool / p.cpu_s, 'peak_mib_per_worker': peaks, 'hits': len(hits),
                   'load_before': load0, 'load_after': _load()}
            rows.append(row)
            print(f'ray  {w} worker(s): {wall:7.1f}s wall ({n_pool / wall:,.0f} items/s), {p.blocks} blocks '
                  f'(per worker {row["blocks_per_worker"]}), {p.cpu_s:.0f} worker CPU-s '
                  f'({row["items_per_worker_cpu_s"]:,.0f} items per worker CPU-s), '
                  f'peak per worker {", ".join(f"{m:.0f}" for m in peaks)} MiB, {len(hits):,} hits; '
                  f'load {load0} -> {row["load_after"]}', flush=True)
    finally:
        ray.shutdown()
    if len(workers) > 1:
        lo, hi = rows[0], rows[-1]
        ratio = lo['wall_s'] / hi['wall_s']
        print(f'ray: {hi["workers"]} workers vs {lo["workers"]}: {ratio:.2f}x faster (target >= 1.6x: '
              f'{"met" if ratio >= 1.6 else "NOT met"})')
    same = all(np.array_equal(results[w].pool_index, results[workers[0]].pool_index)
               and results[w].jaccard.tobytes() == results[workers[0]].jaccard.tobytes() for w in workers)
    print(f'ray: identical hits across worker counts: {same}')
    if not skip_local:
        import pyarrow.parquet as pq
        pool = pq.read_table(path).column('problem').to_pylist()
        load0 = _load()
        local, secs, cpu, peak = measure(lambda: jaccard_candidates(evals, pool, NgramConfig()))
        ident = (np.array_equal(local.eval_index, results[workers[0]].eval_index)
                 and np.array_equal(local.pool_index, results[workers[0]].pool_index)
                 and local.jaccard.tobytes() == results[workers[0]].jaccard.tobytes())
        rows.append({'engine': 'local', 'workers': 1, 'wall_s': secs, 'cpu_s': cpu, 'peak_extra_mib': peak,
                     'hits': len(local), 'identical_to_ray': ident, 'load_before': load0, 'load_after': _load()})
        print(f'local 1 process: {secs:7.1f}s wall ({cpu:.0f}s CPU), peak +{peak:.0f} MiB over the loaded texts, '
              f'{len(local):,} hits, identical to Ray: {ident}; load {load0} -> {_load()}', flush=True)
    index_mib = len(pickle.dumps(build_eval_index(evals))) / 2 ** 20
    print(f'ray: broadcast eval index {index_mib:.0f} MiB')
    return {'pool': n_pool, 'eval': n_eval, 'block_rows': block_rows, 'runs': rows, 'index_mib': index_mib}


def _size(text: str) -> Tuple[int, int]:
    pool, _, ev = text.lower().partition('x')
    return int(pool), int(ev)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--quick', action='store_true', help='only the smallest synthetic size (20k x 1k)')
    p.add_argument('--sizes', nargs='+', type=_size, metavar='POOLxEVAL', help='synthetic sizes to run')
    p.add_argument('--skip-real', action='store_true', help='skip the real PhoPile x OlympiadBench pair')
    p.add_argument('--skip-stage1', action='store_true')
    p.add_argument('--skip-stage2', action='store_true')
    p.add_argument('--repeats', type=int, default=3, help='timed runs of the indexed join on the real pair')
    p.add_argument('--top-k', type=int, default=5)
    p.add_argument('--block-elements', type=int, default=CosineConfig().block_elements)
    p.add_argument('--json', type=Path, help='also write the figures here')
    p.add_argument('--engine', choices=('local', 'ray'), default='local',
                   help='ray: stage 1 of a synthetic Parquet pool on a local Ray cluster with 1 and 2 workers, '
                        'then the local engine on the same data (--ray-size, default 1000000x10000)')
    p.add_argument('--ray-size', type=_size, default=(1_000_000, 10_000), metavar='POOLxEVAL')
    p.add_argument('--ray-workers', type=int, nargs='+', default=[1, 2], metavar='N')
    p.add_argument('--ray-block-rows', type=int, default=50_000)
    p.add_argument('--ray-work-dir', type=Path, default=Path('/tmp/bench_audit_ray'),
                   help='pool file and resume state (default /tmp/bench_audit_ray)')
    p.add_argument('--skip-local', action='store_true', help='with --engine ray: skip the local comparison run')
    args = p.parse_args(argv)
    if args.engine == 'ray':
        print(f'machine: {os.cpu_count()} CPUs; load average {_load()}', flush=True)
        row = bench_ray(*args.ray_size, args.ray_workers, args.ray_block_rows, args.skip_local, args.ray_work_dir)
        if args.json:
            args.json.write_text(json.dumps({'ray_stage1': row}, indent=1))
        return 0
    sizes = args.sizes or (QUICK_SIZES if args.quick else FULL_SIZES)
    print(f'machine: {os.cpu_count()} CPUs; numpy {np.__version__}', flush=True)
    out: Dict[str, object] = {}
    if not args.skip_real:
        out['real_pair'] = bench_real(args.repeats)
    if not args.skip_stage1:
        out['stage1'] = [bench_stage1(*s) for s in sizes]
    if not args.skip_stage2:
        out['stage2'] = [bench_stage2(*s, args.top_k, args.block_elements) for s in sizes]
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == '__main__':
    sys.exit(main())
