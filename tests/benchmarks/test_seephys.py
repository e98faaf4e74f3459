"""SeePhys: the release's record layout, subsets by level/language/vision, figures, rules first, judge end to end."""
import base64
import io
import json
import logging
import shutil

import pytest
from evalscope.api.evaluator import TaskState
from evalscope.api.messages import ContentImage, ContentText
from PIL import Image

from conftest import BenchmarkSetup
from evalscope_phys.benchmarks.base import category
from evalscope_phys.benchmarks.seephys import LANGUAGES, LEVELS, SUBSET_LIST, VISION, answer_part, sig_figs
from evalscope_phys.serve.replay import replay_server

BENCH = BenchmarkSetup('seephys')
SAMPLE, REPLAY, adapter, loaded = BENCH.sample, BENCH.replay, BENCH.adapter, BENCH.load


def by_id(data: dict) -> dict:
    return {s.metadata['id']: s for samples in data.values() for s in samples}


def prompt_text(sample) -> str:
    return next(c.text for c in sample.input[0].content if isinstance(c, ContentText))


def test_sample_loads_one_problem_per_level_with_its_figure():
    data = loaded(SAMPLE)
    assert list(data) == SUBSET_LIST
    assert {k: [s.metadata['id'] for s in v] for k, v in data.items()} == {
        'middle_school': ['1'], 'high_school': ['2'], 'beginner_olympiad': ['3'], 'advanced_olympiad': ['4'],
        'undergraduate': ['5'], 'senior_undergraduate': ['6'], 'master': ['7'], 'phd': ['8']}
    first = data['middle_school'][0]
    image = next(c for c in first.input[0].content if isinstance(c, ContentImage))
    assert image.image.startswith('data:image/png;base64,')
    assert first.target == '3 kg' and first.metadata['vision_relevance'] == 'essential'


def test_prompts_follow_language_significant_figures_and_vision_only_rows():
    samples = by_id(loaded(SAMPLE))
    assert 'keep 2 significant figures' in prompt_text(samples['3'])
    assert 'significant' not in prompt_text(samples['1'])
    zh = prompt_text(samples['5'])
    assert samples['5'].metadata['language'] == 'zh' and '请结合图片解答' in zh and '\\boxed{}' in zh
    vision_only = prompt_text(samples['8'])
    assert not vision_only.startswith('nan') and vision_only.startswith('Solve this physics problem')


def test_caption_is_appended_only_when_asked():
    plain = by_id(loaded(SAMPLE))['1']
    captioned = by_id(loaded(SAMPLE, extra_params={'use_caption': True}))['1']
    assert 'A lever with 2 kg' in prompt_text(captioned) and 'A lever with 2 kg' not in prompt_text(plain)


@pytest.mark.parametrize('subset_by,expected', [
    ('language', {'en': 7, 'zh': 1}),
    ('vision_relevance', {'essential': 6, 'optional': 2}),
])
def test_subsets_can_follow_language_or_vision_relevance(subset_by, expected):
    data = loaded(SAMPLE, extra_params={'subset_by': subset_by})
    assert {k: len(v) for k, v in data.items()} == expected


def test_rows_without_the_grouping_label_are_counted(tmp_path, caplog):
    good = {'question': 'q', 'image_path': ['images/lever.png'], 'language': 'English', 'level': 'High', 'answer': '1 m'}
    root = write_release(tmp_path, [{**good, 'index': 80}])  # no vision_relevance: fine by level, not by vision
    assert sum(len(v) for v in loaded(root).values()) == 9
    with caplog.at_level(logging.WARNING):
        assert sum(len(v) for v in loaded(root, extra_params={'subset_by': 'vision_relevance'}).values()) == 8
    assert 'no vision_relevance (ids: 80)' in caplog.text


def test_subset_names_must_fit_the_grouping():
    with pytest.raises(ValueError, match=r"unknown subsets \['phd'\] for subset_by='language'"):
        loaded(SAMPLE, subset_list=['en', 'phd'], extra_params={'subset_by': 'language'})


# (label as a release might spell it, table, subset or None)
LABELS = [
    ('Middle School', LEVELS, 'middle_school'), ('mid', LEVELS, 'middle_school'), ('High', LEVELS, 'high_school'),
    ('BO', LEVELS, 'beginner_olympiad'), ('Advanced Olympiad', LEVELS, 'advanced_olympiad'),
    ('UG', LEVELS, 'undergraduate'), ('SUG', LEVELS, 'senior_undergraduate'), ("Master's", LEVELS, 'master'),
    ('PhD', LEVELS, 'phd'), ('Ph.D.', LEVELS, 'phd'), ('phd_qualifying', LEVELS, 'phd'), ('kindergarten', LEVELS, None),
    ('English', LANGUAGES, 'en'), ('Chinese', LANGUAGES, 'zh'), ('French', LANGUAGES, None),
    ('Vision-Essential', VISION, 'essential'), ('optional', VISION, 'optional'), ('', VISION, None),
]


@pytest.mark.parametrize('value,table,expected', LABELS)
def test_release_labels_map_to_subsets(value, table, expected):
    assert category(value, table) == expected


@pytest.mark.parametrize('value,expected', [(3, 3), ('2', 2), (2.0, 2), ('', None), (None, None), (float('nan'), None),
                                            (0, None), (2.5, None), ('three', None)])
def test_significant_figures_field(value, expected):
    assert sig_figs(value) == expected


def write_release(tmp_path, extra_rows):
    root = tmp_path / 'SeePhys'
    shutil.copytree(SAMPLE, root)
    rows = json.loads((root / 'SeePhys.json').read_text()) + extra_rows
    (root / 'SeePhys.json').write_text(json.dumps(rows, ensure_ascii=False))
    (tmp_path / 'secret.png').write_bytes((root / 'images' / 'lever.png').read_bytes())
    return root


def test_broken_rows_are_counted_not_fatal(tmp_path, caplog):
    good = {'question': 'q', 'image_path': ['images/lever.png'], 'language': 'English', 'level': 'High', 'answer': '1 m'}
    root = write_release(tmp_path, [
        {**good, 'index': 90, 'answer': ''},
        {**good, 'index': 91, 'level': 'kindergarten'},
        {**good, 'index': 92, 'image_path': ['../secret.png']},
        {**good, 'index': 93, 'image_path': ['images/missing.png']},
        {**good, 'index': 94, 'language': 'Klingon'},
        {**good, 'index': 95, 'image_path': []},
        {**good, 'index': 96, 'vision_relevance': 'sometimes'},
        'not a record',
    ])
    with caplog.at_level(logging.WARNING):
        assert sum(len(v) for v in loaded(root).values()) == 8
    for reason, rid in [('no reference answer', 90), ('unknown level', 91), ('image path escapes the dataset folder', 92),
                        ('image missing', 93), ('unknown language', 94), ('no image', 95),
                        ('unknown vision_relevance', 96)]:
        assert f'{reason} (ids: {rid})' in caplog.text


def test_hub_parquet_with_embedded_figures_loads(tmp_path):
    pa = pytest.importorskip('pyarrow')
    import pyarrow.parquet as pq

    png = io.BytesIO()
    Image.new('RGB', (30, 20), 'green').save(png, format='PNG')
    rows = [{'index': i, 'question': f'Problem {i}: find v.', 'images': [{'bytes': png.getvalue(), 'path': None}],
             'language': 'English', 'level': 'UG', 'vision_relevance': 'essential', 'answer': f'{i} m/s',
             'sig_figs': None} for i in range(3)]
    rows.append({**rows[0], 'index': 9, 'images': []})  # no figure at all
    (tmp_path / 'data').mkdir()
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / 'data' / 'test-00000-of-00001.parquet')
    samples = loaded(tmp_path)['undergraduate']
    assert [s.metadata['id'] for s in samples] == ['0', '1', '2']
    uri = next(c for c in samples[0].input[0].content if isinstance(c, ContentImage)).image
    assert Image.open(io.BytesIO(base64.b64decode(uri.split(',', 1)[1]))).size == (30, 20)


def test_max_image_bytes_shrinks_figures(tmp_path):
    root = write_release(tmp_path, [])
    noisy = Image.effect_noise((400, 400), 80).convert('RGB')
    noisy.save(root / 'images' / 'lever.png')
    full = by_id(loaded(root))['1']
    small = by_id(loaded(root, max_image_bytes='20kb'))['1']
    size = lambda s: len(next(c for c in s.input[0].content if isinstance(c, ContentImage)).image)  # noqa: E731
    assert size(full) > 100_000 and size(small) < 30_000


@pytest.mark.parametrize('reply,expected', [
    ('<think>W = p dV</think> <answer>400 J</answer>', '400 J'),
    ('<answer>1</answer> then <answer>2 m</answer>', '2 m'),
    ('<answer>draft</answer> so \\boxed{3 kg}', '<answer>draft</answer> so \\boxed{3 kg}'),
    ('plain', 'plain'), (None, ''),
])
def test_official_answer_tag_is_read_when_there_is_no_box(reply, expected):
    assert answer_part(reply) == expected


# (reference, reply, strict, lenient)
SCORING = [
    ('3 kg', 'so \\boxed{3\\,\\mathrm{kg}}', 1.0, 1.0),
    ('2 A', '\\boxed{2000\\,\\mathrm{mA}}', 1.0, 1.0),
    ('2 A', '\\boxed{0.2\\,\\mathrm{A}}', 0.0, 0.0),
    ('3.14 s', '\\boxed{3.15 s}', 0.0, 1.0),
    ('400 J', '<answer>400 J</answer>', 1.0, 1.0),
    ('5 m', '\\boxed{15 m}', 0.0, 0.0),
    ('\\frac{3g}{2L}', '\\boxed{\\frac{3 g}{2 L}}', 1.0, 1.0),
]


@pytest.mark.parametrize('reference,reply,strict,lenient', SCORING)
def test_answers_are_scored_by_the_engine(reference, reply, strict, lenient):
    instance = adapter({'local_path': str(SAMPLE)})
    sample = by_id(loaded(SAMPLE))['1']
    score = instance.match_score(reply, reply, reference, TaskState(model='x', sample=sample, messages=sample.input))
    assert (score.value['strict_acc'], score.value['lenient_acc'], score.value['scored']) == (strict, lenient, 1.0)
    assert score.main_score_name == 'lenient_acc'


# (problem id, what the replayed reply does, lenient verdict)
DEMO_VERDICTS = [
    ('1', 'correct', 1.0), ('2', 'mA for A', 1.0), ('3', '5.10 for 5.1', 1.0), ('4', 'wrong expression', 0.0),
    ('5', 'official <answer> tag, Chinese', 1.0), ('6', 'reordered expression', 1.0),
    ('7', 'anticlockwise: judged equivalent', 1.0), ('8', '3.15 s for 3.14 s', 1.0),
]


@pytest.fixture(scope='module')
def judged_run(tmp_path_factory):
    from conftest import run_evalscope_eval

    work = tmp_path_factory.mktemp('seephys') / 'run'
    with replay_server(REPLAY) as url:
        judge = {'strategy': 'auto', 'models': [{'model_id': 'stub-judge', 'api_url': url, 'api_key': 'EMPTY'}]}
        return run_evalscope_eval(url, ['seephys'], {'seephys': {'local_path': str(SAMPLE)}}, work, judge=judge)


@pytest.mark.e2e
def test_evalscope_cli_scores_the_demo_with_the_judge_for_the_text_answer_only(judged_run):
    assert judged_run.process.returncode == 0, judged_run.process.stderr[-3000:]
    report = judged_run.reports['seephys']
    assert report['primary_metric_identity']['name'] == 'lenient_acc'
    assert report['execution_summary']['requested'] == 8 and report['execution_summary']['errored'] == 0
    reviews = {r['sample_score']['sample_metadata']['id']: r['sample_score']['score'] for r in judged_run.reviews('seephys')}
    for problem, kind, lenient in DEMO_VERDICTS:
        assert reviews[problem]['value']['lenient_acc'] == lenient, (problem, kind, reviews[problem])
    assert {p for p, s in reviews.items() if s['value']['judged'] == 1.0} == {'7'}
    assert judged_run.metric('seephys', 'judged')['score'] == pytest.approx(1 / 8)
    assert judged_run.metric('seephys', 'lenient_acc')['score'] == pytest.approx(7 / 8)
    assert judged_run.metric('seephys', 'strict_acc')['score'] == pytest.approx(6 / 8)
    assert report['judge_summary']['failures'] == {}
