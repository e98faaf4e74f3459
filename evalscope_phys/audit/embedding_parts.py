"""The pool side of the stage-2 embedding cache on Ray: a Parquet dataset of (key, vector) rows.

One file per (model, pool file state, block), written whole by the worker that embedded the block
(write to a temporary name, then rename), so an interrupted run keeps every finished block and a
re-run embeds nothing it has. Each row's key is :func:`.embedding.text_key` (model + text hash),
the key of the SQLite cache; reading checks the keys against the block's texts, so a file that
does not belong to them is never used.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Sequence

import numpy as np

from .embedding import EmbeddingError


class EmbeddingParts:
    """The Parquet files of one model under ``root`` (shared storage on a multi-node cluster)."""

    def __init__(self, root: Path, model_id: str) -> None:
        self.model_id = model_id
        self.dir = Path(root) / hashlib.sha256(model_id.encode('utf-8')).hexdigest()[:16]

    def path(self, plan_digest: str, block: int) -> Path:
        return self.dir / f'{plan_digest}-{block:06d}.parquet'

    def has(self, plan_digest: str, block: int) -> bool:
        return self.path(plan_digest, block).is_file()

    def write(self, plan_digest: str, block: int, keys: Sequence[str], vecs: np.ndarray) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq
        vecs = np.ascontiguousarray(vecs, dtype=np.float32)
        dim = vecs.shape[1] if vecs.ndim == 2 else 0
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / 'model.txt').write_text(self.model_id + '\n', encoding='utf-8')
        column = pa.FixedSizeListArray.from_arrays(pa.array(vecs.reshape(-1), pa.float32()), dim)
        path = self.path(plan_digest, block)
        tmp = path.with_name(path.name + '.tmp')
        pq.write_table(pa.table({'key': pa.array(list(keys), pa.string()), 'vector': column}), tmp)
        tmp.replace(path)

    def read(self, plan_digest: str, block: int, keys: Sequence[str]) -> np.ndarray:
        """The block's vectors in row order; an error if the file holds other texts."""
        import pyarrow.parquet as pq
        path = self.path(plan_digest, block)
        table = pq.read_table(path)
        if table.column('key').to_pylist() != list(keys):
            raise EmbeddingError(f'{path} does not hold the vectors of this block\'s texts; delete it and re-run')
        column = table.column('vector').combine_chunks()
        dim = column.type.list_size
        return column.values.to_numpy(zero_copy_only=False).reshape(-1, dim).astype(np.float32, copy=False)
