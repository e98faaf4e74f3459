"""Rules first, judge for the rest, through the real `evalscope eval` CLI: routing in every review, judge scopes,
what the judge cost, and EvalScope judge panels (several models, repeats, majority, min_valid_judges).

All runs use PhysOlym's bundled sample (10 answers recorded in its replay file): 5 are strictly right,
2 more leniently, 1 is words ("anticlockwise (seen from above)" for "counterclockwise"), 1 is cut off.
"""
import json
import urllib.request
from pathlib import Path

import pytest

from evalscope_phys.serve import build_records, load_records, replay_server

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.e2e

DEMO = ROOT / 'evalscope_phys' / 'data' / 'demo'
SAMPLE = DEMO / 'physolym_sample.jsonl'
MODEL_RECORDS = [r for r in (json.loads(line) for line in (DEMO / 'physolym_replay.jsonl').read_text().splitlines()
                             if line.strip()) if not r.get('judge')]
JUDGE_PHRASE = 'You are grading a physics answer'
ANSWERS = 10


def verdict_reply(label):
    return json.dumps({'case': '{case}', 'reasoning': 'replayed', 'verdict': label})


def judge_records(label, model=None, responses=None):
    return build_records([(JUDGE_PHRASE, responses or verdict_reply(label))], judge=True, model=model)


def chat_requests(url):
    with urllib.request.urlopen(url.rsplit('/v1', 1)[0] + '/stats', timeout=10) as response:
        return json.load(response)['requests']


def run_physolym(evalscope_eval, tmp_path, records, judge=None, scope=None, name='run'):
    args = {'local_path': str(SAMPLE)}
    if scope:
        args['judge'] = {'scope': scope}
    with replay_server(records) as url:
        if judge is not None:
            judge = {**judge, 'models': [{'api_url': url, 'api_key': 'EMPTY', **m} for m in judge['models']]}
        run = evalscope_eval(url, ['physolym'], {'physolym': args}, tmp_path / name, judge=judge)
        run.requests = chat_requests(url)
    assert run.process.returncode == 0, run.process.stderr[-3000:]
    assert len(run.reviews('physolym')) == ANSWERS
    return run


def scores(run):
    return [r['sample_score']['score'] for r in run.reviews('physolym')]


def total(run, metric):
    found = run.metric('physolym', metric)
    return round(found['score'] * found['num'])


def test_every_review_says_whether_and_why_it_was_judged_and_a_judge_changes_nothing_of_that(tmp_path,
                                                                                               evalscope_eval):
    plain = run_physolym(evalscope_eval, tmp_path, MODEL_RECORDS, name='plain')
    judged = run_physolym(evalscope_eval, tmp_path, MODEL_RECORDS + judge_records('equivalent'),
                          judge={'models': [{'model_id': 'judge'}]}, name='judged')
    routes = []
    for run in (plain, judged):
        by_answer = {}
        for row in run.reviews('physolym'):
            meta = row['sample_score']['score']['metadata']
            assert isinstance(meta['needs_judge'], bool) and meta['judge_reason']
            assert meta['verdict']['needs_judge'] == meta['needs_judge']
            by_answer[(json.dumps(row['target']), row['sample_score']['score']['prediction'])] = (meta['needs_judge'],
                                                                                    meta['judge_reason'])
        routes.append(by_answer)
    assert routes[0] == routes[1]
    reasons = sorted(why for _, why in routes[0].values())
    assert reasons.count('rule_accepted') == 7 and sum(flag for flag, _ in routes[0].values()) == 1
    assert total(judged, 'judged') == 1 and total(judged, 'judge_calls') == 1
    assert judged.requests == ANSWERS + 1  # one model request per answer, one judge request
    assert total(judged, 'judge_prompt_tokens') > 100 and total(judged, 'judge_completion_tokens') > 0
    assert total(judged, 'judge_failed_calls') == 0
    assert not any(m['identity']['name'].startswith('judge') for m in plain.reports['physolym']['metrics'])


def test_scope_rejected_also_judges_rule_rejections_and_reports_agreement_with_the_rules(tmp_path, evalscope_eval):
    records = MODEL_RECORDS + judge_records('not_equivalent') + build_records(
        [([JUDGE_PHRASE, 'anticlockwise (seen from above)'], verdict_reply('equivalent'))], judge=True)
    run = run_physolym(evalscope_eval, tmp_path, records, judge={'models': [{'model_id': 'judge'}]}, scope='rejected')
    routed = [s for s in scores(run) if s['metadata']['needs_judge']]
    reasons = sorted(s['metadata']['judge_reason'] for s in routed)
    assert 'rule_rejected' in reasons and 'rule_accepted' not in reasons
    assert total(run, 'judged') == len(routed) == total(run, 'judge_calls') == run.requests - ANSWERS
    # the judge said "not equivalent" to every rule rejection: full agreement with the rules
    assert run.metric('physolym', 'judge_rule_agreement')['score'] == 1.0
    assert run.metric('physolym', 'judge_rule_agreement')['num'] == reasons.count('rule_rejected')
    assert run.metric('physolym', 'strict_acc')['score'] == pytest.approx(6 / 10)  # the words were right


def test_an_unknown_scope_stops_the_run_before_any_request(tmp_path, evalscope_eval):
    with replay_server(MODEL_RECORDS) as url:
        run = evalscope_eval(url, ['physolym'], {'physolym': {'local_path': str(SAMPLE), 'judge': {'scope': 'most'}}},
                             tmp_path / 'run', judge={'models': [{'model_id': 'j', 'api_url': url}]})
        assert chat_requests(url) == 0
    assert run.process.returncode != 0 and 'undecided, rejected, all' in run.process.stderr


PANEL = [{'model_id': 'judge-yes'}, {'model_id': 'judge-no'}]
PANEL_RECORDS = MODEL_RECORDS + judge_records('equivalent', 'judge-yes') + judge_records('not_equivalent', 'judge-no')


@pytest.mark.parametrize('aggregation,judged_strict', [('mean', 0.5), ('majority_vote', 1.0)])
def test_two_disagreeing_judges_see_only_the_routed_answers_and_their_votes_are_aggregated(
        tmp_path, evalscope_eval, aggregation, judged_strict):
    run = run_physolym(evalscope_eval, tmp_path, PANEL_RECORDS, scope='rejected',
                       judge={'models': PANEL, 'aggregation': aggregation, 'min_valid_judges': 2})
    routed = [s for s in scores(run) if s['metadata']['needs_judge']]
    assert routed and run.requests == ANSWERS + 2 * len(routed)  # rule-accepted answers reach neither judge
    for score in routed:
        assert score['value']['strict_acc'] == judged_strict  # a tied majority goes to the first judge
        assert sorted(score['judge_summary']['judge_models']) == ['judge-no', 'judge-yes']
        assert score['judge_summary']['disagreement']['categorical']['answer']['agreement_ratio'] == 0.5
    assert total(run, 'judge_calls') == 2 * len(routed)


def test_repeats_of_one_judge_are_majority_voted(tmp_path, evalscope_eval):
    cycle = [verdict_reply('equivalent'), verdict_reply('not_equivalent'), verdict_reply('equivalent')]
    run = run_physolym(evalscope_eval, tmp_path, MODEL_RECORDS + judge_records(None, 'judge', responses=cycle),
                       judge={'models': [{'model_id': 'judge'}], 'repeats': 3, 'aggregation': 'majority_vote'})
    [judged] = [s for s in scores(run) if s['metadata']['needs_judge']]
    assert judged['value']['strict_acc'] == 1.0 and judged['value']['judge_calls'] == 3
    assert judged['judge_summary']['valid_observations'] == 3
    labels = [o['metadata']['judge_labels']['answer'] for o in judged['metadata']['judge_observation_metadata']]
    assert labels == ['equivalent', 'not_equivalent', 'equivalent']  # the replay cycled: a real 2:1 vote


#: nothing listens on port 9; no retries, so the dead judge fails at once
DEAD_JUDGE = {'model_id': 'judge-dead', 'api_url': 'http://127.0.0.1:9/v1', 'model_args': {'max_retries': 0},
              'generation_config': {'retries': 0, 'timeout': 5}}


def test_a_dead_panel_member_below_min_valid_judges_costs_failed_calls_not_a_silent_verdict(tmp_path,
                                                                                             evalscope_eval):
    run = run_physolym(evalscope_eval, tmp_path, MODEL_RECORDS + judge_records('equivalent', 'judge-yes'),
                       judge={'models': [{'model_id': 'judge-yes'}, DEAD_JUDGE], 'min_valid_judges': 2})
    [judged] = [s for s in scores(run) if s['metadata']['needs_judge']]
    assert judged['status'] != 'success'  # EvalScope keeps the rule score, marked degraded
    assert judged['value']['judge_calls'] == 2 and judged['value']['judge_failed_calls'] == 1
    assert total(run, 'judge_failed_calls') == 1


def test_replay_records_used_here_are_valid():
    assert load_records(PANEL_RECORDS)
