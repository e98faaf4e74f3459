"""The replay server over real HTTP, driven by the ``openai`` SDK and by ``requests``."""
import json
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest
import requests

from evalscope_phys.serve import build_records, replay_server, write_records

RECORDS = build_records([
    ('block of mass 2 kg', r'The acceleration is \boxed{4.9\,\mathrm{m/s^2}}.'),
    ('block of mass 2 kg on a frictionless incline', 'incline answer'),
    ('PHYS-SEEDED', ['sample zero', 'sample one', 'sample two']),
]) + build_records([('Judge whether', '{"verdict": "equivalent"}')], judge=True)

BLOCK = 'A block of mass 2 kg is pushed with 9.8 N. Find its acceleration.'


def client(url, **kwargs):
    return openai.OpenAI(base_url=url, api_key='EMPTY', max_retries=kwargs.pop('max_retries', 0), **kwargs)


def ask(url, text, **kwargs):
    return client(url).chat.completions.create(model='replay-model', messages=[{'role': 'user', 'content': text}],
                                               **kwargs)


def stats(url):
    return requests.get(url.removesuffix('/v1') + '/stats', timeout=5).json()


@pytest.fixture
def url():
    with replay_server(RECORDS) as base_url:
        yield base_url


def test_openai_client_gets_the_recorded_answer_with_usage(url):
    completion = ask(url, BLOCK)
    assert completion.choices[0].message.content == r'The acceleration is \boxed{4.9\,\mathrm{m/s^2}}.'
    assert completion.choices[0].finish_reason == 'stop'
    assert completion.model == 'replay-model'
    usage = completion.usage
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_longest_match_wins_over_http(url):
    assert ask(url, 'A block of mass 2 kg on a frictionless incline.').choices[0].message.content == 'incline answer'


def test_streaming_reassembles_to_the_same_text_with_a_usage_chunk(url):
    stream = ask(url, BLOCK, stream=True, stream_options={'include_usage': True})
    chunks = list(stream)
    text = ''.join(c.choices[0].delta.content or '' for c in chunks if c.choices)
    assert text == r'The acceleration is \boxed{4.9\,\mathrm{m/s^2}}.'
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ['stop']
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0


def test_seed_picks_the_response_and_n_gives_several(url):
    assert [ask(url, 'PHYS-SEEDED', seed=s).choices[0].message.content for s in (0, 1, 5)] == \
        ['sample zero', 'sample one', 'sample two']
    completion = ask(url, 'PHYS-SEEDED', seed=1, n=3)
    assert [c.message.content for c in completion.choices] == ['sample one', 'sample two', 'sample zero']


def test_without_seed_requests_cycle(url):
    assert [ask(url, 'PHYS-SEEDED').choices[0].message.content for _ in range(4)] == \
        ['sample zero', 'sample one', 'sample two', 'sample zero']


def test_image_prompts_match_on_their_text_parts(url):
    content = [{'type': 'image_url', 'image_url': {'url': 'data:image/png;base64,iVBORw0KGgo='}},
               {'type': 'text', 'text': BLOCK}]
    completion = client(url).chat.completions.create(model='vlm', messages=[{'role': 'user', 'content': content}])
    assert completion.choices[0].message.content.endswith(r'\boxed{4.9\,\mathrm{m/s^2}}.')
    assert completion.usage.prompt_tokens == -(-len(BLOCK) // 4), 'usage counts text, not the image bytes'


def test_judge_rule_answers_a_judge_prompt_that_quotes_the_problem(url):
    messages = [{'role': 'system', 'content': 'Judge whether the answer is equivalent to the reference.'},
                {'role': 'user', 'content': f'Problem: {BLOCK}\nAnswer: 4.9 m/s^2'}]
    completion = client(url).chat.completions.create(model='judge', messages=messages)
    assert json.loads(completion.choices[0].message.content) == {'verdict': 'equivalent'}


def test_unknown_prompt_is_a_404_that_quotes_the_prompt(url):
    with pytest.raises(openai.NotFoundError) as err:
        ask(url, 'What is the Reynolds number of honey in a straw?')
    assert 'no recorded answer matched' in str(err.value)
    assert 'What is the Reynolds number of honey' in str(err.value)
    response = requests.post(url + '/chat/completions', timeout=5, json={
        'model': 'm', 'messages': [{'role': 'user', 'content': 'What is the Reynolds number of honey?'}]})
    assert response.status_code == 404
    assert response.json()['error']['code'] == 'no_replay_match'
    assert stats(url)['unmatched'] == 2


def test_ambiguous_and_malformed_requests_are_400(tmp_path):
    path = write_records(build_records([('spring', 'a'), ('charge', 'b')]), tmp_path / 'r.jsonl')
    with replay_server(path) as url:
        tie = requests.post(url + '/chat/completions', timeout=5,
                            json={'model': 'm', 'messages': [{'role': 'user', 'content': 'spring charge'}]})
        assert tie.status_code == 400 and tie.json()['error']['code'] == 'ambiguous_replay_match'
        for body in (b'not json', b'[1, 2]', json.dumps({'messages': 'hello'}).encode()):
            bad = requests.post(url + '/chat/completions', data=body, timeout=5)
            assert bad.status_code == 400, body
            assert bad.json()['error']['message'].startswith('bad request')


def test_models_health_and_unknown_paths(url):
    base = url.removesuffix('/v1')
    assert requests.get(base + '/health', timeout=5).json() == {'status': 'ok'}
    assert [m.id for m in client(url).models.list()] == ['replay']
    assert requests.get(base + '/v2/nothing', timeout=5).status_code == 404
    assert requests.post(url + '/completions', json={}, timeout=5).status_code == 404


def test_500_fault_fires_on_its_request_number_only():
    with replay_server(RECORDS, faults='2:500') as url:
        assert ask(url, BLOCK).choices  # request 1
        with pytest.raises(openai.InternalServerError) as err:  # request 2
            ask(url, BLOCK)
        assert err.value.status_code == 500 and 'injected fault' in str(err.value)
        assert ask(url, BLOCK).choices  # request 3
        assert stats(url)['faults_fired'] == [{'request': 2, 'kind': '500'}]


def test_sdk_retry_gets_past_a_500():
    with replay_server(RECORDS, faults='1:500') as url:
        completion = client(url, max_retries=1).chat.completions.create(
            model='m', messages=[{'role': 'user', 'content': BLOCK}])
        assert completion.choices[0].message.content.startswith('The acceleration')
        assert stats(url)['requests'] == 2


def test_slow_fault_outlasts_the_client_timeout_then_the_server_answers_again():
    with replay_server(RECORDS, faults='1:slow', slow_seconds=30) as url:
        with pytest.raises(openai.APITimeoutError):
            client(url, timeout=0.5).chat.completions.create(model='m', messages=[{'role': 'user', 'content': BLOCK}])
        assert ask(url, BLOCK).choices[0].message.content.startswith('The acceleration')
        assert stats(url)['faults_fired'] == [{'request': 1, 'kind': 'slow'}]


def test_slow_fault_answers_a_patient_client():
    with replay_server(RECORDS, faults='1:slow', slow_seconds=0.3) as url:
        assert ask(url, BLOCK).choices[0].message.content.startswith('The acceleration')


def test_badjson_fault_is_an_unparsable_200():
    with replay_server(RECORDS, faults='1:badjson,2:badjson') as url:
        response = requests.post(url + '/chat/completions', timeout=5,
                                 json={'model': 'm', 'messages': [{'role': 'user', 'content': BLOCK}]})
        assert response.status_code == 200
        assert response.headers['Content-Type'] == 'application/json'
        with pytest.raises(ValueError):
            response.json()
        with pytest.raises(ValueError):  # the SDK gets a 200 and fails to decode it (JSONDecodeError)
            ask(url, BLOCK)
        assert ask(url, BLOCK).choices


def test_badjson_fault_in_a_stream_is_an_unparsable_event():
    with replay_server(RECORDS, faults='1:badjson') as url:
        with pytest.raises(ValueError):
            list(ask(url, BLOCK, stream=True))
        assert ''.join(c.choices[0].delta.content or '' for c in ask(url, BLOCK, stream=True) if c.choices)


def test_periodic_faults_count_concurrent_requests_exactly():
    with replay_server(RECORDS, faults='every=5:500') as url:
        def one(_):
            try:
                ask(url, BLOCK)
                return 'ok'
            except openai.InternalServerError:
                return '500'

        with ThreadPoolExecutor(max_workers=8) as pool:
            outcomes = list(pool.map(one, range(40)))
        assert outcomes.count('500') == 8 and outcomes.count('ok') == 32
        assert sorted(f['request'] for f in stats(url)['faults_fired']) == [5, 10, 15, 20, 25, 30, 35, 40]


def test_an_oversized_request_is_413_without_reading_it(url):
    import socket
    from urllib.parse import urlparse

    from evalscope_phys.serve.replay import MAX_REQUEST_BYTES
    parsed = urlparse(url)
    with socket.create_connection((parsed.hostname, parsed.port), timeout=10) as sock:
        sock.sendall(f'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {MAX_REQUEST_BYTES + 1}\r\n'
                     'Content-Type: application/json\r\n\r\n{'.encode())
        assert sock.recv(200).startswith(b'HTTP/1.1 413')


def test_connections_beyond_the_bound_are_refused_not_queued(monkeypatch):
    import socket

    from evalscope_phys.serve import replay
    monkeypatch.setattr(replay, 'MAX_CONNECTIONS', 2)
    with replay_server(RECORDS) as base:
        host, port = base.removeprefix('http://').removesuffix('/v1').split(':')
        held = [socket.create_connection((host, int(port)), timeout=10) for _ in range(2)]
        try:
            for sock in held:  # a partial request keeps its handler thread busy
                sock.sendall(b'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n')
            with socket.create_connection((host, int(port)), timeout=10) as extra:
                assert extra.recv(100).startswith(b'HTTP/1.1 503')
        finally:
            for sock in held:
                sock.close()
