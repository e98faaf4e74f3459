"""PhysOlym: the JSONL schema, language subsets, per-level results, rule scoring and the rules-first judge."""
import json
import logging
from pathlib import Path

import pytest
from evalscope.api.evaluator import TaskState
from evalscope.api.metric import SampleScore, Score

from conftest import BenchmarkSetup
from evalscope_phys.benchmarks.base import DatasetUnavailableError
from evalscope_phys.benchmarks.physolym import PER_LEVEL_AGGREGATION
from evalscope_phys.serve.replay import replay_server

BENCH = BenchmarkSetup('physolym')
SAMPLE, REPLAY, adapter, loaded = BENCH.sample, BENCH.replay, BENCH.adapter, BENCH.load


def test_sample_loads_by_language_keeping_pairs_and_levels(caplog):
    with caplog.at_level(logging.WARNING):
        data = loaded(SAMPLE)
    assert {k: sorted(s.metadata['id'] for s in v) for k, v in data.items()} == {
        'en': ['po-01-en', 'po-02-en', 'po-03-en', 'po-04-en', 'po-05-en', 'po-06-en', 'po-07-en'],
        'et': ['po-01-et', 'po-03-et', 'po-07-et'],
    }
    po01_et = next(s for s in data['et'] if s.metadata['id'] == 'po-01-et')
    assert {'pair_id': 'po-01', 'lang': 'et', 'difficulty': 'easy', 'unit': 'm/s'}.items() <= po01_et.metadata.items()
    for reason, rid in [('has images (text-only benchmark)', 'po-08-en'), ('no usable answer', 'po-09-en'),
                        ('language not in subset_list', 'po-10-de')]:
        assert f'excluded 1 record(s): {reason} (ids: {rid})' in caplog.text


def test_other_languages_load_when_named_in_subset_list():
    data = loaded(SAMPLE, subset_list=['de'])
    assert [s.metadata['id'] for s in data['de']] == ['po-10-de']


def test_broken_rows_are_counted_not_fatal(tmp_path, caplog):
    good = SAMPLE.read_text().splitlines()[0]
    rows = [good, good, '{"id": "t1", "problem": "p", "answer": "1", "language": "en", "tolerance": "5%"}',
            '[1, 2]', '{"id": "t2", "problem": "p", "answer": true, "language": "en"}', '{not json']
    path = tmp_path / 'physolym_x.jsonl'
    path.write_text('\n'.join(rows))
    with caplog.at_level(logging.WARNING):
        data = loaded(path)
    assert sum(len(v) for v in data.values()) == 1
    for text in ['duplicate id (ids: po-01-en)', 'tolerance not a number in [0, 1) (ids: t1)',
                 'not a JSON object', 'no usable answer (ids: t2)', 'skipped 1 unreadable line(s)']:
        assert text in caplog.text


def score(reference, response, **meta):
    a = adapter({'local_path': str(SAMPLE)})
    sample = next(s for v in a.load_dataset().values() for s in v if s.metadata['id'] == 'po-01-en')
    sample.metadata.update({'reference': reference, 'unit': None, 'tolerance': None, 'answer_type': 'numeric'}, **meta)
    state = TaskState(model='x', sample=sample, messages=[], completed=True)
    return a.match_score(response, response, reference, state)


# (reference, record fields, response, strict, lenient, why)
GOLDEN = [
    ('46300', {'unit': 'N'}, '\\boxed{46.3\\,\\mathrm{kN}}', 1.0, 1.0, 'unit-converted answer is correct in both'),
    ('1.0', {'unit': 'J', 'tolerance': 0.05}, '\\boxed{1.02\\,\\mathrm{J}}', 0.0, 1.0, '2% off within the record tolerance'),
    ('1.00', {'unit': 'J'}, '\\boxed{1.02\\,\\mathrm{J}}', 0.0, 0.0, '2% off outside the default 1%'),
    ('1.0', {'unit': 'J'}, '\\boxed{1.02\\,\\mathrm{J}}', 1.0, 1.0, 'rounds to the two figures the reference states'),
    ('4.94', {'unit': 's', 'tolerance': 0.01}, '\\boxed{4.9\\,\\mathrm{s}}', 0.0, 1.0, '0.8% off'),
    ('5', {'unit': 'm/s'}, '\\boxed{5\\,\\mathrm{kg}}', 0.0, 0.0, 'wrong dimension'),
    ('\\frac{v_0^2}{2g}', {'answer_type': 'expression'}, 'so \\boxed{h=\\dfrac{v_{0}^{2}}{2 g}}', 1.0, 1.0, 'equivalent'),
    (['2\\,\\mathrm{m/s^2}', '24\\,\\mathrm{N}'], {}, '\\boxed{2\\,\\mathrm{m/s^2};\\ 24\\,\\mathrm{N}}', 1.0, 1.0, 'two'),
    (['2\\,\\mathrm{m/s^2}', '24\\,\\mathrm{N}'], {}, '\\boxed{24\\,\\mathrm{N};\\ 2\\,\\mathrm{m/s^2}}', 0.0, 0.0,
     'order matters'),
]


@pytest.mark.parametrize('reference,meta,response,strict,lenient,why', GOLDEN, ids=[g[-1] for g in GOLDEN])
def test_rule_scoring_golden_cases(reference, meta, response, strict, lenient, why):
    value = score(reference, response, **meta).value
    assert (value['strict_acc'], value['lenient_acc'], value['scored']) == (strict, lenient, 1.0)
    assert ('eed' in value) == (meta.get('answer_type') == 'expression')  # EED only for expressions


def test_per_difficulty_means_sit_beside_the_overall_means():
    def sample(i, level, strict):
        return SampleScore(sample_id=i, sample_metadata={'difficulty': level},
                           score=Score(value={'strict_acc': strict, 'lenient_acc': 1.0, 'scored': 1.0}))
    scores = [sample(0, 'easy', 1.0), sample(1, 'easy', 0.0), sample(2, 'hard', 0.0),
              SampleScore(sample_id=3, sample_metadata={'difficulty': 'hard'}, score=Score(value={'scored': 0.0}))]
    results = adapter({'local_path': str(SAMPLE)}).aggregate_scores(scores)
    table = {(r.metric_name, r.aggregation, r.dimensions.get('difficulty')): (r.score, r.num) for r in results}
    assert table[('strict_acc', 'mean', None)] == (pytest.approx(1 / 3), 3)
    assert table[('strict_acc', PER_LEVEL_AGGREGATION, 'easy')] == (0.5, 2)
    assert table[('strict_acc', PER_LEVEL_AGGREGATION, 'hard')] == (0.0, 1)  # the unscored one drops out
    assert table[('scored', 'mean', None)] == (0.75, 4)


def replay_prompts_answered(run, n):
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    assert len(run.reviews('physolym')) == n


@pytest.mark.e2e
def test_evalscope_eval_scores_the_sample_and_reports_levels(tmp_path, evalscope_eval):
    with replay_server(REPLAY) as url:
        run = evalscope_eval(url, ['physolym'], {'physolym': {'local_path': str(SAMPLE)}}, tmp_path / 'run')
    replay_prompts_answered(run, 10)
    assert run.metric('physolym', 'strict_acc')['score'] == pytest.approx(5 / 10)
    assert run.metric('physolym', 'lenient_acc')['score'] == pytest.approx(7 / 10)
    report = run.reports['physolym']
    assert report['primary_metric_identity']['name'] == 'strict_acc'
    levels = {m['identity']['dimensions']['difficulty']: m['score'] for m in report['metrics']
              if m['identity']['name'] == 'strict_acc' and m['identity']['aggregation'] == PER_LEVEL_AGGREGATION}
    assert levels == pytest.approx({'easy': 2 / 3, 'medium': 3 / 4, 'hard': 0.0}, abs=1e-4)  # reports round
    assert not any(m['identity']['name'] == 'judged' for m in report['metrics'])  # no judge, no judge metrics


@pytest.mark.e2e
def test_with_a_judge_only_the_text_answer_is_judged(tmp_path, evalscope_eval):
    with replay_server(REPLAY) as url:
        judge = {'models': [{'model_id': 'stub-judge', 'api_url': url, 'api_key': 'EMPTY'}]}
        run = evalscope_eval(url, ['physolym'], {'physolym': {'local_path': str(SAMPLE)}}, tmp_path / 'run', judge=judge)
    replay_prompts_answered(run, 10)
    assert run.metric('physolym', 'judged')['score'] == pytest.approx(1 / 10)
    assert run.metric('physolym', 'cannot_judge')['score'] == 0.0
    assert run.metric('physolym', 'strict_acc')['score'] == pytest.approx(6 / 10)
    judged = [r for r in run.reviews('physolym') if json.dumps(r).count('stub-judge')]
    assert len(judged) == 1 and 'anticlockwise' in json.dumps(judged[0])


# --- the PhysOlym-A release layout (messages / solution or gold / metadata), our own problems ---

RELEASE_DIR = Path(__file__).parent / 'fixtures' / 'physolym_release'
RELEASE_REPLAY = RELEASE_DIR / 'physolym-a_replay.jsonl'


def test_release_layout_loads_beside_our_schema(caplog):
    with caplog.at_level(logging.WARNING):
        data = loaded(RELEASE_DIR)  # a folder: physolym-a.jsonl is found in it
    meta = {s.metadata['id']: s.metadata for v in data.values() for s in v}
    assert {k: sorted(s.metadata['id'] for s in v) for k, v in data.items()} == {
        'en': ['apho_usapho_inpho#6', 'estonian_olympiad#1', 'estonian_olympiad#8', 'ipho_nbpho_eupho#5',
               'kevin_zhou#4', 'kz-energy-1', 'mine-1'],
        'et': ['estonian_olympiad#2'],
    }
    # the solution's final answer (boxed, last of two parts, one per JSON part), a short gold taken whole
    # (the located text, left side kept: the engine reads N = 720 N as a definition and compares its value)
    assert meta['estonian_olympiad#1']['reference'] == 'N = 720\\,\\mathrm{N}'
    assert meta['estonian_olympiad#2']['reference'] == 'h = 45\\,\\mathrm{m}'
    assert meta['apho_usapho_inpho#6']['reference'] == ['v = 4\\,\\mathrm{m/s}', 'W = 4\\,\\mathrm{J}']
    assert meta['kz-energy-1']['reference'] == '12 J'
    assert meta['ipho_nbpho_eupho#5']['reference'] is None  # prose only: the judge's, or unscored
    # labels from metadata (JSON string or object) or the top level; en-et goes to en and keeps its tag
    assert {k: meta['estonian_olympiad#1'][k] for k in ('difficulty', 'topic', 'source', 'layout')} == {
        'difficulty': '2', 'topic': 'mechanics', 'source': 'estonian_olympiad', 'layout': 'release'}
    assert (meta['estonian_olympiad#2']['difficulty'], meta['estonian_olympiad#2']['native_difficulty']) == ('5', '5')
    assert (meta['kz-energy-1']['topic'], meta['estonian_olympiad#8']['language_tag']) == ('energy', 'en-et')
    assert meta['mine-1']['layout'] == 'schema' and meta['mine-1']['unit'] == 'A'
    assert 'excluded 1 record(s): has images (text-only benchmark) (ids: estonian_olympiad#7)' in caplog.text
    assert '1 reference solution(s) state no final answer' in caplog.text and 'ipho_nbpho_eupho#5' in caplog.text


def test_release_prompt_asks_for_one_box_per_answer_and_ours_is_unchanged():
    a = adapter({'local_path': str(RELEASE_DIR)})
    samples = {s.metadata['id']: s for v in a.load_dataset().values() for s in v}
    assert 'the last box answers the last question' in a.format_prompt_template(samples['estonian_olympiad#1'])
    assert 'separated by semicolons' in a.format_prompt_template(samples['mine-1'])


def release_score(sample_id, response):
    a = adapter({'local_path': str(RELEASE_DIR)})
    sample = next(s for v in a.load_dataset().values() for s in v if s.metadata['id'] == sample_id)
    state = TaskState(model='x', sample=sample, messages=[], completed=True)
    return a.match_score(response, response, sample.target, state)


@pytest.mark.parametrize('sample_id, response, strict, substring', [
    ('estonian_olympiad#2', '\\boxed{3\\,\\mathrm{s}} and \\boxed{45\\,\\mathrm{m}}', 1.0, 0.0),  # gold: a solution
    ('kevin_zhou#4', '\\boxed{5\\ \\mathrm{m}}', 1.0, 0.0),  # right, but '5\\mathrm{m}' does not contain '5m'
    ('kevin_zhou#4', '\\boxed{15 m}', 0.0, 1.0),  # wrong, but '15m' contains '5m'
    ('mine-1', '\\boxed{3\\,\\mathrm{A}}', 1.0, 1.0),  # our schema: the gold is the answer '3'
])
def test_release_and_schema_samples_get_both_strict_columns(sample_id, response, strict, substring):
    value = release_score(sample_id, response).value
    assert (value['strict_acc'], value['substring_strict'], value['scored']) == (strict, substring, 1.0)


def test_a_solution_without_a_readable_answer_is_unscored_not_wrong():
    score = release_score('ipho_nbpho_eupho#5', '\\boxed{\\text{stable}}')
    assert score.value == {'scored': 0.0, 'substring_strict': 0.0, 'strict_acc_all': 0.0, 'lenient_acc_all': 0.0}
    assert score.metadata['verdict']['reason'] == 'unparseable_reference'


def test_from_the_modelscope_hub_the_error_says_physolym_a_is_on_hugging_face(monkeypatch):
    monkeypatch.setenv('MODELSCOPE_DOMAIN', 'http://127.0.0.1:9')
    with pytest.raises(DatasetUnavailableError, match='local_path.*--dataset-hub huggingface'):
        adapter().load_dataset()
    monkeypatch.setenv('HF_ENDPOINT', 'http://127.0.0.1:9')
    with pytest.raises(DatasetUnavailableError, match=r'huggingface hub is unreachable.*shanyangmie/physolym-a.*local_path'):
        adapter(dataset_hub='huggingface').load_dataset()


@pytest.mark.e2e
def test_evalscope_eval_on_the_release_layout(tmp_path, evalscope_eval):
    with replay_server(RELEASE_REPLAY) as url:
        run = evalscope_eval(url, ['physolym'], {'physolym': {'local_path': str(RELEASE_DIR)}}, tmp_path / 'run')
    replay_prompts_answered(run, 8)
    # right: #1 720 N, #2 45 m (last box), kz-energy-1 12 J, #6 both parts, mine-1; wrong: #4 15 m, #8 g/L;
    # #5 unscored (its solution states no answer): 5 of 7 scored, 7 of 8
    assert run.metric('physolym', 'strict_acc')['score'] == pytest.approx(5 / 7, abs=1e-4)
    assert run.metric('physolym', 'scored')['score'] == pytest.approx(7 / 8)
    # Physics-R1's strict: only #4 (15 m contains 5 m) and mine-1 (3 A contains 3)
    assert run.metric('physolym', 'substring_strict')['score'] == pytest.approx(2 / 8)


@pytest.mark.e2e
def test_with_a_judge_the_solution_without_an_answer_is_judged_against_it(tmp_path, evalscope_eval):
    with replay_server(RELEASE_REPLAY) as url:
        judge = {'models': [{'model_id': 'stub-judge', 'api_url': url, 'api_key': 'EMPTY'}]}
        run = evalscope_eval(url, ['physolym'], {'physolym': {'local_path': str(RELEASE_DIR)}}, tmp_path / 'run',
                             judge=judge)
    replay_prompts_answered(run, 8)
    assert run.metric('physolym', 'judged')['score'] == pytest.approx(1 / 8)
    assert run.metric('physolym', 'strict_acc')['score'] == pytest.approx(6 / 8)  # #5 judged equivalent
    judged = [r for r in run.reviews('physolym') if 'stub-judge' in json.dumps(r)]
    assert len(judged) == 1 and 'restoring effect of gravity' in json.dumps(judged[0])  # the whole solution
