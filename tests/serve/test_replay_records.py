"""Replay records: which record answers which prompt, and which files are rejected."""
import json

import pytest

from evalscope_phys.serve.records import (
    AmbiguousMatch,
    NoMatch,
    ReplayBook,
    ReplayError,
    build_records,
    load_records,
    write_records,
)

RECORDS = [
    {'match': 'block of mass 2 kg', 'response': 'generic block'},
    {'match': 'block of mass 2 kg on a frictionless incline', 'response': 'incline block'},
    {'match': 'pendulum', 'response': 'pendulum', 'model': 'model-a'},
    {'match': 'pendulum of length', 'response': 'pendulum (b)', 'model': 'model-b'},
    {'match': 'spring', 'response': 'spring A'},
    {'match': 'charge', 'response': 'charge'},
    {'match': ['Judge whether', 'v = 3'], 'response': '{"verdict": "equivalent"}', 'judge': True},
    {'match': ['Judge whether', 'v = 4'], 'response': '{"verdict": "different"}', 'judge': True},
]

# (case, messages, model, expected reply or error class, why)
SELECTION_CASES = [
    ('plain', [{'role': 'user', 'content': 'A block of mass 2 kg rests.'}], 'm', 'generic block',
     'only the short match occurs'),
    ('longest wins', [{'role': 'user', 'content': 'A block of mass 2 kg on a frictionless incline.'}], 'm',
     'incline block', 'both occur; the longer match wins'),
    ('last user message only', [
        {'role': 'system', 'content': 'About a pendulum of length 1 m'},
        {'role': 'user', 'content': 'A block of mass 2 kg rests.'}], 'model-b', 'generic block',
     'ordinary records ignore the system prompt and earlier turns'),
    ('model filter a', [{'role': 'user', 'content': 'A pendulum of length 1 m'}], 'model-a', 'pendulum',
     'model-b record is not a candidate for model-a'),
    ('model filter b', [{'role': 'user', 'content': 'A pendulum of length 1 m'}], 'model-b', 'pendulum (b)',
     'model-a record is not a candidate for model-b'),
    ('model filter none', [{'role': 'user', 'content': 'A pendulum of length 1 m'}], 'other', NoMatch,
     'both pendulum records are pinned to other models'),
    ('image parts ignored', [{'role': 'user', 'content': [
        {'type': 'image_url', 'image_url': {'url': 'data:image/png;base64,spring'}},
        {'type': 'text', 'text': 'A block of mass 2 kg rests.'}]}], 'm', 'generic block',
     'the word spring inside the image URL must not count'),
    ('tie is an error', [{'role': 'user', 'content': 'A spring holds a charge!!'}], 'm', AmbiguousMatch,
     'spring and charge have the same length'),
    ('unknown prompt', [{'role': 'user', 'content': 'Nothing recorded here'}], 'm', NoMatch, 'no match'),
    ('judge rule wins', [
        {'role': 'system', 'content': 'Judge whether the answer matches the reference.'},
        {'role': 'user', 'content': 'Problem: a block of mass 2 kg... Answer: v = 3 m/s'}], 'judge',
     '{"verdict": "equivalent"}', 'judge rules see the whole conversation and beat the problem record'),
    ('judge rule per answer', [
        {'role': 'user', 'content': 'Judge whether: a block of mass 2 kg... Answer: v = 4 m/s'}], 'judge',
     '{"verdict": "different"}', 'all phrases of a list match must occur'),
]


@pytest.mark.parametrize('case,messages,model,expected,why', SELECTION_CASES, ids=[c[0] for c in SELECTION_CASES])
def test_selection(case, messages, model, expected, why):
    book = ReplayBook(load_records(RECORDS))
    if isinstance(expected, type):
        with pytest.raises(expected):
            book.select(messages, model)
        return
    index, record, text = book.select(messages, model)
    assert book.replies(index, record, text, seed=None, n=1) == [expected], why


@pytest.mark.parametrize('prompt, reply', [
    ('Grade this. Case id: c0123456789abc\n(copy it)', '{"case": "{case}", "verdict": "equivalent"}'),  # not 10 hex
    ('Grade this. Case id: c0123456789\n(copy it)', '{"case": "c0123456789", "verdict": "equivalent"}'),
    ('Grade this, no case stated.', '{"case": "{case}", "verdict": "equivalent"}'),
])
def test_a_judge_rule_echoes_the_case_the_prompt_states(prompt, reply):
    """Our judge prompts require the reply to name its case; a recorded verdict copies it, as a judge would."""
    book = ReplayBook(load_records([{'match': 'Grade this', 'response': '{"case": "{case}", "verdict": "equivalent"}',
                                     'judge': True}, {'match': 'Grade this', 'response': '{case} stays'}]))
    index, record, text = book.select([{'role': 'user', 'content': prompt}], 'judge')
    assert book.replies(index, record, text, seed=None, n=1) == [reply]
    index, record, text = book.select([{'role': 'user', 'content': 'x'}, {'role': 'user', 'content': prompt}], None)
    assert record.judge  # judge rules first; an ordinary record's reply is never rewritten:
    plain = ReplayBook(load_records([{'match': 'Grade this', 'response': '{case} stays'}]))
    assert plain.replies(*plain.select([{'role': 'user', 'content': prompt}], None), seed=None, n=1) == ['{case} stays']


def test_unknown_prompt_error_quotes_the_start_of_the_prompt():
    book = ReplayBook(load_records(RECORDS))
    prompt = 'Compute the Lagrangian of a double rotor. ' + 'x' * 500
    with pytest.raises(NoMatch) as err:
        book.select([{'role': 'user', 'content': prompt}], 'm')
    message = str(err.value)
    assert 'no recorded answer matched' in message
    assert 'Compute the Lagrangian of a double rotor.' in message
    assert len(message) < 300, 'the quote is cut, not the whole prompt'


def test_seed_picks_response_modulo_length():
    book = ReplayBook(load_records([{'match': 'q', 'responses': ['r0', 'r1', 'r2']}]))
    index, record, text = book.select([{'role': 'user', 'content': 'q'}], None)
    assert [book.replies(index, record, text, seed=s, n=1)[0] for s in (0, 1, 2, 3, 7)] == ['r0', 'r1', 'r2', 'r0', 'r1']
    assert book.replies(index, record, text, seed=2, n=3) == ['r2', 'r0', 'r1']


def test_without_seed_each_prompt_cycles_on_its_own():
    book = ReplayBook(load_records([{'match': 'q', 'responses': ['r0', 'r1']}]))
    first = book.select([{'role': 'user', 'content': 'q one'}], None)
    second = book.select([{'role': 'user', 'content': 'q two'}], None)
    got = [book.replies(*first, seed=None, n=1)[0], book.replies(*first, seed=None, n=1)[0],
           book.replies(*second, seed=None, n=1)[0], book.replies(*first, seed=None, n=1)[0]]
    assert got == ['r0', 'r1', 'r0', 'r0']


BAD_FILES = [
    ({'response': 'x'}, '"match"'),
    ({'match': '', 'response': 'x'}, '"match"'),
    ({'match': 'q'}, 'exactly one of'),
    ({'match': 'q', 'response': 'x', 'responses': ['y']}, 'exactly one of'),
    ({'match': 'q', 'responses': []}, 'non-empty list'),
    ({'match': 'q', 'response': 3}, '"response"'),
    ({'match': 'q', 'response': 'x', 'answer': 'y'}, 'unknown keys'),
    ({'match': 'q', 'response': 'x', 'finish_reason': 'eos'}, 'finish_reason'),
]


@pytest.mark.parametrize('raw,needle', BAD_FILES)
def test_bad_records_are_rejected_with_the_reason(tmp_path, raw, needle):
    path = write_records([{'match': 'fine', 'response': 'ok'}, raw], tmp_path / 'r.jsonl')
    with pytest.raises(ReplayError, match=needle) as err:
        load_records(path)
    assert 'r.jsonl:2' in str(err.value), 'the error names the file and line'


def test_duplicate_match_is_rejected_at_load_time():
    with pytest.raises(ReplayError, match='could never be chosen'):
        load_records([{'match': 'q', 'response': 'a'}, {'match': 'q', 'response': 'b'}])
    # the same phrase for different models, or as a judge rule, is not a duplicate
    assert len(load_records([{'match': 'q', 'response': 'a'}, {'match': 'q', 'response': 'b', 'model': 'm'},
                             {'match': 'q', 'response': 'c', 'judge': True}])) == 3


def test_invalid_json_line_names_the_line(tmp_path):
    path = tmp_path / 'r.jsonl'
    path.write_text('{"match": "q", "response": "a"}\n\n{"match": \n')
    with pytest.raises(ReplayError, match='r.jsonl:3: not valid JSON'):
        load_records(path)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ReplayError, match='replay file not found'):
        load_records(tmp_path / 'absent.jsonl')


def test_build_records_round_trips_through_a_file(tmp_path):
    records = build_records([('q1', 'a1'), (['q2', 'extra'], ['a2', 'b2'])])
    assert records == [{'match': 'q1', 'response': 'a1'}, {'match': ['q2', 'extra'], 'responses': ['a2', 'b2']}]
    judges = build_records([('Judge whether', '{"verdict": "equivalent"}')], judge=True, model='judge')
    assert judges == [{'match': 'Judge whether', 'response': '{"verdict": "equivalent"}', 'judge': True,
                       'model': 'judge'}]
    path = write_records(records + judges, tmp_path / 'r.jsonl')
    assert [json.loads(line) for line in path.read_text().splitlines()] == records + judges
    assert len(load_records(path)) == 3
    with pytest.raises(ReplayError):
        build_records([('q', 5)])
