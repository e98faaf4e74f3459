"""Short texts' results are remembered; long ones never are, so the memory stays bounded in bytes."""
from evalscope_phys.scoring.read import text_memo
from evalscope_phys.scoring.read.text_memo import MAX_CHARS, short_texts


def _counting():
    calls = []

    @short_texts
    def upper(text):
        calls.append(text)
        return text.upper()

    return upper, calls


def test_a_short_text_is_computed_once():
    upper, calls = _counting()
    assert upper('north') == 'NORTH'
    assert upper('north') == 'NORTH'
    assert calls == ['north']


def test_a_long_text_is_computed_every_time_and_not_kept():
    upper, calls = _counting()
    long = 'x' * (MAX_CHARS + 1)
    assert upper(long) == long.upper()
    assert upper(long) == long.upper()
    assert calls == [long, long]
    assert upper.cache_info().currsize == 0


def test_the_number_of_entries_is_bounded(monkeypatch):
    monkeypatch.setattr(text_memo, 'ENTRIES', 4)
    upper, calls = _counting()
    for i in range(10):
        upper(f'text {i}')
    assert upper.cache_info().currsize == 4
    upper('text 0')  # evicted long ago: computed again
    assert calls.count('text 0') == 2


def test_the_memoised_readers_answer_as_before():
    """The functions memoised for speed are pure: a repeat gives the same result, a list result is
    the caller's own copy (mutating it does not change the next answer)."""
    from evalscope_phys.scoring.compare.quantity_names import name_key
    from evalscope_phys.scoring.read.scan import top_level_split_keeping
    from evalscope_phys.scoring.read.words import is_prose
    assert name_key(r'E_{\text{min}}') == name_key(r'E_{\text{min}}')
    assert is_prose('north') and is_prose('north') and not is_prose('mgh')
    parts, found = top_level_split_keeping('a = b, c = d', (',',))
    parts.append('changed')
    assert top_level_split_keeping('a = b, c = d', (',',)) == (['a = b', ' c = d'], [','])


def test_forget_empties_every_memory():
    upper, calls = _counting()
    upper('north')
    text_memo.forget()
    assert upper.cache_info().currsize == 0
    upper('north')
    assert calls == ['north', 'north']
