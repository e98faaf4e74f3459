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
"""
from __future__ import annotations

import argparse
import json
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
    args = p.parse_args(argv)
    sizes = args.sizes or (QUICK_SIZES if args.quick else FULL_SIZES)
    import os
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
