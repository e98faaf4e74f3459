"""Append-only JSONL: a torn tail is repaired before appending, any string can be written."""
import json

import pytest

from evalscope_phys.jsonl import JsonlAppender, append_record, dumps_line, read_values, repair_torn_tail

# (file content, action, content afterwards)
TAILS = [
    (b'', 'none', b''),
    (b'{"a": 1}\n', 'none', b'{"a": 1}\n'),
    (b'{"a": 1}\n{"b": 2', 'dropped', b'{"a": 1}\n'),
    (b'{"a": 1}\n{"b": 2}', 'terminated', b'{"a": 1}\n{"b": 2}\n'),
    (b'{"b": "torn \xe2\x82', 'dropped', b''),  # cut inside a UTF-8 sequence
    (b'{"a": 1}\n   ', 'dropped', b'{"a": 1}\n'),
]


@pytest.mark.parametrize('content,action,after', TAILS)
def test_repair_torn_tail(tmp_path, content, action, after):
    path = tmp_path / 'cache.jsonl'
    path.write_bytes(content)
    assert repair_torn_tail(path).action == action
    assert path.read_bytes() == after


def test_appending_after_a_torn_line_does_not_glue_the_next_record_to_it(tmp_path):
    path = tmp_path / 'cache.jsonl'
    path.write_bytes(b'{"key": "a"}\n{"key": "b", "val')
    append_record(path, {'key': 'b', 'value': 2})
    assert list(read_values(path)) == [{'key': 'a'}, {'key': 'b', 'value': 2}]


def test_a_lone_surrogate_is_written_escaped_and_reads_back_the_same():
    line = dumps_line({'gen': '\ud800 and ü'})
    line.encode('utf-8')
    assert json.loads(line) == {'gen': '\ud800 and ü'}
    assert dumps_line({'gen': 'ü'}) == '{"gen": "ü"}\n'  # readable when it can be


def test_read_values_skips_damaged_lines_and_keeps_u2028_inside_strings(tmp_path):
    path = tmp_path / 'cache.jsonl'
    path.write_bytes(b'{"a": "x\xe2\x80\xa8y"}\nnot json\n\n{"b": 1}\n{"c": ')
    assert list(read_values(path)) == [{'a': 'x\u2028y'}, {'b': 1}]


def test_appender_from_many_threads_writes_whole_lines(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / 'out.jsonl'
    with JsonlAppender(path) as out, ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: out.append({'i': i, 'pad': 'x' * 10000}), range(200)))
    assert sorted(r['i'] for r in read_values(path)) == list(range(200))


def test_parse_lines_lets_the_caller_choose_strict_or_tolerant():
    from evalscope_phys.jsonl import JsonlError, parse_lines

    text = '{"a": 1}\n\nnot json\n{"b": "x\u2028y"}\n'
    assert parse_lines(text, strict=False) == ([{'a': 1}, {'b': 'x\u2028y'}], ['line 3: Expecting value'])
    with pytest.raises(JsonlError, match=r'^line 3 is not JSON \(Expecting value\)$') as info:
        parse_lines(text)
    assert info.value.line == 3


def test_a_symlinked_file_is_never_opened_for_writing(tmp_path):
    from evalscope_phys.jsonl import JsonlAppender, repair_torn_tail
    from evalscope_phys.safe_paths import UnsafePathError

    outside = tmp_path / 'outside.jsonl'
    outside.write_bytes(b'{"a": 1}\n{"b": 2, "to')
    link = tmp_path / 'run' / 'cache.jsonl'
    link.parent.mkdir()
    link.symlink_to(outside)
    with pytest.raises(UnsafePathError, match='symbolic link'):
        repair_torn_tail(link)
    with pytest.raises(UnsafePathError, match='symbolic link'):
        JsonlAppender(link)
    assert outside.read_bytes() == b'{"a": 1}\n{"b": 2, "to'


def test_evalscope_cache_writer_keeps_a_reply_with_a_lone_surrogate(tmp_path):
    """EvalScope's prediction/review cache writer: the sample is written (escaped) instead of erroring on resume."""
    import evalscope_phys  # noqa: F401  installs the hooks
    from evalscope.utils.io_utils import JsonlWriter, jsonl_to_list

    path = tmp_path / 'predictions.jsonl'
    writer = JsonlWriter(str(path))
    writer.write({'reply': 'half a pair \ud800 here', 'plain': 'é'})
    writer.write({'reply': 'fine'})
    writer.close()
    assert jsonl_to_list(str(path)) == [{'reply': 'half a pair \ud800 here', 'plain': 'é'}, {'reply': 'fine'}]
    assert 'é' in path.read_text(encoding='utf-8').splitlines()[0] or '\\u00e9' in path.read_text()


@pytest.mark.e2e
def test_evalscope_eval_keeps_a_lone_surrogate_reply_and_resume_asks_nothing_again(tmp_path):
    """Through the user's command: before, the sample errored when its prediction was written, and again on
    every ``--use-cache`` resume (one more request each time)."""
    import urllib.request

    from conftest import run_evalscope_eval
    from evalscope_phys.demo import DEMO_DIR
    from evalscope_phys.serve import replay_server
    records = [json.loads(line) for line in (DEMO_DIR / 'physolym_replay.jsonl').read_text().splitlines()
               if line.strip() and not json.loads(line).get('judge')]
    for record in records:
        record['response'] = 'half a pair \ud800 here. ' + record['response']
    args = {'physolym': {'local_path': str(DEMO_DIR / 'physolym_sample.jsonl')}}
    work = tmp_path / 'run'

    def requests(url):
        with urllib.request.urlopen(url.rsplit('/v1', 1)[0] + '/stats', timeout=10) as response:
            return json.load(response)['requests']

    with replay_server(records) as url:
        first = run_evalscope_eval(url, ['physolym'], args, work, extra=['--limit', '2'])
        assert first.process.returncode == 0, first.process.stderr[-3000:]
        asked = requests(url)
        again = run_evalscope_eval(url, ['physolym'], args, work, extra=['--limit', '2', '--use-cache', str(work)])
        assert again.process.returncode == 0, again.process.stderr[-3000:]
        assert requests(url) == asked == 4  # 2 per subset; nothing errored, so nothing is asked again
    assert first.reports['physolym']['execution_summary']['errored'] == 0
    predictions = list((work / 'predictions').rglob('physolym*.jsonl'))
    lines = [json.loads(line) for path in predictions for line in path.read_text(encoding='utf-8').splitlines()]
    assert len(lines) == 4 and all('\ud800' in json.dumps(line, ensure_ascii=False) for line in lines)
