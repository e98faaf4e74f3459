"""Pool blocks: the texts workers read, block by block, are load_corpus's texts, with its row numbers."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalscope_phys.audit.corpus import CorpusError, load_corpus
from evalscope_phys.audit.pool_blocks import plan_pool, read_block_texts, rows_texts

ROWS = [{'uid': f'u{i}', 'problem': f'problem {i} ' + 'word ' * (i % 7), 'solution': ['step a', f'step {i}'] if i % 3
         else None} for i in range(23)]


def _all_texts(plan):
    return [t for b in plan.blocks for t in read_block_texts(plan, b)]


def _jsonl(path: Path, newline: str = '\n') -> Path:
    lines = []
    for i, row in enumerate(ROWS):
        lines.append(json.dumps(row))
        if i % 5 == 0:
            lines.append('   ')  # blank lines are not rows
    path.write_bytes(newline.join(lines).encode('utf-8') + newline.encode())
    return path


@pytest.mark.parametrize('newline', ['\n', '\r\n', '\r'])
@pytest.mark.parametrize('block_rows', [1, 4, 100])
def test_jsonl_blocks_hold_the_rows_load_corpus_reads(tmp_path: Path, newline: str, block_rows: int) -> None:
    path = _jsonl(tmp_path / 'pool.jsonl', newline)
    corpus = load_corpus(path, ('problem', 'solution'))
    plan = plan_pool(path, corpus.text_fields, tmp_path / 'work', block_rows)
    assert plan.rows == len(corpus) == 23
    assert _all_texts(plan) == corpus.texts
    assert [b.start for b in plan.blocks] == [sum(b.rows for b in plan.blocks[:k]) for k in range(len(plan.blocks))]
    assert rows_texts(plan, 5, 17) == corpus.texts[5:17]


def test_parquet_row_groups_are_sliced_into_blocks(tmp_path: Path) -> None:
    path = tmp_path / 'pool.parquet'
    pq.write_table(pa.Table.from_pylist(ROWS), path, row_group_size=10)
    corpus = load_corpus(path, ('problem', 'solution'))
    plan = plan_pool(path, corpus.text_fields, tmp_path / 'work', 4)
    assert [(b.row_group, b.offset, b.rows) for b in plan.blocks] == [
        (0, 0, 4), (0, 4, 4), (0, 8, 2), (1, 0, 4), (1, 4, 4), (1, 8, 2), (2, 0, 3)]
    assert _all_texts(plan) == corpus.texts


def test_json_list_is_copied_once_to_parquet(tmp_path: Path) -> None:
    path = tmp_path / 'pool.json'
    path.write_text(json.dumps(ROWS))
    corpus = load_corpus(path)
    plan = plan_pool(path, corpus.text_fields, tmp_path / 'work', 6)
    assert plan.kind == 'parquet' and plan.path.parent == tmp_path / 'work' and plan.source == path
    assert _all_texts(plan) == corpus.texts
    again = plan_pool(path, corpus.text_fields, tmp_path / 'work', 6)
    assert again.digest == plan.digest and again.path.stat().st_mtime_ns == plan.path.stat().st_mtime_ns


def test_digest_follows_the_file_and_the_blocking(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / 'pool.jsonl')
    a = plan_pool(path, ('problem',), tmp_path, 5)
    assert plan_pool(path, ('problem',), tmp_path, 5).digest == a.digest
    assert plan_pool(path, ('problem',), tmp_path, 6).digest != a.digest
    assert plan_pool(path, ('problem', 'solution'), tmp_path, 5).digest != a.digest
    path.write_text(path.read_text() + json.dumps({'problem': 'one more'}) + '\n')
    assert plan_pool(path, ('problem',), tmp_path, 5).digest != a.digest


def test_bad_rows_name_the_row(tmp_path: Path) -> None:
    path = tmp_path / 'pool.jsonl'
    path.write_text('{"problem": "a"}\n{"problem": "b"}\n{not json\n[1, 2]\n')
    plan = plan_pool(path, ('problem',), tmp_path, 2)
    assert read_block_texts(plan, plan.blocks[0]) == ['a', 'b']
    with pytest.raises(CorpusError, match='row 2: not valid JSON'):
        read_block_texts(plan, plan.blocks[1])
    with pytest.raises(CorpusError, match='no such file'):
        plan_pool(tmp_path / 'missing.jsonl', ('problem',), tmp_path)
    with pytest.raises(ValueError, match='text fields'):
        plan_pool(path, (), tmp_path)
