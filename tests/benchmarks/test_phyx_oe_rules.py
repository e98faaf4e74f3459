"""phyx_oe_rules: PhyX's layout through local_path, units-aware rules first, the judge only for the undecided."""
import json
import logging
import shutil

import pytest
from evalscope.api.messages import ContentImage, ContentText

import evalscope_phys.benchmarks.phyx_oe_rules  # noqa: F401  (registers the benchmark)
from conftest import BenchmarkSetup
from evalscope_phys.serve.replay import replay_server

BENCH = BenchmarkSetup('phyx_oe_rules')
FOLDER = BENCH.sample
REPLAY, adapter, samples = BENCH.replay, BENCH.adapter, BENCH.load
NAME = 'phyx_oe_rules'


def flat(data: dict) -> list:
    return [s for subset in data.values() for s in subset]


def test_demo_folder_in_phyx_layout_loads_by_domain():
    data = samples(FOLDER)
    assert {k: len(v) for k, v in data.items() if v} == {
        'mechanics': 3, 'electromagnetism': 1, 'thermodynamics': 1, 'waves_acoustics': 1, 'optics': 1,
        'modern_physics': 1}
    sample = next(s for s in data['electromagnetism'])
    assert sample.target == '2 A', 'the open-ended ground truth is the text of the correct option'
    [message] = sample.input
    image, text = message.content
    assert isinstance(image, ContentImage) and image.image.startswith('data:image/png;base64,')
    assert isinstance(text, ContentText)
    assert text.text.endswith('Please answer the question with step by step reasoning. '
                              'Give the final answer, with its unit, in \\boxed{} at the end.')


def test_the_hub_snapshot_layout_with_a_test_folder_loads_too(tmp_path):
    shutil.copytree(FOLDER, tmp_path / 'PhyX' / 'test')
    assert len(flat(samples(tmp_path / 'PhyX'))) == 8


def test_official_prompt_verbatim_on_request():
    [sample] = samples(FOLDER, prompt_template='{question}', subset_list=['optics'])['optics']
    assert sample.input[0].content[1].text.endswith('Please answer the question with step by step reasoning.')


def test_max_image_bytes_is_honoured(tmp_path):
    from PIL import Image
    import os
    shutil.copytree(FOLDER, tmp_path / 'phyx')
    Image.frombytes('RGB', (500, 500), os.urandom(500 * 500 * 3)).save(tmp_path / 'phyx' / 'test_image' / 'lens.png')
    [big] = samples(tmp_path / 'phyx', subset_list=['optics'])['optics']
    [small] = samples(tmp_path / 'phyx', subset_list=['optics'], max_image_bytes=50_000)['optics']
    assert len(big.input[0].content[0].image) > 500_000
    assert len(small.input[0].content[0].image) < 50_000 * 4 / 3 + 100


def write_folder(tmp_path, rows):
    folder = tmp_path / 'phyx'
    shutil.copytree(FOLDER / 'test_image', folder / 'test_image')
    (tmp_path / 'outside.png').write_bytes((FOLDER / 'test_image' / 'rod.png').read_bytes())
    (folder / 'PhyX_test.jsonl').write_text('\n'.join(r if isinstance(r, str) else json.dumps(r) for r in rows) + '\n')
    return folder


def test_broken_rows_and_escaping_images_are_counted_not_fatal(tmp_path, caplog):
    good = [json.loads(line) for line in (FOLDER / 'PhyX_test.jsonl').read_text().splitlines()]
    rows = good[:2] + [
        {**good[2], 'index': 100, 'image': '../outside.png'},
        {**good[2], 'index': 101, 'image': 'missing.png'},
        {**good[2], 'index': 102, 'category': 'Astrology'},
        {**good[2], 'index': 103, 'options': 'A:"1",B:"2"'},
        {**good[2], 'index': 104, 'question': None},
        '{"index": 105, "category": ',  # a truncated line
    ]
    with caplog.at_level(logging.WARNING):
        loaded = flat(samples(write_folder(tmp_path, rows)))
    assert [s.metadata['index'] for s in loaded] == [0, 1]
    log = caplog.text
    assert 'image path escapes the dataset folder (ids: 100)' in log
    assert 'image missing (ids: 101)' in log
    assert 'unknown category (ids: 102)' in log
    assert 'options are not exactly A-D with the answer among them (ids: 103)' in log
    assert 'question or options missing (ids: 104)' in log
    assert 'unreadable line' in log


def test_test_mini_keeps_the_first_thousand(tmp_path):
    rows = [json.loads(line) for line in (FOLDER / 'PhyX_test.jsonl').read_text().splitlines()]
    rows[0]['index'] = 1500
    assert len(flat(samples(write_folder(tmp_path, rows), eval_split='test_mini'))) == 7


#: (reply, ground truth, strict, lenient) -- the rules' verdicts, units included
RULE_CASES = [
    ('\\boxed{5 m}', '5 m', True, True),
    ('\\boxed{15 m}', '5 m', False, False),
    ('\\boxed{0.25}', '2', False, False),
    ('\\boxed{46300 N}', '46.3 kN', True, True),
    ('\\boxed{2000\\,\\text{mA}}', '2 A', True, True),
    ('\\boxed{3458 J}', '3.46 kJ', True, True),  # rounds to the three figures the reference states
    ('\\boxed{3440 J}', '3.46 kJ', False, True),
    ('\\boxed{2.5 eV}', '2.48 eV', False, True),
    ('\\boxed{5 s}', '5 m', False, False),
]


@pytest.mark.parametrize('reply, reference, strict, lenient', RULE_CASES)
def test_rules_decide_with_units(reply, reference, strict, lenient):
    score = adapter().match_score(reply, reply, reference, None)
    assert score.value.get('strict_acc') == float(strict), score
    assert score.value['lenient_acc'] == float(lenient)
    assert score.value['scored'] == 1.0
    assert score.main_score_name == 'lenient_acc'


#: the demo replies (phyx_replay.jsonl) by problem index: (lenient verdict, strict verdict, judged)
DEMO_VERDICTS = {
    0: (1.0, 1.0, 0.0),  # as written
    1: (1.0, 1.0, 0.0),  # 2000 mA for 2 A
    2: (1.0, 1.0, 0.0),  # 3458 J for 3.46 kJ: rounds to the three figures the reference states
    3: (0.0, 0.0, 0.0),  # 120 m/s for 20 m/s: upstream's substring rule says right
    4: (1.0, 1.0, 0.0),  # unboxed "Final answer: 15 cm"
    5: (1.0, 0.0, 0.0),  # 2.5 for 2.48 eV: lenient only
    6: (1.0, 1.0, 1.0),  # "anticlockwise": a text answer, the stub judge says equivalent
}
#: index 7 is a reply cut off mid-sentence: judged, and the stub judge replies cannot_judge, so it keeps
#: its rule score (wrong, or unscored if the engine's deadline fires on the prose)
TRUNCATED = 7
JUDGE_RULES = [
    {'match': ["Candidate's final answer", 'anticlockwise'], 'judge': True,
     'response': '{"case": "{case}", "reasoning": "anticlockwise is counterclockwise", "verdict": "equivalent"}'},
    {'match': ["Candidate's final answer", 'equation of motion of the bob'], 'judge': True,
     'response': '{"case": "{case}", "reasoning": "the reply stops before any result", "verdict": "cannot_judge"}'},
]


@pytest.fixture(scope='module')
def judged_run(tmp_path_factory):
    from conftest import run_evalscope_eval

    records = [json.loads(line) for line in REPLAY.read_text().splitlines() if line.strip()] + JUDGE_RULES
    work = tmp_path_factory.mktemp('phyx') / 'run'
    with replay_server(records) as url:
        judge = {'strategy': 'auto', 'models': [{'model_id': 'stub-judge', 'api_url': url, 'api_key': 'EMPTY',
                                                 'generation_config': {'temperature': 0.0, 'timeout': 20}}]}
        run = run_evalscope_eval(url, [NAME], {NAME: {'local_path': str(FOLDER)}}, work, judge=judge)
    return run


@pytest.mark.e2e
def test_evalscope_cli_rules_first_judge_for_the_rest(judged_run):
    assert judged_run.process.returncode == 0, judged_run.process.stderr[-3000:]
    report = judged_run.reports[NAME]
    assert report['primary_metric_identity']['name'] == 'lenient_acc'
    assert report['execution_summary']['requested'] == 8 and report['execution_summary']['errored'] == 0
    reviews = {r['sample_score']['sample_metadata']['index']: r['sample_score']['score'] for r in judged_run.reviews(NAME)}
    for index, (lenient, strict, judged) in DEMO_VERDICTS.items():
        value = reviews[index]['value']
        assert (value['lenient_acc'], value['strict_acc'], value['judged']) == (lenient, strict, judged), (index, value)
    truncated = reviews[TRUNCATED]['value']
    assert truncated['judged'] == 1.0 and truncated['cannot_judge'] == 1.0
    assert truncated.get('lenient_acc') in (0.0, None) and truncated.get('strict_acc') in (0.0, None)
    assert judged_run.metric(NAME, 'judged')['score'] == pytest.approx(2 / 8)
    assert judged_run.metric(NAME, 'cannot_judge')['score'] == pytest.approx(1 / 8)
    lenient, strict = judged_run.metric(NAME, 'lenient_acc'), judged_run.metric(NAME, 'strict_acc')
    assert lenient['score'] == pytest.approx(6 / lenient['num'], abs=1e-4) and lenient['num'] in (7, 8)
    assert strict['score'] == pytest.approx(5 / strict['num'], abs=1e-4)
