"""PhysReason: release and converted layouts, per-sub-answer scoring, problem shares, judge per sub-answer."""
import json
import logging

import pytest
from evalscope.api.evaluator import TaskState

from conftest import BenchmarkSetup
from evalscope_phys.benchmarks.physreason import sub_answer_metrics, worked_solution
from evalscope_phys.scoring import score_answer
from evalscope_phys.serve.replay import replay_server

BENCH = BenchmarkSetup('physreason')
SAMPLE, REPLAY, adapter, loaded = BENCH.sample, BENCH.replay, BENCH.adapter, BENCH.load


def ids(data):
    return {k: [s.metadata['id'] for s in v] for k, v in data.items()}


def test_sample_loads_by_difficulty_and_excludes_mismatched_answers(caplog):
    with caplog.at_level(logging.WARNING):
        data = loaded(SAMPLE)
    assert ids(data) == {'knowledge': ['pr-01'], 'easy': ['pr-02'], 'medium': ['pr-03'], 'hard': ['pr-04']}
    assert 'answers do not match the sub-questions (ids: pr-05)' in caplog.text
    prompt = data['medium'][0].input[0].text
    assert 'Figure description: A block sits on a wedge' in prompt and '(2) Find the smallest' in prompt
    assert 'has 2 sub-questions' in prompt


def test_explanation_steps_become_the_worked_solution_in_the_metadata(shared_data):
    """Sub-questions and steps in numeric order (step_10 after step_2), for `evalscope-phys error-analysis`."""
    steps = {'sub_question_2': {'step_10': 'C.', 'step_2': 'B.'}, 'sub_question_1': {'step_1': 'A.'}}
    assert worked_solution(steps) == 'Sub-question 1:\nA.\n\nSub-question 2:\nB.\nC.'
    assert worked_solution(None) == ''
    assert worked_solution({'sub_question_1': 'Only text.'}) == 'Sub-question 1:\nOnly text.'
    demo = {s.metadata['id']: s for v in loaded(SAMPLE).values() for s in v}
    assert demo['pr-02'].metadata['solution'].startswith('Sub-question 1:\nIn series the resistances add')
    assert 'In series the resistances add' not in demo['pr-02'].input
    path = shared_data / 'physreason' / 'physreason_sample_problems.json'
    real = [s for v in loaded(path).values() for s in v]
    assert all(s.metadata['solution'].startswith('Sub-question 1:\n') for s in real)


def test_release_folder_of_problem_json_files_loads_with_folder_ids(tmp_path):
    for record in json.loads(SAMPLE.read_text()):
        folder = tmp_path / 'PhysReason-mini' / f'x-{record.pop("problem_id")}'
        folder.mkdir(parents=True)
        (folder / 'problem.json').write_text(json.dumps(record))
    (tmp_path / 'PhysReason-mini' / 'x-bad').mkdir()
    (tmp_path / 'PhysReason-mini' / 'x-bad' / 'problem.json').write_text('{broken')
    data = loaded(tmp_path / 'PhysReason-mini')
    assert ids(data) == {'knowledge': ['x-pr-01'], 'easy': ['x-pr-02'], 'medium': ['x-pr-03'], 'hard': ['x-pr-04']}


def test_converted_form_with_all_fields_loads(tmp_path):
    converted = [{'problem_id': r['problem_id'], 'answer': {'value': r['answer'], 'answer_type': 'textual'},
                  'all_fields': {k: v for k, v in r.items() if k != 'answer'}} for r in json.loads(SAMPLE.read_text())]
    path = tmp_path / 'physreason_converted.json'
    path.write_text(json.dumps(converted))
    assert ids(loaded(path)) == ids(loaded(SAMPLE))


# (response, references of the sub-questions, the strict verdict of each sub-answer, in order)
SPLITS = [
    ('\\boxed{1} then \\boxed{2}', ['1', '2'], [True, True]),
    ('scratch \\boxed{9} ... \\boxed{1} and \\boxed{2}', ['1', '2'], [True, True]),  # extra early boxes: the last ones count
    ('only \\boxed{1}', ['1', '2', '3'], [True, False, False]),
    ('\\boxed{2} then \\boxed{1}', ['1', '2'], [False, False]),  # in order, not in any order
    ('', ['1', '2'], [False, False]),
]


@pytest.mark.parametrize('response,references,strict', SPLITS)
def test_boxes_are_matched_to_sub_questions_in_order(response, references, strict):
    verdict = score_answer(references, response, multiple='ordered')
    assert [p.strict for p in verdict.parts] == strict or (not response and verdict.reason == 'no_answer')


def sub(strict, scored=True, eed=None):
    return {'strict': strict, 'lenient': strict, 'eed': eed, 'scored': scored}


def test_problem_score_is_the_share_of_correct_sub_answers_and_all_correct_is_strict():
    assert sub_answer_metrics([sub(True, eed=100.0), sub(False, eed=40.0), sub(True, eed=100.0)]) == {
        'scored': 1.0, 'strict_acc': pytest.approx(2 / 3), 'lenient_acc': pytest.approx(2 / 3),
        'eed': 80.0, 'all_correct': 0.0, 'strict_acc_all': pytest.approx(2 / 3),
        'lenient_acc_all': pytest.approx(2 / 3)}
    assert sub_answer_metrics([sub(True), sub(True)])['all_correct'] == 1.0


def test_a_problem_with_unscored_sub_answers_is_never_a_one():
    # one right, three unscored: the problem is not scored (scored = 0.25); over all its answers it is 0.25
    value = sub_answer_metrics([sub(True)] + [sub(None, scored=False)] * 3)
    assert value == {'scored': 0.25, 'strict_acc_all': 0.25, 'lenient_acc_all': 0.25}
    assert sub_answer_metrics([sub(None, scored=False)]) == {'scored': 0.0, 'strict_acc_all': 0.0, 'lenient_acc_all': 0.0}


def scored_sample(problem_id, response):
    a = adapter({'local_path': str(SAMPLE)})
    sample = next(s for v in a.load_dataset().values() for s in v if s.metadata['id'] == problem_id)
    state = TaskState(model='x', sample=sample, messages=[], completed=True)
    return a.match_score(response, response, sample.target, state)


def test_each_sub_answer_is_scored_with_units():
    score = scored_sample('pr-02', '\\boxed{480\\,\\mathrm{mA}} \\boxed{7.2\\,\\mathrm{V}} \\boxed{6.4\\,\\mathrm{W}}')
    assert [s['reason'] for s in score.metadata['sub_verdicts']] == ['unit_converted', 'equivalent', 'not_equivalent']
    assert score.value['strict_acc'] == pytest.approx(2 / 3) and score.value['all_correct'] == 0.0


def run_ok(run, n):
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    assert len(run.reviews('physreason')) == n


@pytest.mark.e2e
def test_evalscope_eval_with_a_judge_for_the_text_sub_answer_only(tmp_path, evalscope_eval):
    with replay_server(REPLAY) as url:
        judge = {'models': [{'model_id': 'stub-judge', 'api_url': url, 'api_key': 'EMPTY'}]}
        run = evalscope_eval(url, ['physreason'], {'physreason': {'local_path': str(SAMPLE)}}, tmp_path / 'run',
                             judge=judge)
    run_ok(run, 4)
    # pr-01 2/2, pr-02 2/3, pr-03 2/2, pr-04 1/2 by rule + 1/2 by the judge
    assert run.metric('physreason', 'strict_acc')['score'] == pytest.approx((1 + 2 / 3 + 1 + 1) / 4, abs=1e-4)
    assert run.metric('physreason', 'all_correct')['score'] == pytest.approx(3 / 4)
    assert run.metric('physreason', 'judged')['score'] == pytest.approx(1 / 4)
    assert run.metric('physreason', 'cannot_judge')['score'] == 0.0


@pytest.mark.e2e
def test_a_judge_that_cannot_judge_is_counted_and_the_rule_score_stays(tmp_path, evalscope_eval):
    records = [json.loads(line) for line in REPLAY.read_text().splitlines()]
    for record in records:
        if record.get('judge'):
            record['response'] = ('{"case": "{case}", "reasoning": "the reference is too short to tell", '
                                  '"verdict": "cannot_judge"}')
    with replay_server(records) as url:
        judge = {'models': [{'model_id': 'stub-judge', 'api_url': url, 'api_key': 'EMPTY'}]}
        run = evalscope_eval(url, ['physreason'], {'physreason': {'local_path': str(SAMPLE)}}, tmp_path / 'run',
                             judge=judge)
    run_ok(run, 4)
    assert run.metric('physreason', 'cannot_judge')['score'] == pytest.approx(1 / 4)
    assert run.metric('physreason', 'strict_acc')['score'] == pytest.approx((1 + 2 / 3 + 1 + 1 / 2) / 4, abs=1e-4)


@pytest.mark.integration
def test_reference_answers_replayed_on_the_shared_sample_score_strict(tmp_path, evalscope_eval, shared_data):
    """Every sub-answer of the public sample, boxed in order, must come back strictly correct."""
    path = shared_data / 'physreason' / 'physreason_sample_problems.json'
    samples = [s for v in adapter({'local_path': str(path)}).load_dataset().values() for s in v]
    assert len(samples) == 5
    records = [{'match': s.input[0].text[-300:], 'response': ' '.join(f'\\boxed{{{a.strip("$")}}}'
                                                                     for a in s.metadata['answers'])} for s in samples]
    with replay_server(records) as url:
        run = evalscope_eval(url, ['physreason'], {'physreason': {'local_path': str(path)}}, tmp_path / 'run')
    run_ok(run, 5)
    subs = [(r['sample_score']['sample_metadata']['id'], v) for r in run.reviews('physreason')
            for v in r['sample_score']['score']['metadata']['sub_verdicts']]
    unscorable = [(rid, v['reason']) for rid, v in subs if not v['scored']]
    assert unscorable == []  # none on this sample; listed with reasons if that ever changes
    strict = [v['strict'] for _, v in subs]
    assert len(strict) == 12 and sum(strict) / len(strict) >= 0.95
