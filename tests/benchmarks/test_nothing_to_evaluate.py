"""A benchmark whose rows are all excluded stops the run with one message naming the reasons."""
import json

import pytest

from conftest import load_subsets, run_evalscope_eval
from test_unreadable_files import ADAPTERS, FOLDER_FILES
from evalscope_phys.benchmarks.base import NothingToEvaluateError
from evalscope_phys.serve.replay import replay_server

QUESTION_ONLY = [{'id': i, 'tag': 'MECHANICS', 'content': f'Problem {i} of our own, no answer given.', 'answer': ''}
                 for i in range(3)] + [{'id': 9, 'tag': 'OPTICS', 'content': '', 'answer': 'x'}]


def test_all_rows_excluded_is_an_error_naming_the_reasons(tmp_path):
    path = tmp_path / 'questions.json'
    path.write_text(json.dumps(QUESTION_ONLY))
    with pytest.raises(NothingToEvaluateError) as info:
        load_subsets('phybench', path)
    message = str(info.value)
    assert message.startswith(f'phybench: nothing to evaluate in {path}: 4 record(s) excluded')
    assert '(3 no reference answer; 1 no problem text)' in message
    assert 'dataset_args.phybench.local_path' in message


def test_no_row_in_the_chosen_subsets_is_an_error_too(tmp_path):
    path = tmp_path / 'one.json'
    path.write_text(json.dumps([{'id': 1, 'tag': 'MECHANICS', 'content': 'A problem.', 'answer': '2'}]))
    with pytest.raises(NothingToEvaluateError, match=r"no record belongs to the chosen subsets \['optics'\]"):
        load_subsets('phybench', path, subset_list=['optics'])


@pytest.mark.e2e
def test_evalscope_eval_on_the_question_only_release_exits_non_zero_with_one_line(shared_data, tmp_path):
    with replay_server([{'match': 'never asked', 'response': 'x'}]) as url:
        run = run_evalscope_eval(url, ['phybench'],
                                 {'phybench': {'local_path': str(shared_data / 'phybench' / 'PHYBench-onlyques_v1.json')}},
                                 tmp_path / 'run')
    assert run.process.returncode == 1
    errors = [line for line in run.process.stderr.splitlines() if line.startswith('evalscope-phys: ')]
    assert errors == [errors[0]] and 'phybench: nothing to evaluate' in errors[0], run.process.stderr[-2000:]
    assert '399 no reference answer' in errors[0]
    assert 'Traceback' not in run.process.stderr


@pytest.mark.parametrize('adapter', ADAPTERS)
def test_every_adapter_names_the_reasons(tmp_path, adapter):
    """One load skeleton for all: physics_yale and cmphysbench once dropped the reasons ("no record belongs"),
    and phybench, ugphysics and olympiadbench_physics crashed on a row that is not an object."""
    rows = json.dumps([1, 2, 'three'])
    if adapter in FOLDER_FILES:  # one file per subset: each of them holds the three rows
        for name in ('PhysUnivBench_en_OE.json', 'PhysUnivBench_en_MCQ.json'):
            (tmp_path / name).write_text(rows)
        path, count = tmp_path, 6
    else:
        path, count = tmp_path / 'rows.json', 3
        path.write_text(rows)
    with pytest.raises(NothingToEvaluateError, match=rf'{count} record\(s\) excluded \({count} not a JSON object\)'):
        load_subsets(adapter, path)
