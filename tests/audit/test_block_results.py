"""Resume blocks of the Ray audit: no pickle, a content check, and a damaged block computed again."""
import pickle
from pathlib import Path

import numpy as np
import pytest

from evalscope_phys.audit.block_results import BlockError, BlockResults, dumps, loads
from evalscope_phys.audit.neighbours import Shortlist
from evalscope_phys.audit.ngram_join import BlockHits


def _hits() -> BlockHits:
    return BlockHits(np.array([0, 2], np.int64), np.array([5, 7], np.int64), np.array([0.5, 0.75]), 9, 50)


def _search():
    return (Shortlist(np.array([[1, -1]]), np.array([[0.5, -np.inf]], np.float32), np.array([[0.5, -np.inf]])),
            np.array([0, 3]), np.array([0.1, 0.2]), 1.5)


@pytest.mark.parametrize('result', [_hits(), _search(), 12], ids=['stage1', 'search', 'embed'])
def test_every_result_kind_round_trips(result):
    back = loads(dumps(result))
    assert type(back) is type(result)
    assert repr(back) == repr(result)


def test_a_planted_pickle_is_never_loaded(tmp_path: Path):
    marker = tmp_path / 'ran'

    class Payload:
        def __reduce__(self):
            return (Path.touch, (marker,))

    store = BlockResults(tmp_path, 'stage1-x', note=lambda m: None)
    store.dir.mkdir(parents=True)
    (store.dir / '000000.pkl').write_bytes(pickle.dumps(Payload()))
    (store.dir / '000000.npz').write_bytes(pickle.dumps(Payload()))  # a pickle under the new name too
    assert not store.has(0)
    assert not marker.exists()


@pytest.mark.parametrize('damage', ['truncate', 'tamper', 'garbage'])
def test_a_damaged_block_is_computed_again_with_one_note(tmp_path: Path, damage):
    notes = []
    store = BlockResults(tmp_path, 'stage1-x', note=notes.append)
    store.save(0, _hits())
    path = store.dir / '000000.npz'
    data = path.read_bytes()
    if damage == 'truncate':
        path.write_bytes(data[:len(data) // 2])
    elif damage == 'tamper':
        other = BlockHits(np.array([0, 2], np.int64), np.array([5, 8], np.int64), np.array([0.5, 0.75]), 9, 50)
        tampered = dumps(other)
        # keep the stored check, replace the arrays: the check must catch it
        import io, zipfile
        src, dst = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
        new = zipfile.ZipFile(io.BytesIO(tampered))
        with zipfile.ZipFile(dst, 'w') as out:
            for name in src.namelist():
                out.writestr(name, (src if name == 'check.npy' else new).read(name))
        path.write_bytes(dst.getvalue())
    else:
        path.write_bytes(b'\x00' * 40)
    fresh = BlockResults(tmp_path, 'stage1-x', note=notes.append)
    assert not fresh.has(0)
    assert len(notes) == 1 and 'computing it again' in notes[0] and '\n' not in notes[0]
    assert not path.exists()
    fresh.save(0, _hits())
    assert repr(BlockResults(tmp_path, 'stage1-x').load(0)) == repr(_hits())


def test_loads_refuses_an_unregistered_type():
    with pytest.raises(TypeError):
        dumps({'a': 1})
    with pytest.raises(BlockError):
        loads(b'not a block')
