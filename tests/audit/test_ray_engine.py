"""--engine ray on a local 2-CPU cluster: the local engine's answers, bit for bit, progress, and resumption."""
from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalscope_phys.audit.corpus import load_corpus, read_corpus_rows
from evalscope_phys.audit.ngram import JaccardHits, jaccard_candidates
from evalscope_phys.audit.ray_engine import RayEngine, RayEngineError, RayOptions

from .conftest import FIXTURES

SCRIPT = Path(__file__).resolve().parents[2] / 'scripts' / 'audit_three_stage.py'
WORDS = ('mass spring block incline charge field lens orbit photon electron gas heat work energy momentum torque '
         'wave frequency pressure volume current voltage resistor magnet angle speed height rest bottom').split()


def _identical(a: JaccardHits, b: JaccardHits) -> bool:
    return (len(a) > 0 and np.array_equal(a.eval_index, b.eval_index) and np.array_equal(a.pool_index, b.pool_index)
            and a.jaccard.tobytes() == b.jaccard.tobytes())


def _synthetic(n_pool: int = 400, n_eval: int = 60, seed: int = 0):
    """Random problems, with eval items and later pool items that are lightly edited copies of earlier ones."""
    rng = random.Random(seed)
    pool = [' '.join(rng.choice(WORDS) for _ in range(rng.randint(8, 40))) for _ in range(n_pool)]
    for i in range(0, n_pool, 9):
        src = pool[rng.randrange(max(1, i))].split()
        src[rng.randrange(len(src))] = rng.choice(WORDS)
        pool[i] = ' '.join(src)
    evals = []
    for _ in range(n_eval):
        words = rng.choice(pool).split()
        for _ in range(rng.randint(0, 5)):
            words[rng.randrange(len(words))] = rng.choice(WORDS)
        evals.append(' '.join(words))
    return pool, evals


def _write_jsonl(path: Path, texts, bad_row: int = -1) -> Path:
    with path.open('w', encoding='utf-8') as fh:
        for i, t in enumerate(texts):
            fh.write('{broken\n' if i == bad_row else json.dumps({'id': f'q{i}', 'problem': t}) + '\n')
            if i % 50 == 0:
                fh.write('\n')
    return path


def _main():
    spec = importlib.util.spec_from_file_location('audit_three_stage', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


@pytest.mark.integration
def test_real_pair_stage1_and_in_pool_hits_equal_local(ray_cluster, shared_data, tmp_path: Path) -> None:
    pool = load_corpus(shared_data / 'phopile' / 'train.json')
    ev = load_corpus(shared_data / 'olympiadbench' / 'English_Olympiad_Physics.json')
    engine = RayEngine(RayOptions(block_rows=700, chunk_rows=1400), tmp_path)
    plan = engine.plan(pool.path, pool.text_fields)
    assert plan.rows == len(pool) == 2662 and len(plan.blocks) == 4
    hits = engine.jaccard_hits(plan, ev.texts)
    assert len(hits) == 307 and _identical(hits, jaccard_candidates(ev.texts, pool.texts))
    assert _identical(engine.jaccard_hits_in_pool(plan), jaccard_candidates([], pool.texts, in_pool=True))
    assert [p.workers for p in engine.passes] == [2, 2, 2]  # stage 1, then two in-pool chunks
    assert all(0 < kib < 2 << 20 for p in engine.passes for kib in p.peak_kib.values())


def test_synthetic_parquet_and_jsonl_hits_equal_local(ray_cluster, tmp_path: Path) -> None:
    pool, evals = _synthetic()
    local = jaccard_candidates(evals, pool)
    parquet = tmp_path / 'pool.parquet'
    pq.write_table(pa.table({'problem': pool}), parquet, row_group_size=150)
    jsonl = _write_jsonl(tmp_path / 'pool.jsonl', pool)
    engine = RayEngine(RayOptions(block_rows=64), tmp_path / 'work')
    for path in (parquet, jsonl):
        assert _identical(engine.jaccard_hits(engine.plan(path, ('problem',)), evals), local)


def test_interrupted_run_resumes_from_its_finished_blocks(ray_cluster, tmp_path: Path) -> None:
    pool, evals = _synthetic(seed=1)
    path = _write_jsonl(tmp_path / 'pool.jsonl', pool)

    class Interrupt(Exception):
        pass

    def stop_after_three(stage: str, block: int) -> None:
        seen.append(block)
        if len(seen) == 3:
            raise Interrupt('stopped by the test')

    seen: list = []
    first = RayEngine(RayOptions(block_rows=50), tmp_path / 'work', on_block=stop_after_three)
    plan = first.plan(path, ('problem',))
    assert len(plan.blocks) == 8
    with pytest.raises(RayEngineError, match='stopped after 3 of 8 blocks.*run the same command again to resume'):
        first.jaccard_hits(plan, evals)
    saved = list((tmp_path / 'work' / 'blocks').glob('stage1-*/*.npz'))
    assert len(saved) == 3

    again = RayEngine(RayOptions(block_rows=50), tmp_path / 'work')
    hits = again.jaccard_hits(again.plan(path, ('problem',)), evals)
    assert (again.passes[0].resumed, again.passes[0].run) == (3, 5)  # only the rest ran
    assert _identical(hits, jaccard_candidates(evals, pool))


def test_a_failing_block_stops_the_run_with_the_row_and_keeps_the_rest(ray_cluster, tmp_path: Path) -> None:
    pool, evals = _synthetic(seed=2)
    path = _write_jsonl(tmp_path / 'pool.jsonl', pool, bad_row=260)
    engine = RayEngine(RayOptions(block_rows=100, workers=1), tmp_path / 'work')
    with pytest.raises(RayEngineError, match=r'row 260: not valid JSON.*resume'):
        engine.jaccard_hits(engine.plan(path, ('problem',)), evals)
    assert len(list((tmp_path / 'work' / 'blocks').glob('stage1-*/*.npz'))) >= 1  # blocks before it are kept


def _audit(tmp_path: Path, name: str, argv: list, capsys) -> tuple:
    out = tmp_path / name
    assert _main()(argv + ['--out', str(out)]) == 0
    return out, capsys.readouterr().err


def _same_outputs(a: Path, b: Path, stem: str) -> None:
    assert (a / f'{stem}.pairs.jsonl').read_bytes() == (b / f'{stem}.pairs.jsonl').read_bytes()
    sa, sb = json.loads((a / 'summary.json').read_text()), json.loads((b / 'summary.json').read_text())
    for s in sa + sb:
        s.pop('clean_pool', None)
    assert sa == sb
    clean_a, clean_b = sorted((a / 'clean').iterdir()), sorted((b / 'clean').iterdir())
    assert [p.name for p in clean_a] == [p.name for p in clean_b]
    assert all(x.read_bytes() == y.read_bytes() for x, y in zip(clean_a, clean_b))


@pytest.mark.integration
def test_real_pair_audit_on_ray_writes_the_local_outputs_then_resumes(ray_cluster, shared_data, tmp_path: Path,
                                                                      capsys) -> None:
    argv = ['--pool', str(shared_data / 'phopile' / 'train.json'),
            '--eval', str(shared_data / 'olympiadbench' / 'English_Olympiad_Physics.json'),
            '--embed-model', 'hashed-words', '--cos-threshold', '0.8', '--top-k', '3', '--write-clean']
    local, _ = _audit(tmp_path, 'local', argv, capsys)
    ray_args = argv + ['--engine', 'ray', '--ray-block-rows', '700', '--cache-dir', str(tmp_path / 'cache')]
    ray_out, err = _audit(tmp_path, 'ray', ray_args, capsys)
    _same_outputs(local, ray_out, 'train__English_Olympiad_Physics')
    summary = json.loads((ray_out / 'summary.json').read_text())[0]
    assert summary['stage1_hits'] == 307 and summary['stage2_candidates_not_stage1'] > 0
    for line in ('stage 1: English_Olympiad_Physics × train (2 Ray workers)', 'stage 2: embed train (2 Ray workers)',
                 'stage 2: cosine top-3 (2 Ray workers)', 'stage 2: train: 2615 embedded, 0 from cache'):  # distinct texts
        assert line in err, err[-3000:]  # progress per stage on stderr
    _, err = _audit(tmp_path, 'ray_again', ray_args, capsys)
    assert 'stage 2: train: 0 embedded, 2662 from cache' in err
    assert 'stage 1: English_Olympiad_Physics × train: 4 of 4 blocks finished in an earlier run' in err
    _same_outputs(local, tmp_path / 'ray_again', 'train__English_Olympiad_Physics')


def test_in_pool_deduplication_on_ray_drops_the_same_items(ray_cluster, tmp_path: Path, capsys) -> None:
    pool, _ = _synthetic(n_pool=300, seed=3)
    path = _write_jsonl(tmp_path / 'pool.jsonl', pool)
    argv = ['--pool', str(path), '--in-pool', '--embed-model', 'hashed-words-128', '--cos-threshold', '0.8',
            '--write-clean']
    local, _ = _audit(tmp_path, 'local', argv, capsys)
    ray_out, _ = _audit(tmp_path, 'ray', argv + ['--engine', 'ray', '--ray-block-rows', '150', '--ray-chunk-rows',
                                                 '150'], capsys)  # two chunks of two blocks
    _same_outputs(local, ray_out, 'pool__pool')
    dropped = len(pool) - len(read_corpus_rows(ray_out / 'clean' / 'pool.clean.jsonl'))
    assert dropped >= 20  # the planted copies


def test_minilm_in_ray_actors_finds_the_local_candidates(ray_cluster, minilm, tmp_path: Path, capsys) -> None:
    argv = ['--pool', str(FIXTURES / 'pool.jsonl'), '--eval', str(FIXTURES / 'eval.json'), '--cos-threshold', '0.45',
            '--top-k', '2']
    local, _ = _audit(tmp_path, 'local', argv, capsys)
    ray_out, err = _audit(tmp_path, 'ray', argv + ['--engine', 'ray', '--ray-block-rows', '4', '--ray-workers', '1'],
                          capsys)  # one actor: one model load
    assert 'stage 2: pool: 10 embedded, 0 from cache' in err

    def rows(out):
        return {(r['eval_id'], r['pool_id']): r for r in map(json.loads, (out / 'pool__eval.pairs.jsonl').open())}

    a, b = rows(local), rows(ray_out)
    assert a.keys() == b.keys() and len(a) == 6
    for key in a:
        assert (a[key]['stage1_hit'], a[key]['stage2_candidate']) == (b[key]['stage1_hit'], b[key]['stage2_candidate'])
        # MiniLM's float32 output moves in the last bits with batch shape and thread count (~2e-7):
        # equal vectors give equal cosines (the tests above), a re-computed model gives near-equal ones.
        assert a[key]['cosine'] == pytest.approx(b[key]['cosine'], abs=1e-5)


def test_without_ray_the_error_says_what_to_install(monkeypatch, tmp_path: Path) -> None:
    import builtins
    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == 'ray' or name.startswith('ray.'):
            raise ImportError('no ray here')
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, '__import__', no_ray)
    with pytest.raises(RayEngineError, match=r'pip install "evalscope-phys\[ray\]"'):
        RayEngine(RayOptions(), tmp_path).workers()
