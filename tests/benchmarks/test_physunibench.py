"""PhysUniBench: both English files with figures, final answers taken from worked solutions, judge fallback."""
import json
import logging
import shutil

import pytest
from evalscope.api.messages import ContentImage

import evalscope_phys.benchmarks.physunibench  # noqa: F401  (registers the benchmark)
from conftest import BenchmarkSetup
from evalscope_phys.benchmarks.physunibench import parse_mcq_options, reference_final_answer
from evalscope_phys.serve.replay import replay_server

BENCH = BenchmarkSetup('physunibench')
FOLDER = BENCH.sample
REPLAY, adapter, samples = BENCH.replay, BENCH.adapter, BENCH.load
NAME = 'physunibench'


def test_sample_folder_loads_both_files_with_figures():
    data = samples(FOLDER)
    assert {k: len(v) for k, v in data.items()} == {'open_ended': 5, 'multiple_choice': 3}
    oe = {s.metadata['id']: s for s in data['open_ended']}
    assert oe[900].target == 'E = 1\\,\\text{J}' and oe[900].metadata['reference_from_solution']
    assert oe[903].metadata['reference_from_solution'] is False
    assert oe[903].target.endswith('the induced current circulates clockwise.'), 'no final answer: the full solution'
    [message] = oe[902].input
    assert isinstance(message.content[0], ContentImage) and message.content[0].image.startswith('data:image/png')
    assert '<image>' not in message.content[1].text and '\\boxed{}' in message.content[1].text
    assert oe[900].metadata['solution'].startswith('Step 1\nThe elastic energy')  # for error-analysis
    mcq = data['multiple_choice'][0]
    assert mcq.metadata['solution']  # the record's `parsing`, the worked explanation
    assert mcq.target == 'C' and len(mcq.choices) == 4
    assert mcq.input[0].content[1].text.endswith('C. Segment 2\nD. Segment 4')


def test_the_hub_layout_with_an_images_folder_loads(tmp_path):
    shutil.copytree(FOLDER, tmp_path / 'hub')
    (tmp_path / 'hub' / 'images_full').rename(tmp_path / 'hub' / 'images')
    assert sum(len(v) for v in samples(tmp_path / 'hub').values()) == 8


@pytest.mark.parametrize('solution, expected', [
    ('Step 1\n$F = ma$\n\n**Answer**\n$F = 12\\,\\text{N}$', 'F = 12\\,\\text{N}'),
    ('We get the result.\n\nFinal answer: $v = 3\\,\\text{m/s}$', 'v = 3\\,\\text{m/s}'),
    ('The current flows clockwise when viewed from above.', None),
    ('Every result is given in the steps above.', None),
    ('', None),
])
def test_final_answer_of_a_worked_solution(solution, expected):
    assert reference_final_answer(solution) == expected


def test_options_must_be_exactly_a_to_d():
    assert parse_mcq_options('A. 1 m\n\nB. 2 m\n\nC. 3 m\n\nD. 4 m') == {'A': '1 m', 'B': '2 m', 'C': '3 m', 'D': '4 m'}
    assert parse_mcq_options('A. 1\nB. 2\nC. 3') == {}
    assert parse_mcq_options(None) == {}


def test_broken_rows_and_escaping_images_are_counted_not_fatal(tmp_path, caplog):
    folder = tmp_path / 'pub'
    shutil.copytree(FOLDER, folder)
    (tmp_path / 'outside.png').write_bytes((FOLDER / 'images_full' / '10.png').read_bytes())
    oe = json.loads((folder / 'PhysUnivBench_en_OE.json').read_text())
    oe += [{**oe[0], 'id': 1, 'image': '../outside.png'}, {**oe[0], 'id': 2, 'image': '77.jpg'},
           {**oe[0], 'id': 3, 'answer': ''}, {**oe[0], 'id': 4, 'question': 17}, 'not a record']
    (folder / 'PhysUnivBench_en_OE.json').write_text(json.dumps(oe))
    mcq = json.loads((folder / 'PhysUnivBench_en_MCQ.json').read_text())
    mcq += [{**mcq[0], 'id': 5, 'options': 'A. x\nB. y'}, {**mcq[0], 'id': 6, 'answer': 'E'}]
    (folder / 'PhysUnivBench_en_MCQ.json').write_text(json.dumps(mcq))
    with caplog.at_level(logging.WARNING):
        data = samples(folder)
    assert {k: len(v) for k, v in data.items()} == {'open_ended': 5, 'multiple_choice': 3}
    log = caplog.text
    assert 'image path escapes the dataset folder (ids: open_ended:1)' in log
    assert 'image missing (ids: open_ended:2)' in log
    assert 'no reference answer (ids: open_ended:3)' in log
    assert 'no question text (ids: open_ended:4)' in log
    assert 'not a JSON object (ids: open_ended:?)' in log
    assert 'options are not exactly A-D (ids: multiple_choice:5)' in log
    assert 'answer is not an option letter (ids: multiple_choice:6)' in log
    assert '1 open-ended reference solution(s) state no final answer' in log and 'open_ended:903' in log


#: the sample replies (physunibench_replay.jsonl) by id: (lenient, strict, scored, judged) with the stub judge
DEMO_VERDICTS = {
    900: (1.0, 1.0, 1.0, 0.0),  # as the solution writes it
    901: (1.0, 1.0, 1.0, 0.0),  # 2.4e-5 C for 24 microcoulomb
    902: (0.0, 0.0, 1.0, 0.0),  # wrong range
    903: (1.0, 1.0, 0.0, 1.0),  # the solution states no final answer: judged against it
    904: (1.0, 1.0, 1.0, 0.0),  # the period in another form
    10: (1.0, 1.0, 1.0, 0.0),   # ANSWER: C
    11: (0.0, 0.0, 1.0, 0.0),   # ANSWER: A, key B
    12: (1.0, 1.0, 1.0, 0.0),   # ANSWER: B
}
JUDGE_RULE = {'match': ["Candidate's final answer", 'points up and grows steadily'], 'judge': True,
              'response': '{"case": "{case}", "reasoning": "both say clockwise seen from above", '
                          '"verdict": "equivalent"}'}


@pytest.fixture(scope='module')
def judged_run(tmp_path_factory):
    from conftest import run_evalscope_eval

    records = [json.loads(line) for line in REPLAY.read_text().splitlines() if line.strip()] + [JUDGE_RULE]
    work = tmp_path_factory.mktemp('physunibench') / 'run'
    with replay_server(records) as url:
        judge = {'strategy': 'auto', 'models': [{'model_id': 'stub-judge', 'api_url': url, 'api_key': 'EMPTY',
                                                 'generation_config': {'temperature': 0.0, 'timeout': 20}}]}
        return run_evalscope_eval(url, [NAME], {NAME: {'local_path': str(FOLDER)}}, work, judge=judge)


@pytest.mark.e2e
def test_evalscope_cli_scores_both_files_and_judges_the_unanswered_solution(judged_run):
    assert judged_run.process.returncode == 0, judged_run.process.stderr[-3000:]
    report = judged_run.reports[NAME]
    assert report['primary_metric_identity']['name'] == 'lenient_acc'
    assert report['execution_summary']['requested'] == 8 and report['execution_summary']['errored'] == 0
    reviews = {r['sample_score']['sample_metadata']['id']: r['sample_score']['score'] for r in judged_run.reviews(NAME)}
    for rid, (lenient, strict, scored, judged) in DEMO_VERDICTS.items():
        value = reviews[rid]['value']
        got = (value.get('lenient_acc'), value.get('strict_acc'), value.get('scored'), value.get('judged'))
        assert got == (lenient, strict, scored, judged), (rid, value)
    assert judged_run.metric(NAME, 'judged')['score'] == pytest.approx(1 / 8)
    assert judged_run.metric(NAME, 'lenient_acc')['score'] == pytest.approx(6 / 8)


@pytest.mark.integration
def test_replayed_reference_answers_score_where_a_final_answer_is_extracted(shared_data, tmp_path, evalscope_eval):
    """The first 150 open-ended and 50 multiple-choice rows have figures in ../shared/data/physunibench.

    Each open-ended solution's final answer, boxed, and each answer key as ``ANSWER: X``, are replayed
    as the model's reply; both must score >= 0.9. Solutions with no extractable final answer are
    counted and listed (unscored without a judge, never a silent 0).
    """
    folder = shared_data / 'physunibench'
    oe = json.loads((folder / 'PhysUnivBench_en_OE.json').read_text())[:150]
    mcq = json.loads((folder / 'PhysUnivBench_en_MCQ.json').read_text())[:50]
    records, unanswered = {}, []
    for row in oe:
        reference = reference_final_answer(row['answer'])
        if reference is None:
            unanswered.append(row['id'])
        reply = f'Final answer: \\boxed{{{reference}}}' if reference is not None else row['answer']
        records.setdefault((row['question'].replace('<image>', '').strip(), '\\boxed{}'), reply)
    for row in mcq:
        records.setdefault((row['question'].replace('<image>', '').strip(), 'ANSWER: X'), f"ANSWER: {row['answer']}")
    replay = [{'match': list(match), 'response': reply} for match, reply in records.items()]
    with replay_server(replay) as url:
        run = evalscope_eval(url, [NAME], {NAME: {'local_path': str(folder)}}, tmp_path / 'run', timeout=900)
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    assert run.reports[NAME]['execution_summary']['requested'] == 200
    scores = [(r['sample_score']['sample_metadata'], r['sample_score']['score']) for r in run.reviews(NAME)]
    extracted = [(m['id'], s) for m, s in scores if m['subset'] == 'open_ended' and m['reference_from_solution']]
    choices = [s['value']['lenient_acc'] for m, s in scores if m['subset'] == 'multiple_choice']
    missed = [(rid, s['explanation'], s['extracted_prediction']) for rid, s in extracted
              if s['value'].get('lenient_acc') != 1.0]
    unscored = sorted(m['id'] for m, s in scores if m['subset'] == 'open_ended' and not m['reference_from_solution'])
    print(f'\nphysunibench OE: {len(extracted)} with an extracted final answer, {len(missed)} of them missed; '
          f'{len(unscored)} without one (ids {unscored}); MCQ {sum(choices)}/{len(choices)}')
    assert unscored == sorted(unanswered)
    assert all(s['value']['scored'] == 0.0 and 'strict_acc' not in s['value']
               for m, s in scores if m['id'] in unanswered and m['subset'] == 'open_ended')
    assert len(extracted) + len(unscored) == 150 and len(choices) == 50
    assert 1 - len(missed) / len(extracted) >= 0.9, missed
    assert sum(choices) / len(choices) >= 0.9
