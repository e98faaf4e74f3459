"""The one brace-depth scan (``scan.unclosed_braces``) that ``balanced`` and ``braces`` share."""
from __future__ import annotations

import pytest

from evalscope_phys.scoring.read.braces import close_reference_groups, repair_braces
from evalscope_phys.scoring.read.scan import balanced, unclosed_braces


@pytest.mark.parametrize('text, unclosed', [
    (r'\frac{a}{b}', []),
    (r'\frac{a}{b', [8]),
    (r'\sqrt{\frac{a}{b}', [5]),
    (r'\{x\}', []),  # escaped braces are no group
    (r'\left\{ x', []),
    (r'a\\{b', [3]),  # a line break, then a real group
    (r'x}', None),  # a closing brace too many
])
def test_unclosed_braces(text, unclosed):
    assert unclosed_braces(text) == unclosed
    assert balanced(text) is (unclosed == [])


def test_the_two_repairs_read_the_same_depth():
    assert repair_braces(r'\frac{a}{b') == r'\frac{a}{b}'
    assert close_reference_groups(r'\sqrt{\frac{a}{b') == r'\sqrt{\frac{a}{b}}'
    assert repair_braces(r'\{a') == r'\{a' and close_reference_groups(r'\{a') == r'\{a'
    assert close_reference_groups('x}') == 'x}'


def _split_char_by_char(text, separators, after_stray_closer=True):
    """The specification: every character looked at, in order (what the jumping scan must equal)."""
    from evalscope_phys.scoring.read.scan import _CLOSERS, _OPENERS, command_end
    commands = {s[1:] for s in separators if len(s) > 1 and s[0] == '\\' and s[1:].isalpha()}
    literals = sorted((s for s in separators if not (s.startswith('\\') and s[1:] in commands)), key=len, reverse=True)
    parts, found, depth, start, i = [], [], 0, 0, 0
    while i < len(text):
        top = depth == 0 or (depth < 0 and after_stray_closer)
        hit = next((s for s in literals if text.startswith(s, i)), None) if top else None
        if hit:
            parts.append(text[start:i])
            found.append(hit)
            start = i = i + len(hit)
            continue
        if text[i] == '\\':
            j = command_end(text, i)
            name = text[i + 1:j]
            if top and name in commands:
                parts.append(text[start:i])
                found.append(text[i:j])
                start = i = j
                continue
            depth += 1 if name in _OPENERS else -1 if name in _CLOSERS and not (name == 'rangle' and depth == 0) else 0
            i = j
            continue
        depth += 1 if text[i] in '{([' else -1 if text[i] in '})]' else 0
        i += 1
    parts.append(text[start:])
    return parts, found


SPLIT_SEPARATORS = [(',', ';'), ('=', '\\approx', '\\le', '<'), ('\\\\', '&'), ('\\text{ and }', ',', '\\quad'),
                    (':',), ('\\cup',)]


def test_the_scan_jumps_only_over_text_that_cannot_split_or_nest():
    import random
    from evalscope_phys.scoring.read.scan import top_level_split_keeping
    rng = random.Random(7)
    alphabet = list('ab,;=<:{}()[]\\ |&') + ['\\left', '\\right(', '\\langle', '\\rangle', '\\le', '\\leq', '\\text{ and }',
                                           '\\\\', '\\{', '\\}', '\\quad', '\\approx', '\\cup', 'é', '$']
    for _ in range(3000):
        text = ''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 25)))
        separators = rng.choice(SPLIT_SEPARATORS)
        after = rng.random() < 0.5
        assert top_level_split_keeping(text, separators, after_stray_closer=after) == \
            _split_char_by_char(text, separators, after), (text, separators, after)
