"""Outputs: cosine bins like the paper's, the Table-2 summary, the PNG and clean pools."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalscope_phys.audit.corpus import load_corpus, read_corpus_rows
from evalscope_phys.audit.report import (PairRecord, bin_table, cosine_bins, plot_cosines, summarise,
                                         summary_markdown, write_clean)

from .conftest import FIXTURES

SETTINGS = {'ngram_n': 5, 'jaccard_threshold': 0.4, 'cosine_threshold': 0.85, 'top_k': 5,
            'embed_model': 'm', 'judge_model': 'j'}


def _rec(eval_id: str, pool_id: str, cos: float, label, s1: bool = False, s2: bool = True) -> PairRecord:
    return PairRecord('pool', 'eval', eval_id, pool_id, 0.5 if s1 else 0.1, cos, s1, s2, label, 'r')


RECORDS = [
    _rec('e1', 'p-block-incline', 0.99, 'near_duplicate', s1=True),
    _rec('e1', 'p-capacitor', 0.951, 'same_topic_neighbour'),
    _rec('e2', 'p-pendulum', 0.86, 'same_topic_neighbour'),
    _rec('e3', 'p-pendulum', 0.85, 'near_duplicate'),
    _rec('e4', 'p-gas', 0.9, 'unparseable'),
    _rec('e5', 'p-lens', 0.5, None, s1=True, s2=False),
]


def test_bins_follow_the_paper() -> None:
    assert cosine_bins(0.85) == [(0.85, 0.87), (0.87, 0.89), (0.89, 0.91), (0.91, 0.93), (0.93, 0.95), (0.95, 1.0)]
    assert cosine_bins(0.97) == [(0.97, 1.0)]


def test_bin_table_counts_and_shares() -> None:
    rows = bin_table(RECORDS, 0.85, judged=True)
    first, last = rows[0], rows[-1]
    assert (first['candidates'], first['near_duplicates'], first['share']) == (2, 1, 0.5)
    assert (last['candidates'], last['near_duplicates'], last['share']) == (2, 1, 0.5)
    unparseable_bin = rows[2]  # [0.89, 0.91): one candidate, not labelled -> no share rather than 0
    assert unparseable_bin['candidates'] == 1 and unparseable_bin['share'] is None


def test_summary_is_table_two() -> None:
    pool, ev = load_corpus(FIXTURES / 'pool.jsonl'), load_corpus(FIXTURES / 'eval.json')
    s = summarise(pool, ev, RECORDS, SETTINGS, judged=True, embedded=True)
    assert (s['stage1_hits'], s['stage2_candidates'], s['stage3_near_duplicates']) == (2, 5, 2)
    assert s['stage3_near_duplicates_not_stage1'] == 1 and s['stage3_unparseable'] == 1
    md = summary_markdown([s])
    assert '| pool | eval | 10 | 6 | 2 (2) | 5 (4) | 2 (2) | 1 / 0 |' in md
    assert '| [0.85, 0.87) | 2 | 1 | 50.0% |' in md and '| [0.95, 1.00] | 2 | 1 | 50.0% |' in md
    unjudged = summarise(pool, ev, RECORDS, SETTINGS, judged=False, embedded=True)
    assert unjudged['stage3_near_duplicates'] is None and '| – (–) |' in summary_markdown([unjudged])


def test_plot_is_a_png(tmp_path: Path) -> None:
    from PIL import Image
    pool, ev = load_corpus(FIXTURES / 'pool.jsonl'), load_corpus(FIXTURES / 'eval.json')
    s = summarise(pool, ev, RECORDS, SETTINGS, judged=True, embedded=True)
    path = plot_cosines(tmp_path / 'x.png', RECORDS, s)
    with Image.open(path) as img:
        assert img.format == 'PNG' and img.size[0] > 300


@pytest.mark.parametrize('suffix', ['.jsonl', '.json', '.parquet'])
def test_write_clean_keeps_format_and_drops_flagged(tmp_path: Path, suffix: str) -> None:
    if suffix == '.parquet':
        pytest.importorskip('pyarrow')
    from evalscope_phys.audit.corpus import write_records
    src = tmp_path / f'pool{suffix}'
    write_records(src, read_corpus_rows(FIXTURES / 'pool.jsonl'), like=src)
    pool = load_corpus(src)
    path, removed = write_clean(pool, {'p-gas', 'p-lens'}, tmp_path / 'out')
    assert path.suffix == suffix and removed == 2
    kept = read_corpus_rows(path)
    assert [r['uid'] for r in kept] == [i.id for i in pool.items if i.id not in ('p-gas', 'p-lens')]
    assert kept[0] == json.loads((FIXTURES / 'pool.jsonl').read_text().splitlines()[0])
