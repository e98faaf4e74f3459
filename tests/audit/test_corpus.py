"""Loading pools and eval sets, and the documented normalisation."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalscope_phys.audit.corpus import CorpusError, load_corpus, normalise, read_corpus_rows, write_records

FIXTURES = Path(__file__).resolve().parent / 'fixtures'

# (raw text, normalised form, what the case shows)
NORMALISATION = [
    ('Find the SPEED', 'find the speed', 'case folds'),
    ('a  \n\t b', 'a b', 'whitespace collapses'),
    (r'$m = 2\,\mathrm{kg}$', 'm 2 mathrm kg', 'thin space \\, removed; punctuation/symbols to spaces'),
    (r'$m=2 \mathrm{~kg}$', 'm 2 mathrm kg', 'the ~ spacing of OCR output matches \\,'),
    (r'2\;\mathrm{m}\quad x\qquad y\!z', '2 mathrm m x y z', 'all LaTeX spacing commands'),
    (r'\left( \frac{p}{q} \right)', 'frac p q', '\\left/\\right sizing dropped'),
    (r'\leftarrow', 'leftarrow', 'a command that merely starts with "left" is kept'),
    ('ｖ₀ = ２ m/s', 'v0 2 m s', 'NFKC folds full-width and subscript forms'),
    ('speed, velocity; (and) "momentum"!', 'speed velocity and momentum', 'punctuation'),
    ('v_{1}^{2}', 'v 1 2', 'underscore and caret are separators'),
]


@pytest.mark.parametrize('raw, expected, why', NORMALISATION, ids=[c[2] for c in NORMALISATION])
def test_normalise(raw: str, expected: str, why: str) -> None:
    assert normalise(raw) == expected, why


def test_jsonl_pool_with_explicit_fields_and_auto_ids() -> None:
    pool = load_corpus(FIXTURES / 'pool.jsonl', text_fields=['problem', 'solution'])
    assert len(pool) == 10
    assert pool.items[0].id == 'p-block-incline'  # 'uid' is the first unique id field present
    assert pool.items[0].text.startswith('A block of mass') and 'Energy conservation' in pool.items[0].text
    assert pool.text_fields == ('problem', 'solution')


def test_json_eval_default_field_is_question() -> None:
    ev = load_corpus(FIXTURES / 'eval.json')
    assert ev.text_fields == ('question',)
    assert [i.id for i in ev.items] == ['1', '2', '3', '4', '5', '6']
    assert ev.items[4].text == ''


def test_list_valued_fields_are_joined(tmp_path: Path) -> None:
    path = tmp_path / 'x.json'
    path.write_text(json.dumps([{'question': 'Q', 'solution': ['step one', 'step two']}]))
    c = load_corpus(path, ['question', 'solution'])
    assert c.items[0].text == 'Q\n\nstep one\n\nstep two'
    assert c.items[0].id == '0'  # no id field: row number


def test_parquet_round_trip(tmp_path: Path) -> None:
    pytest.importorskip('pyarrow')
    rows = read_corpus_rows(FIXTURES / 'pool.jsonl')
    path = tmp_path / 'pool.parquet'
    write_records(path, rows, like=path)
    again = load_corpus(path, ['problem'], id_field='uid')
    assert [i.id for i in again.items] == [r['uid'] for r in rows]
    assert again.items[3].text == rows[3]['problem']


def test_json_object_wrapping_one_list(tmp_path: Path) -> None:
    path = tmp_path / 'w.json'
    path.write_text(json.dumps({'version': 1, 'data': [{'problem': 'p1'}, {'problem': 'p2'}]}))
    assert load_corpus(path).texts == ['p1', 'p2']


@pytest.mark.parametrize('name, content, message', [
    ('a.csv', 'problem\nx\n', 'unsupported file type'),
    ('b.jsonl', '{"problem": "x"}\n{not json\n', 'b.jsonl:2: not valid JSON'),
    ('c.json', '[1, 2]', 'record 0 is a int'),
    ('d.json', '{"a": [], "b": []}', 'one list'),
    ('e.json', '[{"text_x": "x"}]', 'none of the default text fields'),
])
def test_bad_inputs_give_clear_errors(tmp_path: Path, name: str, content: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(CorpusError, match=message):
        load_corpus(path)


def test_missing_named_field_and_duplicate_ids(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match=r"\['answer'\] appear in no record"):
        load_corpus(FIXTURES / 'eval.json', ['answer'])
    path = tmp_path / 'dup.jsonl'
    path.write_text('{"id": 1, "problem": "a"}\n{"id": 1, "problem": "b"}\n')
    with pytest.raises(CorpusError, match='not unique'):
        load_corpus(path, id_field='id')
    assert [i.id for i in load_corpus(path).items] == ['0', '1']  # auto ids skip a non-unique field
    with pytest.raises(CorpusError, match='no such file'):
        load_corpus(tmp_path / 'missing.json')


def test_a_record_with_its_text_under_another_field_is_an_error_not_empty_text(tmp_path: Path) -> None:
    pool = tmp_path / 'pool.jsonl'
    pool.write_text('{"uid": "a", "problem": "A block slides."}\n{"uid": "b", "question": "An exact copy."}\n')
    with pytest.raises(CorpusError, match=r"record 1 has none of the text fields \['problem'\] but has text under "
                                          r"\['question', 'uid'\]"):
        load_corpus(pool)
    assert [i.text for i in load_corpus(pool, ('problem', 'question')).items] == ['A block slides.', 'An exact copy.']


def test_the_audit_command_refuses_such_a_pool_in_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys
    pool = tmp_path / 'pool.jsonl'
    copy = 'A ball is thrown straight up at 10 m/s. How high does it rise?'
    pool.write_text(json.dumps({'uid': 'a', 'problem': 'A block slides.'}) + '\n' +
                    json.dumps({'uid': 'b', 'question': copy}) + '\n')
    ev = tmp_path / 'eval.json'
    ev.write_text(json.dumps([{'id': 1, 'question': copy}]))
    done = subprocess.run([sys.executable, '-m', 'evalscope_phys', 'audit', '--pool', str(pool), '--eval', str(ev),
                           '--out', str(tmp_path / 'out'), '--no-embed', '--write-clean'],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and 'record 1 has none of the text fields' in done.stderr
    assert not (tmp_path / 'out' / 'clean').exists()
