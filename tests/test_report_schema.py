"""The report schema knows every benchmark a suite can name, as the registry describes it."""
import copy
import json

from evalscope_phys.registration import BENCHMARK_MODULES
from evalscope_phys.report_schema import disagreements, expected_entry, nameable_benchmarks, schema_file


def schema():
    return json.loads(schema_file().read_text())


def test_every_nameable_benchmark_has_the_entry_the_registry_implies():
    assert disagreements(schema()) == []


def test_nameable_benchmarks_cover_ours_and_the_upstream_ones_we_configure():
    names = set(nameable_benchmarks())
    assert set(BENCHMARK_MODULES) <= names
    assert 'phyx_oe' in names, 'yamls/datasets/phyx_oe.yaml configures upstream phyx_oe'


def test_a_missing_or_stale_entry_is_reported():
    broken = copy.deepcopy(schema())
    del broken['benchmarks']['phyx_oe']
    broken['benchmarks']['phybench']['primary'] = 'strict_acc'
    problems = disagreements(broken)
    assert [p.split(':')[0] for p in problems] == ['phybench', 'phyx_oe']



def test_entries_follow_the_registry_naming():
    assert expected_entry('phyx_oe') == {'metrics': ['accuracy'], 'primary': 'accuracy'}  # acc -> accuracy
    assert expected_entry('phybench')['primary'] == 'eed' and 'eed' in expected_entry('phybench')['metrics']
    assert 'eed' not in expected_entry('physolym')['metrics'], 'eed is emitted only for expression answers'
    assert 'judged' not in expected_entry('seephys')['metrics'], 'judge metrics exist only with a judge'
