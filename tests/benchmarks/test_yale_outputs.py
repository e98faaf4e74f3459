"""Yale's published run files beside ours: reading them, replaying them, and splitting the difference by reason."""
import json

import pytest

from evalscope_phys.benchmarks.yale_outputs import YaleRecord, explain, problem_reason, read_run, replay_records

REFERENCES = {'optics/1': ['u = 185 \\text{ cm}', '\\Delta x = 4.6 \\times 10^{-3} \\text{ cm}'], 'optics/2': ['n = 2']}


def equivalency(expr1, expr2, verdict):
    return {'input_expressions': {'expr1': expr1, 'expr2': expr2}, 'sympy_result': None, 'llm_result': verdict,
            'final_result': verdict, 'error': None}


@pytest.fixture()
def run_dir(tmp_path):
    """Their layout: <domain>_dataset_textonly/{response.jsonl, accuracy.csv}."""
    folder = tmp_path / 'o3-mini_output' / 'optics_dataset_textonly'
    folder.mkdir(parents=True)
    rows = [
        {'id': 'optics/1', 'solution': 'worked ... \\boxed{1.85 m}', 'final_answers': ['1.85 m'], 'accuracy': 1.0,
         'equivalency_results': [equivalency('1.85 m', REFERENCES['optics/1'][0], True)]},  # stops at the first match
        {'id': 'optics/2', 'solution': 'no box at all', 'final_answers': [], 'accuracy': 0.0, 'equivalency_results': []},
    ]
    (folder / 'response.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows))
    (folder / 'accuracy.csv').write_text('Overall Accuracy,Variance,Sympy Error Correct Ratio\n0.5,0.25,0.0\n')
    return tmp_path / 'o3-mini_output'


def test_their_run_is_read_with_the_part_they_accepted(run_dir):
    records, published = read_run(run_dir, REFERENCES)
    assert published == {'optics': 0.5}
    assert records['optics/1'].accepted_part == 0 and records['optics/1'].accuracy == 1.0
    assert records['optics/2'].accepted_part is None and records['optics/2'].boxed == 0


def yale(accuracy, accepted=None, boxed=1):
    return YaleRecord('x', 'optics', '', accuracy, accepted, boxed)


def part(strict, reason='equivalent'):
    return {'strict': strict, 'reason': reason, 'scored': True}


@pytest.mark.parametrize('parts, theirs, reason', [
    ([part(True), part(True)], yale(1.0, 0), 'agree'),
    ([part(False, 'not_equivalent')], yale(0.0), 'agree'),
    ([part(True), part(False, 'no_answer')], yale(1.0, 0),
     'one matching answer suffices for them; another answer: no answer found for that part'),
    ([part(False, 'within_tolerance'), part(True)], yale(1.0, 0),
     'we reject the answer they accept: a number right within 1% only (rounded reference)'),
    ([part(True)], yale(0.0, boxed=0), 'we accept every answer; their script found no boxed answer'),
    ([part(True)], yale(0.0), 'we accept every answer; their SymPy/LLM check rejected it'),
])
def test_each_problem_gets_one_reason(parts, theirs, reason):
    assert problem_reason(parts, theirs) == reason


def test_the_reasons_add_up_to_the_difference_and_unscored_problems_stay_out():
    theirs = {'a': yale(1.0, 0), 'b': yale(0.5, 1), 'c': yale(0.0), 'd': yale(1.0, 0)}
    ours = {'a': [part(True), part(False, 'undecided')], 'b': [part(False, 'count_mismatch'), part(False)],
            'c': [part(True)], 'd': [part(True), {'strict': None, 'reason': 'timeout', 'scored': False}]}
    comparison = explain(ours, theirs)
    assert comparison.problems == 3 and comparison.unscored == 1
    assert comparison.ours == pytest.approx(1 / 3) and comparison.theirs == pytest.approx(1.5 / 3)
    assert sum(comparison.by_reason.values()) / comparison.problems == pytest.approx(comparison.difference)


def test_a_question_under_two_ids_gets_one_replay_record():
    solutions = {'q/1': YaleRecord('q/1', 'quantum', 'first', 1.0, 0, 1), 'a/9': YaleRecord('a/9', 'atomic', 'second', 1.0, 0, 1)}
    records, shared = replay_records({'q/1': 'same question', 'a/9': 'same question'}, solutions)
    assert [r['response'] for r in records] == ['second'] and shared == ['a/9', 'q/1']  # the first id in order
