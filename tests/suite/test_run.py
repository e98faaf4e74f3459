"""Suite runner: one sub-run per seed, finished seeds skipped, unfinished ones resumed from cache."""
import json
from pathlib import Path

from evalscope_phys.suite.config import Endpoint, Suite, build_task_configs
from evalscope_phys.suite.run import redact, run_suite

from .synthetic import report, review_line, write_report, write_reviews


def make_suite(repeats=1):
    return Suite(name='t', datasets=('phybench', ), dataset_args={'phybench': {}}, generation={}, judge=None,
                 seeds=(0, 1), repeats=repeats)


class RecordingRunTask:
    """Stands in for evalscope's run_task: records each call and writes what a finished run leaves."""

    def __init__(self, incomplete_seeds=()):
        self.calls = []
        self.incomplete_seeds = set(incomplete_seeds)

    def __call__(self, cfg):
        self.calls.append(cfg)
        run = Path(cfg['work_dir'])
        seed = cfg['seed']
        (run / 'configs').mkdir(parents=True, exist_ok=True)
        lines = [review_line(i, {'strict_acc': float((i + seed) % 2)}, str(i % 2), group=i // 2, generation=i % 2)
                 for i in range(4)]
        write_reviews(run, 'phybench', 'optics', lines)
        write_report(run, report('phybench', {'strict_acc': (0.5, 4)}, incomplete=seed in self.incomplete_seeds))


def test_runs_each_seed_then_skips_finished_and_resumes_unfinished(tmp_path):
    suite = make_suite()
    configs = build_task_configs(suite, Endpoint('m', 'http://127.0.0.1:1/v1', 'secret'), tmp_path, suite.seeds)
    first = RecordingRunTask(incomplete_seeds={1})
    outcomes = run_suite(suite, configs, tmp_path, run_task=first)
    assert [(o.seed, o.status) for o in outcomes] == [(0, 'ran'), (1, 'incomplete')]
    assert [c['work_dir'] for c in first.calls] == [str(tmp_path / 'seed_0'), str(tmp_path / 'seed_1')]
    assert all('use_cache' not in c for c in first.calls)

    second = RecordingRunTask()
    outcomes = run_suite(suite, configs, tmp_path, run_task=second)
    assert [(o.seed, o.status) for o in outcomes] == [(0, 'skipped'), (1, 'resumed')]
    assert len(second.calls) == 1 and second.calls[0]['use_cache'] == str(tmp_path / 'seed_1')

    third = RecordingRunTask()
    assert [o.status for o in run_suite(suite, configs, tmp_path, run_task=third)] == ['skipped', 'skipped']
    assert third.calls == []


def test_manifest_has_no_keys(tmp_path):
    suite = make_suite()
    configs = build_task_configs(suite, Endpoint('m', 'http://127.0.0.1:1/v1', 'secret'), tmp_path, suite.seeds)
    run_suite(suite, configs, tmp_path, run_task=RecordingRunTask())
    text = (tmp_path / 'suite.json').read_text()
    assert 'secret' not in text
    assert json.loads(text)['seeds'] == [0, 1]
    assert redact({'a': [{'api_key': 'x'}], 'api_key': ''}) == {'a': [{'api_key': '***'}], 'api_key': ''}


def test_repeats_write_kmetrics_per_seed(tmp_path):
    suite = make_suite(repeats=2)
    configs = build_task_configs(suite, Endpoint('m'), tmp_path, suite.seeds)
    run_suite(suite, configs, tmp_path, run_task=RecordingRunTask())
    data = json.loads((tmp_path / 'seed_0' / 'kmetrics' / 'm' / 'phybench.json').read_text())
    pass2 = [m for m in data['metrics'] if m['identity'] == {'name': 'strict_acc', 'aggregation': 'pass_at_k',
                                                             'dimensions': {'k': 2}}]
    assert pass2[0]['score'] == 1.0 and pass2[0]['num'] == 2  # each problem has one right of two


def test_a_crashing_seed_does_not_stop_the_others(tmp_path):
    suite = make_suite()
    configs = build_task_configs(suite, Endpoint('m'), tmp_path, suite.seeds)
    recorder = RecordingRunTask()

    def flaky(cfg):
        if cfg['seed'] == 0:
            raise ConnectionError('endpoint went away')
        recorder(cfg)

    outcomes = run_suite(suite, configs, tmp_path, run_task=flaky)
    assert [(o.seed, o.status) for o in outcomes] == [(0, 'failed'), (1, 'ran')]
    assert 'endpoint went away' in outcomes[0].error
    assert configs[0][1]['ignore_errors'] is True  # failed requests are counted, not fatal


def test_a_torn_cache_line_is_repaired_before_a_seed_is_resumed(tmp_path, capsys):
    suite = make_suite()
    configs = build_task_configs(suite, Endpoint('m', 'http://127.0.0.1:1/v1', 'k'), tmp_path, suite.seeds)[:1]
    run_suite(suite, configs, tmp_path, run_task=RecordingRunTask(incomplete_seeds={0}))
    predictions = tmp_path / 'seed_0' / 'predictions' / 'm' / 'phybench_optics.jsonl'
    predictions.parent.mkdir(parents=True)
    predictions.write_bytes(b'{"index": 0}\n{"index": 1}\n{"index": 2, "mod')  # killed mid-write
    seen = []

    def run_task(cfg):
        seen.append(predictions.read_bytes())  # what EvalScope finds when it resumes
        RecordingRunTask()(cfg)

    assert [o.status for o in run_suite(suite, configs, tmp_path, run_task=run_task)] == ['resumed']
    assert seen == [b'{"index": 0}\n{"index": 1}\n']
    assert 'dropped a torn last line' in capsys.readouterr().err


def test_a_symlinked_cache_file_is_refused_and_the_file_outside_is_untouched(tmp_path, capsys):
    suite = make_suite()
    work = tmp_path / 'work'
    configs = build_task_configs(suite, Endpoint('m', 'http://127.0.0.1:1/v1', 'k'), work, suite.seeds)[:1]
    run_suite(suite, configs, work, run_task=RecordingRunTask(incomplete_seeds={0}))
    outside = tmp_path / 'outside.jsonl'
    outside.write_bytes(b'{"keep": 1}\n{"keep": 2, "torn')
    predictions = work / 'seed_0' / 'predictions' / 'm' / 'phybench_optics.jsonl'
    predictions.parent.mkdir(parents=True)
    predictions.symlink_to(outside)
    ran = []
    outcomes = run_suite(suite, configs, work, run_task=ran.append)
    assert [o.status for o in outcomes] == ['failed'] and 'symbolic link' in outcomes[0].error
    assert ran == [], 'EvalScope must not resume through the link'
    assert outside.read_bytes() == b'{"keep": 1}\n{"keep": 2, "torn'
    err = [line for line in capsys.readouterr().err.splitlines() if 'symbolic link' in line]
    assert len(err) == 1


def test_a_symlinked_model_folder_is_refused(tmp_path):
    suite = make_suite()
    work = tmp_path / 'work'
    configs = build_task_configs(suite, Endpoint('m', 'http://127.0.0.1:1/v1', 'k'), work, suite.seeds)[:1]
    run_suite(suite, configs, work, run_task=RecordingRunTask(incomplete_seeds={0}))
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    (elsewhere / 'phybench_optics.jsonl').write_bytes(b'{"a": 1}\n{"b"')
    (work / 'seed_0' / 'predictions').mkdir()
    (work / 'seed_0' / 'predictions' / 'm').symlink_to(elsewhere, target_is_directory=True)
    outcomes = run_suite(suite, configs, work, run_task=lambda cfg: None)
    assert outcomes[0].status == 'failed' and 'symbolic link' in outcomes[0].error
    assert (elsewhere / 'phybench_optics.jsonl').read_bytes() == b'{"a": 1}\n{"b"'
