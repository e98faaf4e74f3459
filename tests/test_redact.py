"""Credentials never reach a written config or a log: which names are secret, and the masked copy."""
import pytest

from evalscope_phys.redact import MASK, is_secret_header, mask_text, redact

#: (header name, is it a credential)
HEADER_CASES = [
    ('Authorization', True),
    ('proxy-authorization', True),
    ('api-key', True),  # Azure OpenAI
    ('API_KEY', True),
    ('x-api-key', True),
    ('X-Goog-Api-Key', True),
    ('x-auth-token', True),
    ('X-Custom-Token', True),
    ('x-client-secret', True),
    ('Cookie', True),
    ('Ocp-Apim-Subscription-Key', True),  # Azure API Management
    ('X-Custom-Auth', True),
    ('X-Portkey-Virtual-Key', True),
    ('X-Session-Id', True),
    ('Accept', False),
    ('Content-Type', False),
    ('X-Request-Id', False),
    ('User-Agent', False),
    ('OpenAI-Organization', False),
]


@pytest.mark.parametrize('name, secret', HEADER_CASES)
def test_credential_headers_are_recognised_by_name(name, secret):
    assert is_secret_header(name) is secret


def test_redact_masks_api_keys_anywhere_and_credential_headers_only_in_header_maps():
    config = {
        'api_key': 'sk-1',
        'generation_config': {'max_tokens': 512, 'extra_headers': {'api-key': 'az-2', 'X-Trace': 'ok'}},
        'judge': {'models': [{'api_key': 'sk-3', 'generation_config': {'default_headers': {'Authorization': 'B 4'}}}]},
        'model_args': {'max_tokens_per_call': 9, 'token_budget': 10},
        'empty': {'api_key': ''},
    }
    assert redact(config) == {
        'api_key': MASK,
        'generation_config': {'max_tokens': 512, 'extra_headers': {'api-key': MASK, 'X-Trace': 'ok'}},
        'judge': {'models': [{'api_key': MASK, 'generation_config': {'default_headers': {'Authorization': MASK}}}]},
        'model_args': {'max_tokens_per_call': 9, 'token_budget': 10},  # not headers: names are not judged
        'empty': {'api_key': ''},
    }


def test_evalscope_masks_every_credential_header_once_the_hook_ran():
    from evalscope.api.model.generate_config import GenerateConfig
    from evalscope.utils.argument_utils import get_secret_value

    headers = {'api-key': 'az-1', 'X-Custom-Token': 't-2', 'Authorization': 'Bearer 3', 'X-Trace': 'seen'}
    config = GenerateConfig(extra_headers=headers)
    dumped = config.model_dump(mode='json')['extra_headers']
    assert dumped == {'api-key': '**********', 'X-Custom-Token': '**********', 'Authorization': '**********',
                      'X-Trace': 'seen'}
    assert get_secret_value(config.extra_headers) == headers, 'the request itself still carries the values'


def test_judge_model_headers_are_masked_in_dumps_and_intact_for_requests():
    from evalscope.config import TaskConfig
    from evalscope.utils.argument_utils import get_secret_value

    headers = {'api-key': 'judge-secret', 'X-Trace': 'seen'}
    config = TaskConfig.from_dict({'model': 'm', 'api_url': 'http://127.0.0.1:1/v1', 'judge': {'models': [
        {'model_id': 'j', 'api_url': 'http://127.0.0.1:2/v1', 'generation_config': {'extra_headers': headers}}]}})
    judge = config.judge.models[0]
    assert get_secret_value(judge.generation_config) == {'extra_headers': headers}
    dumped = config.to_dict()['judge']['models'][0]['generation_config']['extra_headers']
    assert dumped == {'api-key': '**********', 'X-Trace': 'seen'}
    assert 'judge-secret' not in str(config)


#: (text, masked): URL userinfo and credential-named query parameters, nothing else
URL_CASES = [
    ('https://user:pa55@api.example.com/v1', 'https://***@api.example.com/v1'),
    ('http://tok@127.0.0.1:8000/v1/chat', 'http://***@127.0.0.1:8000/v1/chat'),
    ('https://x.openai.azure.com/v1?api-version=2024&key=abc', 'https://x.openai.azure.com/v1?api-version=2024&key=***'),
    ('https://h/v1?code=1&sig=zz&access_token=t', 'https://h/v1?code=1&sig=***&access_token=***'),
    ('http://127.0.0.1:8000/v1', 'http://127.0.0.1:8000/v1'),
    ('https://h/v1?model=qwen&temperature=0', 'https://h/v1?model=qwen&temperature=0'),
    ('a=b, e-mail me@example.com', 'a=b, e-mail me@example.com'),
]


@pytest.mark.parametrize('text, masked', URL_CASES)
def test_credentials_in_urls_are_masked_by_rule(text, masked):
    assert mask_text(text) == masked


def test_redact_masks_urls_anywhere_in_a_config():
    config = {'api_url': 'https://u:p@h/v1', 'judge': {'models': [{'api_url': 'https://h/v1?key=k1'}]},
              'datasets': ['phybench'], 'limit': 3}
    assert redact(config) == {'api_url': f'https://{MASK}@h/v1', 'judge': {'models': [{'api_url': f'https://h/v1?key={MASK}'}]},
                              'datasets': ['phybench'], 'limit': 3}


def test_evalscope_task_config_dump_and_log_mask_url_credentials():
    from evalscope.config import TaskConfig

    task = TaskConfig(model='m', api_url='https://user:SEKRET1@h/v1?key=SEKRET2', datasets=['phybench'],
                      eval_type='openai_api')
    assert 'SEKRET' not in str(task) and 'SEKRET' not in repr(task.to_dict())
    assert task.api_url == 'https://user:SEKRET1@h/v1?key=SEKRET2', 'the request still uses the real URL'
