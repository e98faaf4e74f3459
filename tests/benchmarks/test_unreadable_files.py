"""A dataset file that cannot be read as its format stops the run with one line: ``<file>: <what is wrong>``."""
import re

import pytest

from conftest import load_subsets, run_evalscope_eval
from evalscope_phys.benchmarks.base import UnreadableDatasetError, read_rows
from evalscope_phys.serve.replay import replay_server

#: every adapter that reads a record file given as ``local_path``
ADAPTERS = ['phybench', 'physreason', 'ugphysics', 'physolym', 'phyx_oe_rules', 'omniphys', 'olympiadbench_physics',
            'seephys', 'physics_yale', 'cmphysbench', 'physunibench']

#: file name -> (bytes, what the message says)
BROKEN = {
    'text.json': (b'These are my notes, not JSON.\n', 'not JSON (line 1 column 1: Expecting value)'),
    'truncated.json': (b'[{"id": 1, "question": "q"', 'not JSON (line 1 column 27: Expecting'),
    'scalar.json': (b'42', 'expected a JSON list of records, got int'),
    'binary.json': (b'\xff\xfe\x00\x01PK', 'not UTF-8 text (byte 0)'),
    'text.jsonl': (b'notes\nmore notes\n', 'not JSONL: no line is a JSON value (line 1: Expecting value'),
    'text.parquet': (b'not a parquet file at all', 'not a readable parquet file'),
}


@pytest.mark.parametrize('name', sorted(BROKEN))
def test_each_format_names_the_file_and_the_fault(tmp_path, name):
    content, fault = BROKEN[name]
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(UnreadableDatasetError) as info:
        read_rows(path)
    assert str(info.value).startswith(f'{path}: {fault}')


def test_a_jsonl_file_with_some_good_lines_keeps_them(tmp_path):
    path = tmp_path / 'mixed.jsonl'
    path.write_text('{"id": 1}\nbroken\n{"id": 2}\n', encoding='utf-8')
    assert read_rows(path) == [{'id': 1}, {'id': 2}]


#: adapters that read fixed file names from a folder: the name of one of them
FOLDER_FILES = {'physunibench': 'PhysUnivBench_en_OE.json'}


@pytest.mark.parametrize('adapter', ADAPTERS)
def test_every_adapter_stops_on_a_text_file_given_as_json(tmp_path, adapter):
    path = tmp_path / FOLDER_FILES.get(adapter, 'notes.json')
    path.write_text('These are my notes, not JSON.\n', encoding='utf-8')
    with pytest.raises(UnreadableDatasetError, match='^' + re.escape(str(path)) + ': not JSON'):
        load_subsets(adapter, tmp_path if adapter in FOLDER_FILES else path)


@pytest.mark.e2e
@pytest.mark.parametrize('adapter, name', [('phybench', 'text.json'), ('cmphysbench', 'text.jsonl'),
                                           ('olympiadbench_physics', 'text.parquet')])
def test_evalscope_eval_prints_one_line_and_fails(tmp_path, adapter, name):
    content, fault = BROKEN[name]
    path = tmp_path / name
    path.write_bytes(content)
    with replay_server([{'match': 'never asked', 'response': 'x'}]) as url:
        run = run_evalscope_eval(url, [adapter], {adapter: {'local_path': str(path)}}, tmp_path / 'run')
    assert run.process.returncode == 1, run.process.stderr[-2000:]
    errors = [line for line in run.process.stderr.splitlines() if line.startswith('evalscope-phys: ')]
    assert len(errors) == 1 and errors[0].startswith(f'evalscope-phys: {path}: {fault}'), run.process.stderr[-2000:]
    assert 'Traceback' not in run.process.stderr
