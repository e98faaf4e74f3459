"""Split a pool file into blocks that workers read on their own, with the row numbers the local engine uses.

A block is the unit of distributed work and of resumption: its rows are fixed by the file alone
(a Parquet row-group slice, a byte range of whole JSONL lines), so block ``k`` of a re-run is the
block ``k`` of the interrupted run. Row numbers are those of :func:`.corpus.load_corpus`: a JSONL
row is a non-blank line, read with the same universal-newline rule. A JSON list cannot be read in
parts, so the driver parses it once (as the local engine does) and writes its texts to a Parquet
file in the work directory, which the workers then read like any Parquet pool.
"""
from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Sequence, Tuple

from .corpus import CorpusError, check_text_fields, item_text, read_corpus_rows

DEFAULT_BLOCK_ROWS = 50_000
_PLAN_VERSION = 1  # bump when block boundaries or text extraction change: old resume state is then ignored


@dataclass(frozen=True)
class Block:
    """Rows ``start .. start + rows - 1`` of the pool; where they are depends on the plan's kind."""

    index: int
    start: int
    rows: int
    row_group: int = -1
    """Parquet: the row group, and ``offset`` the first row inside it."""
    offset: int = 0
    byte_start: int = 0
    """JSONL: the byte range of the block's lines."""
    byte_stop: int = 0


@dataclass(frozen=True)
class PoolPlan:
    """How workers read a pool: the file, its kind (``parquet`` or ``jsonl``), the text fields, the blocks."""

    source: Path
    """The pool as the user named it."""
    path: Path
    """The file workers read (for a JSON list: the Parquet copy of its texts, one column ``text``)."""
    kind: str
    fields: Tuple[str, ...]
    blocks: Tuple[Block, ...]
    digest: str
    """Names this file state and blocking; resume state is kept under it."""

    @property
    def rows(self) -> int:
        return sum(b.rows for b in self.blocks)


def _file_digest(path: Path, fields: Sequence[str], block_rows: int) -> str:
    st = path.stat()
    key = json.dumps([_PLAN_VERSION, str(path.resolve()), st.st_size, st.st_mtime_ns, list(fields), block_rows])
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def _logical_lines(data: bytes) -> List[str]:
    """Non-blank lines as ``open(encoding='utf-8')`` yields them (\\n, \\r and \\r\\n all end a line)."""
    with io.TextIOWrapper(io.BytesIO(data), encoding='utf-8') as fh:
        return [line for line in fh if line.strip()]


def _rows_in_line(raw: bytes) -> int:
    """Rows in one binary line (``\n``-terminated): usually 0 or 1; a bare ``\r`` also ends a text line."""
    body = raw[:-2] if raw.endswith(b'\r\n') else raw
    if b'\r' in body:
        return len(_logical_lines(raw))
    return 1 if raw.decode('utf-8').strip() else 0


def _jsonl_blocks(path: Path, block_rows: int) -> Iterator[Block]:
    start = rows = k = byte_start = pos = 0
    with path.open('rb') as fh:
        for raw in fh:  # binary lines end at \n only, so a \r\n pair never straddles two blocks
            pos += len(raw)
            rows += _rows_in_line(raw)
            if rows >= block_rows:
                yield Block(index=k, start=start, rows=rows, byte_start=byte_start, byte_stop=pos)
                k, start, rows, byte_start = k + 1, start + rows, 0, pos
    if rows:
        yield Block(index=k, start=start, rows=rows, byte_start=byte_start, byte_stop=pos)


def _parquet_blocks(path: Path, block_rows: int) -> Iterator[Block]:
    import pyarrow.parquet as pq
    meta = pq.ParquetFile(path).metadata
    start = k = 0
    for rg in range(meta.num_row_groups):
        n = meta.row_group(rg).num_rows
        for offset in range(0, n, block_rows):
            rows = min(block_rows, n - offset)
            yield Block(index=k, start=start, rows=rows, row_group=rg, offset=offset)
            k, start = k + 1, start + rows


def _texts_to_parquet(source: Path, fields: Sequence[str], target: Path, block_rows: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    rows = read_corpus_rows(source)
    for i, row in enumerate(rows):
        check_text_fields(source, i, row, fields)
    texts = [item_text(row, fields) for row in rows]
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + '.tmp')
    pq.write_table(pa.table({'text': pa.array(texts, pa.string())}), tmp, row_group_size=block_rows)
    tmp.replace(target)


def plan_pool(path: Path, fields: Sequence[str], work_dir: Path, block_rows: int = DEFAULT_BLOCK_ROWS) -> PoolPlan:
    """Blocks of about ``block_rows`` rows of the pool at ``path``, reading the text ``fields``."""
    path = Path(path)
    if not path.is_file():
        raise CorpusError(f'{path}: no such file')
    if block_rows < 1:
        raise ValueError(f'block_rows must be >= 1, got {block_rows}')
    fields = tuple(fields)
    if not fields:
        raise ValueError('plan_pool needs the text fields (resolve them first, e.g. with load_corpus)')
    digest = _file_digest(path, fields, block_rows)
    suffix = path.suffix.lower()
    if suffix == '.parquet':
        return PoolPlan(path, path, 'parquet', fields, tuple(_parquet_blocks(path, block_rows)), digest)
    if suffix == '.jsonl':
        return PoolPlan(path, path, 'jsonl', fields, tuple(_jsonl_blocks(path, block_rows)), digest)
    if suffix == '.json':
        texts = Path(work_dir) / f'{path.stem}-{digest}.texts.parquet'
        if not texts.is_file():
            _texts_to_parquet(path, fields, texts, block_rows)
        return PoolPlan(path, texts, 'parquet', ('text',), tuple(_parquet_blocks(texts, block_rows)), digest)
    raise CorpusError(f'{path}: unsupported file type {suffix!r} (use .json, .jsonl or .parquet)')


def read_block_texts(plan: PoolPlan, block: Block) -> List[str]:
    """The compared texts of one block, exactly as :func:`.corpus.load_corpus` builds them."""
    if plan.kind == 'parquet':
        import pyarrow.parquet as pq
        table = pq.ParquetFile(plan.path).read_row_group(block.row_group, columns=list(plan.fields))
        rows = table.slice(block.offset, block.rows).to_pylist()
    else:
        with plan.path.open('rb') as fh:
            fh.seek(block.byte_start)
            data = fh.read(block.byte_stop - block.byte_start)
        rows = []
        for i, line in enumerate(_logical_lines(data)):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f'{plan.source}: row {block.start + i}: not valid JSON ({exc.msg})') from exc
            if not isinstance(row, dict):
                raise CorpusError(f'{plan.source}: row {block.start + i} is a {type(row).__name__}, not an object')
            rows.append(row)
    if len(rows) != block.rows:
        raise CorpusError(f'{plan.source}: block {block.index} has {len(rows)} rows, planned {block.rows}: '
                          'the file changed while the audit ran; start again')
    if plan.kind != 'parquet':  # a Parquet file has one schema: every row has the columns
        for i, row in enumerate(rows):
            check_text_fields(plan.source, block.start + i, row, plan.fields)
    return [item_text(row, plan.fields) for row in rows]


def rows_texts(plan: PoolPlan, start: int, stop: int) -> List[str]:
    """Texts of global rows ``start .. stop - 1`` (the driver reads an in-pool chunk with this)."""
    out: List[str] = []
    for b in plan.blocks:
        if b.start + b.rows <= start or b.start >= stop:
            continue
        texts = read_block_texts(plan, b)
        out += texts[max(0, start - b.start):stop - b.start]
    return out
