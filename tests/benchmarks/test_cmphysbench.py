"""CMPhysBench: the official record schema, topics as subsets, SEED beside the engine's verdicts."""
import json
import logging

import pytest
from evalscope.api.evaluator import TaskState

from conftest import BenchmarkSetup
from evalscope_phys.benchmarks.cmphysbench import topic_subset
from evalscope_phys.serve.replay import replay_server

BENCH = BenchmarkSetup('cmphysbench')
SAMPLE, REPLAY, adapter, loaded = BENCH.sample, BENCH.replay, BENCH.adapter, BENCH.load


def ids(data):
    return {k: [s.metadata['id'] for s in v] for k, v in data.items() if v}


def test_records_load_by_topic_and_exclusions_are_logged(caplog):
    with caplog.at_level(logging.WARNING):
        data = loaded(SAMPLE)
    assert ids(data) == {'magnetism': ['1'], 'superconductivity': ['2'], 'semiconductors': ['3'],
                         'strongly_correlated_systems': ['4'], 'theoretical_foundations': ['5'], 'others': ['6']}
    assert 'no final_answer (ids: 7)' in caplog.text and 'ids: 8' in caplog.text  # 'Matrix' is no SEED type
    text = data['superconductivity'][0].input[0].text
    assert 'zero-temperature gap' in text and 'Estimate' in text and 'Symbols: k_B' in text  # context, question, symbols
    assert data['superconductivity'][0].metadata['answer_type'] == 'Numeric'


def test_a_jsonl_copy_and_a_folder_load_the_same(tmp_path):
    rows = json.loads(SAMPLE.read_text())
    (tmp_path / 'cm.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows))
    assert ids(loaded(tmp_path / 'cm.jsonl')) == ids(loaded(SAMPLE))
    folder = tmp_path / 'CMPhysBench'
    folder.mkdir()
    (folder / 'CMPhysBench.json').write_text(SAMPLE.read_text())
    assert ids(loaded(folder)) == ids(loaded(SAMPLE))


@pytest.mark.parametrize('topic, subset', [
    ('Magnetism', 'magnetism'), ('Strongly Correlated Systems', 'strongly_correlated_systems'),
    ('Theoretical Foundations', 'theoretical_foundations'), ('Semiconductor', 'semiconductors'),
    ('Others', 'others'), ('Cosmology', None), (None, None),
])
def test_topics_map_to_subsets(topic, subset):
    assert topic_subset(topic) == subset


def scored(problem_id, response, **extra):
    a = adapter({'local_path': str(SAMPLE), **extra})
    sample = next(s for v in a.load_dataset().values() for s in v if s.metadata['id'] == problem_id)
    state = TaskState(model='x', sample=sample, messages=[], completed=True)
    return a.match_score(response, response, sample.target, state)


def test_seed_sits_beside_strict_and_lenient():
    score = scored('2', r'\boxed{1.40\,\mathrm{meV}}')  # 0.7% off
    assert score.value['seed'] == 90 and score.value['strict_acc'] == 0 and score.value['lenient_acc'] == 1
    assert score.metadata['seed']['reason'] == 'numeric_band'


def test_seed_bands_come_from_extra_params():
    assert scored('2', r'\boxed{1.40\,\mathrm{meV}}', extra_params={'seed_bands': 'release'}).value['seed'] == 100
    with pytest.raises(ValueError, match='loose'):
        scored('2', r'\boxed{1.40\,\mathrm{meV}}', extra_params={'seed_bands': 'loose'})


def test_an_unreadable_answer_is_zero_and_scored():
    score = scored('1', 'I could not solve this one.')
    assert score.value['seed'] == 0 and score.value['scored'] == 1.0


@pytest.mark.e2e
def test_evalscope_eval_reports_seed_beside_the_engines_verdicts(tmp_path, evalscope_eval):
    with replay_server(REPLAY) as url:
        run = evalscope_eval(url, ['cmphysbench'], {'cmphysbench': {'local_path': str(SAMPLE)}}, tmp_path / 'run')
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    reviews = run.reviews('cmphysbench')
    seeds = {r['sample_score']['sample_metadata']['id']: r['sample_score']['score']['value']['seed'] for r in reviews}
    assert seeds['1'] == 100 and seeds['2'] == 90 and seeds['3'] == 100 and seeds['6'] == 100  # right, 0.7% off, swapped, Å^-1
    assert 0 < seeds['4'] < 100 and 0 < seeds['5'] < 100  # a tuple with one wrong entry, an interval's brackets
    assert run.metric('cmphysbench', 'seed')['score'] == pytest.approx(sum(seeds.values()) / 6, abs=1e-3)
    assert run.metric('cmphysbench', 'strict_acc')['score'] == pytest.approx(3 / 6, abs=1e-4)
    assert run.reports['cmphysbench']['primary_metric_identity']['name'] == 'seed'
