#!/usr/bin/env python3
"""Write the hostile scoring corpus: tests/scoring/hostile_corpus.jsonl (+ _bytes.jsonl).

Each line of ``hostile_corpus.jsonl`` is ``{"gt": ..., "gen": ..., "why": ...}`` (plus
``tolerance``/``unit``/``multiple`` where the line is about those): inputs a model, a broken row
or a careless caller can hand ``evalscope-phys score``. ``hostile_corpus_bytes.jsonl`` holds what
JSON cannot: raw bytes (invalid UTF-8, NUL, surrogates encoded as UTF-8, a BOM, CR), one line each.
The output is deterministic (a fixed seed), so re-running this script reproduces the committed
files; ``tests/scoring/test_hostile_corpus.py`` runs both through the batch CLI.

    python scripts/make_hostile_corpus.py [--out-dir tests/scoring]
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any, List, Tuple

from evalscope_phys.jsonl import dumps_line

ROOT = Path(__file__).resolve().parents[1]
BIG = 200_000  # the unclosed-display size
MEGA = 1_000_000


def corpus() -> List[dict]:
    rows: List[dict] = []

    def add(gt: Any, gen: Any, why: str, **extra: Any) -> None:
        rows.append({'gt': gt, 'gen': gen, 'why': why, **extra})

    # controls: the truth is unambiguous
    for value in ('2', '3', r'\frac{1}{2}', '9.8', '-7'):
        add(value, value, 'control: identical')
        add(value, value + '+1', 'control: different')
    add('2', r'\boxed{2}', 'control: boxed')
    add('2', 'The answer is $2$.', 'control: prose around the value')

    # unclosed displays at the size, and repeated openers (quadratic regexes)
    for opener in (r'\[', r'\(', r'\begin{equation}', '$$', '$'):
        size = BIG if opener.startswith('\\') else BIG // 10
        add('2', opener + ' x = 2 ' + 'a' * size, f'{size}-char reply after one unclosed {opener}')
        add('2', (opener + ' 1 ') * (size // (len(opener) + 3)), f'{opener} repeated to {size} chars, never closed')
        add('2', (opener + ' 1 ') * 2000, f'{opener} repeated 2000 times, never closed')
        add(opener + ' 2', '2', f'reference is an unclosed {opener}')
    add('2', r'\boxed{' * 20000, r'20000 unclosed \boxed{')
    add('2', (r'\boxed{1}' + ' ') * 5000, '5000 boxes')
    add('2', r'\boxed{' + 'x' * (BIG // 4), r'one \boxed{ never closed, 50k chars')

    # deep nesting
    for depth in (30, 100, 1000, 10000):
        add('2', '{' * depth + '2' + '}' * depth, f'braces nested {depth} deep')
        add('2', '(' * depth + '2' + ')' * depth, f'parentheses nested {depth} deep')
        add('2', r'\frac{' * depth + '1' + '}{2}' * depth, rf'\frac{{\frac{{... nested {depth} deep')
        add('2', r'\sqrt{' * depth + '4' + '}' * depth, rf'\sqrt nested {depth} deep')
        add('2', 'x^{' * depth + '2' + '}' * depth, f'exponent tower {depth} deep')
        add('2', '{' * depth, f'{depth} unclosed braces')
        add('2', r'\left(' * depth + '2', rf'{depth} \left( without \right')
    add('2', r'\frac{\frac{\frac{\frac{\frac{1}{2}}{2}}{2}}{2}}{2}', r'repeated \frac{\frac{')
    add([[[[['2']]]]], '2', 'reference is a list nested 5 deep')
    add('2', [[[[[[[[[[['2']]]]]]]]]]], 'answer is a list nested 11 deep')

    # functions that overflow or stall
    for fn in ('cosh', 'sinh', 'exp', 'tan', 'Gamma', 'log'):
        nested = f'\\{fn}(' * 5 + '10' + ')' * 5
        add(nested, '1', f'{fn} nested 5 times as reference')
        add('1', nested, f'{fn} nested 5 times as answer')
    add(r'\cosh(\cosh(\cosh(\cosh(\cosh(10)))))', r'\cosh(\cosh(\cosh(\cosh(\cosh(10)))))',
        'cosh nested 5 times on both sides (order-dependent OverflowError in the issue)')

    # huge numbers and exponents
    for text in (r'10^{10^{10}}', r'9^{9^{9^{9}}}', r'2^{99999999}', r'10^{-10^{10}}', '1e999999', '1e-999999',
                 r'1000000!', r'(10^{100})!', r'e^{e^{e^{100}}}', r'\sqrt[10^{10}]{2}', '1' + '0' * 5000,
                 '0.' + '0' * 100000 + '1', '9' * 400 + '.' + '9' * 400, r'10^{400}\,\mathrm{kg}',
                 r'5\,\mathrm{m}^{10^{10}}', r'\binom{10^9}{5\cdot 10^8}', r'\prod_{k=1}^{10^9} k',
                 r'(x+1)^{100000}', r'x^{x^{x^{x^{x}}}}', r'\sin(10^{100} x)', 'NaN', 'inf', '-inf',
                 r'\infty - \infty', r'\frac{0}{0}', r'\frac{1}{0}', '-0', r'0^{0}'):
        add('2', text, f'answer {text[:40]}')
        add(text, '2', f'reference {text[:40]}')

    # not strings
    for value, name in ((None, 'None'), (2, 'an integer'), (2.0, 'a float'), (True, 'a bool'), ([], 'an empty list'),
                        (['2'], 'a list'), ({'a': '2'}, 'a dict'), (['2', None], 'a list with None'),
                        (1e308, 'a huge float'), (-0.0, 'negative zero')):
        add(value, '2', f'reference is {name}')
        add('2', value, f'answer is {name}')
    add(None, None, 'both None')
    add(2, 2, 'both integers')

    # empty and whitespace
    for text, name in (('', 'empty'), (' ', 'a space'), ('\n\n', 'newlines'), ('\t', 'a tab'),
                       ('\u200b', 'a zero-width space'), ('\u3000', 'an ideographic space')):
        add('2', text, f'answer is {name}')
        add(text, '2', f'reference is {name}')

    # megabyte strings
    add('2', 'x' * MEGA, 'answer is 1 MB of x')
    add('x' * 100_000, '2', 'reference is 100 kB of x')
    add('2', ('step ' * 20000) + r'\boxed{2}', '100 kB of prose, then the box')

    # lone surrogates and NUL (JSON escapes; raw bytes are in the bytes file)
    for text in ('\ud800', '\udfff', 'x = \ud800', r'\boxed{\ud83d}', '2\udc80', '\x00', '2\x00', r'\boxed{2\x00}'):
        add('2', text, f'answer with {text!r}')
        add(text, '2', f'reference with {text!r}')
    add('\ud800', '\ud800', 'a lone surrogate on both sides')

    # binary junk (seeded)
    rng = random.Random(20261130)
    for size in (16, 256, 4096):
        junk = ''.join(chr(rng.randrange(0, 0x110000)) for _ in range(size))
        junk = ''.join(c if not 0xD800 <= ord(c) <= 0xDFFF else '?' for c in junk)
        add('2', junk, f'{size} random code points')
        add('2', bytes(rng.randrange(256) for _ in range(size)).decode('latin-1'), f'{size} random bytes as latin-1')
    add('2', '\x1b[31m2\x1b[0m', 'ANSI escapes')
    add('2', '\u202e2\u202d', 'bidi overrides')

    # code that must never run
    for text in ("__import__('os').system('echo pwned')", "eval('2')", "exec('x=2')", '(lambda: 2)()',
                 "().__class__.__base__.__subclasses__()", r'\input{/etc/passwd}', r'\write18{echo pwned}',
                 r'\def\x{\x}\x', '{{7*7}}', '%s%s%s%n'):
        add('2', text, f'injection {text[:30]}')
        add(text, '2', f'injection as reference {text[:30]}')

    # malformed LaTeX
    for text in (r'\frac{a}{', r'\frac', r'\sqrt[', '}}}}{{{{', r'\begin{matrix}', r'\end{matrix}', r'a^', r'a_{',
                 '$$$$', r'\boxed', r'\]', '= = =', r'\frac{}{}', r'\unknowncommand{x}', '\\\\' * 5000, '&' * 5000,
                 r'\begin{pmatrix}' + '1 & ' * 5000 + r'\end{pmatrix}', r'\text{' * 5000):
        add('2', text, f'malformed {text[:30]}')

    # options out of range
    for tolerance in (-1, 0, 1e308, 'abc', None, [1]):
        add('2', '2.01', f'tolerance {tolerance!r}', tolerance=tolerance)
    for unit in ('', 'kg', r'\mathrm{' * 100, 'x' * 10000, 7):
        add('2', '2', f'unit {str(unit)[:20]!r}', unit=unit)
    for multiple in ('ordered', 'unordered', 'bogus', 3):
        add(['1', '2'], '1, 2', f'multiple {multiple!r}', multiple=multiple)

    # unicode math
    for text in ('２', '²', '√4', 'ℏ', '½', '2·10⁰', '2 × 10⁰', '٢', '二'):
        add('2', text, f'unicode {text}')
    return rows


def raw_lines() -> List[Tuple[bytes, str]]:
    """Lines JSON text cannot hold; (bytes, why). The test checks each gets an output line."""
    return [
        (b'{"gt": "2", "gen": "\xff\xfe2"}', 'invalid UTF-8 inside a string'),
        (b'\xff\xfe{"gt": "2", "gen": "2"}', 'a UTF-16 BOM'),
        (b'\xef\xbb\xbf{"gt": "2", "gen": "2"}', 'a UTF-8 BOM before the object'),
        (b'{"gt": "2", "gen": "\xed\xa0\x80"}', 'a lone surrogate encoded as UTF-8'),
        (b'{"gt": "2", "gen": "\xc0\xaf"}', 'an overlong encoding'),
        (b'{"gt": "2", "gen": "\xe2\x82"}', 'a truncated multi-byte sequence'),
        (b'{"gt": "2", "gen": "2\x00"}', 'a raw NUL inside a string'),
        (b'{"gt": "2",\x00 "gen": "2"}', 'a raw NUL between keys'),
        (b'\x00\x00\x00\x00', 'only NULs'),
        (b'{"gt": "2", "gen": "2"}\r', 'a CRLF line ending'),
        (b'{"gt": "2", "gen": "a\rb"}', 'a raw CR inside a string'),
        (b'{"gt": "2", "gen": "\x1b\x07\x08"}', 'raw control characters'),
        (b'{"gt": "2", "gen": "2"', 'an unclosed object'),
        (b'{"gt": "2", "gen": "2"} trailing', 'trailing garbage'),
        (b'["2", "2"]', 'a list, not an object'),
        (b'"2"', 'a bare string'),
        (b'{"gen": "2"}', 'no gt'),
        (b'{"gt": "2"}', 'no gen'),
        (b'[' * 100000, '100000 open brackets'),
        (bytes(b for b in range(256) if b != 10), 'every byte but the newline once'),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--out-dir', type=Path, default=ROOT / 'tests' / 'scoring')
    args = parser.parse_args()
    rows = corpus()
    text_path = args.out_dir / 'hostile_corpus.jsonl'
    with open(text_path, 'w', encoding='utf-8') as handle:
        for row in rows:
            handle.write(dumps_line(row))
    bytes_path = args.out_dir / 'hostile_corpus_bytes.jsonl'
    lines = raw_lines()
    if any(b'\n' in raw for raw, _ in lines):
        raise SystemExit('a raw line may not contain a newline')
    bytes_path.write_bytes(b''.join(raw + b'\n' for raw, _ in lines))
    (args.out_dir / 'hostile_corpus_bytes.why.txt').write_text(
        ''.join(f'{n}: {why}\n' for n, (_, why) in enumerate(lines, 1)), encoding='utf-8')
    print(f'{text_path}: {len(rows)} lines ({text_path.stat().st_size} bytes); '
          f'{bytes_path}: {len(lines)} lines')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
