"""Labels, the one home: labelled parts in any order, Part/Stage labels, label keys, empty dataset labels."""
import pytest

from evalscope_phys.scoring.read.labels import clean_label, is_label, label_key, label_orders, labelled_groups

# (response, (label order, text) in the order written)
GROUPS = [
    (r'\boxed{(b)\ y = 2 \quad (a)\ x = 1}', [(1, 'y = 2'), (0, 'x = 1')]),  # a label is a label
    (r'\text{Part 1: } v = 3, \quad \text{Part 2: } t = 4', [(0, 'v = 3'), (1, 't = 4')]),
    (r'\text{Stage 1: } d = 84\,\text{m} \\ \text{Stage 2: } d = 12\,\text{m}',
     [(0, r'd = 84\,\text{m}'), (1, r'd = 12\,\text{m}')]),
    (r'\mbox{(a)}\; x = 1 \\ \mbox{(b)}\; y = 2', [(0, 'x = 1'), (1, 'y = 2')]),
    (r'(ii) y = 2; (i) x = 1', [(1, 'y = 2'), (0, 'x = 1')]),
    # not labels: a function's argument, labels that skip the first one, a repeated nested label
    (r'E(r) = 3, (a+b)', []),
    (r'(b) x = 1, (c) y = 2', []),
    (r'\text{Part 2: } x = 1', []),
    (r'(a) x = 1, (i) u = 2, (b) y = 3, (i) w = 4', [(0, r'x = 1, (i) u = 2'), (1, r'y = 3, (i) w = 4')]),
]


@pytest.mark.parametrize('response, groups', GROUPS)
def test_labelled_groups(response, groups):
    assert labelled_groups(response) == groups


@pytest.mark.parametrize('label, key', [
    ('(a)', 'a'), ('a)', 'a'), (r'\text{(B)}', 'b'), ('Part 2', '2'), ('(ii)', 'ii'), ('', ''), ('None', ''),
    ('energy', ''), ('(a) and (b)', ''),
])
def test_label_key(label, key):
    assert label_key(label) == key


def test_label_orders_read_one_kind():
    assert label_orders(['a', 'b', 'c']) == [0, 1, 2]
    assert label_orders(['i', 'ii', 'iii']) == [0, 1, 2]
    assert label_orders(['1', '2']) == [0, 1]
    assert label_orders(['a', '2']) is None


@pytest.mark.parametrize('text, cleaned', [
    ('None', ''), (r'\text{None}', ''), ('null', ''), ('-', ''), ('$m/s$', 'm/s'), (r'\, kg', 'kg'), ('"J"', 'J'),
])
def test_clean_label(text, cleaned):
    assert clean_label(text) == cleaned


# a piece that is only a label answers nothing (pairing weighs it as commentary, compare says no_answer)
@pytest.mark.parametrize('text, only_a_label', [
    ('(b)', True), (r'\textbf{(c)}', True), ('Part (a)', True),
    (r'\text{(b)(i)}', True), ('(b)(ii)', True), (r'(b)\text{(ii)}', True), ('(a)(2)', True),  # a sub-part's label
    ('(a)(b)', False), ('(x)(y)', False),  # two letters: a product, not a part and its sub-part
    ('(b)(i)(ii)', False), ('(b) x', False), ('E(r)', False),
])
def test_is_label(text, only_a_label):
    assert is_label(text) is only_a_label


@pytest.mark.parametrize('box,groups', [
    (r'\boxed{a\ T,\quad b\ F,\quad c\ T}', [(0, 'T'), (1, 'F'), (2, 'T')]),   # lettered truth values: labels
    (r'\boxed{a: T \\ b: F}', [(0, 'T'), (1, 'F')]),
    (r'\boxed{b\ T,\quad c\ F}', []),            # not lettered from a: the letters stay letters
    (r'\boxed{a\ T,\quad c\ F}', []),            # a letter skipped
    (r'\boxed{a\ T,\quad b = 3}', []),           # one item is no truth value: nothing is relabelled
    (r'\boxed{a\ T}', []),                       # one item alone: a product, as before
])
def test_a_whole_list_of_lettered_truth_values_is_labelled(box, groups):
    assert labelled_groups(box) == groups
