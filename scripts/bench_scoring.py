"""Benchmark the scoring engine on the shared dev material; every figure in docs/scoring.md.

    python scripts/bench_scoring.py pairs [--pairs PATH] [--limit N] [--json OUT]
    python scripts/bench_scoring.py yale  [--outputs DIR] [--limit N] [--json OUT]
    python scripts/bench_scoring.py peer  [--cases PATH] [--near-miss PATH] [--json OUT]   (also: --peer)

``pairs`` scores the PHYBench dev pairs (``eed/eed_dev_pairs.jsonl``) one after another through the
worker pool and prints per-pair wall time (mean, median, p99, max), the CPU time of the scoring work
itself (measured in this process, so a loaded machine inflates it far less than wall time), both
against the official scorer's recorded ``seconds``, agreement with ``official_score`` by ``kind``
(within 5 points, on pairs where the official score is a fair reference), and the share of
equivalent rewrites that score EED 100 with strict = true, listing the ones that do not (some labels
are wrong: trust mathematics over the label).

``yale`` runs our strict verdict on the o3-mini solutions of Yale's PHYSICS benchmark, one verdict
per (reference part, model answer) pair as in their ``equivalency_results``, and prints agreement
with their final verdict, overall and on formula pairs (no prose on either side): the share of
what they accept that we accept, and of what they reject that we accept.

``peer`` runs Math-Verify's own test cases (``peer/math_verify_cases.jsonl``: the clear equivalence
cases it labels ``headline``; the ``convention`` rows -- sets, intervals, thousands separators,
percent and other conventions that are not physics grading -- are left out) and our near-miss table
(``peer/near_miss_examples.jsonl``), printing agreement by category and every disagreement.
"""
from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import re
import statistics
import sys
import time
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

SHARED = os.environ.get('EVALSCOPE_PHYS_SHARED', os.path.join(os.path.dirname(HERE), '..', 'shared'))
DEFAULT_PAIRS = os.path.join(SHARED, 'data', 'eed', 'eed_dev_pairs.jsonl')
DEFAULT_YALE = os.path.join(SHARED, 'data', 'physics_yale', 'outputs', 'o3-mini_together_output')
DEFAULT_PEER = os.path.join(SHARED, 'data', 'peer', 'math_verify_cases.jsonl')
DEFAULT_NEAR_MISS = os.path.join(SHARED, 'data', 'peer', 'near_miss_examples.jsonl')

#: Kinds whose answer is an equivalent rewrite of the reference (the "score 100" target).
EQUIVALENT_KINDS_PREFIX = 'equiv_'
EQUIVALENT_KINDS = {'identical', 'format_boxed', 'format_whitespace', 'format_strip_delimiters',
                    'format_drop_lhs', 'format_add_lhs'}
#: Official zero reasons that make the official score no reference for ours.
UNFAIR_ZERO_REASONS = {'latex_parse_failure', 'tree_build_failure', 'precheck_gen_longer_than_3x_gt',
                       'precheck_int', 'precheck_sum', 'precheck_empty_gen'}
AGREEMENT_POINTS = 5.0


def is_equivalent_kind(kind: str) -> bool:
    return kind.startswith(EQUIVALENT_KINDS_PREFIX) or kind in EQUIVALENT_KINDS


def is_fair(row: dict) -> bool:
    return not row['official_defects'] and row.get('zero_reason') not in UNFAIR_ZERO_REASONS


def percentile(values: List[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float('nan')
    index = min(len(ordered) - 1, max(0, int(round(q * (len(ordered) - 1)))))
    return ordered[index]


def _cpu_seconds(row: dict) -> float:
    """CPU time of the scoring work for one pair, run inline in this process (cold caches)."""
    from evalscope_phys.scoring.compare import values as compare_values
    from evalscope_phys.scoring.engine import _score_job
    from evalscope_phys.scoring.read import text_memo
    from evalscope_phys.scoring.read.latex import read_latex
    read_latex.cache_clear()
    text_memo.forget()
    compare_values.eed_form.cache_clear()
    job = {'references': (row['gt'],), 'response': row['gen'], 'types': (), 'units': (), 'tolerances': (),
           'several': False, 'tolerance': None, 'ordered': False, 'eed': True}
    started = time.process_time()
    _score_job(job)
    return time.process_time() - started


def bench_pairs(path: str, limit: Optional[int] = None, cpu: bool = True) -> Dict:
    """Score the dev pairs; return the figures (also printed)."""
    from evalscope_phys.scoring import score_answer
    from evalscope_phys.scoring.engine import warm_up
    from evalscope_phys.scoring.run.limits import ANSWER_DEADLINE
    rows = [json.loads(line) for line in open(path, encoding='utf-8') if line.strip()]
    if limit:
        rows = rows[:limit]
    score_answer('x', 'x')  # start the worker pool outside the timings
    results = []
    started = time.perf_counter()
    for row in rows:
        results.append((row, score_answer(row['gt'], row['gen'])))
    wall = time.perf_counter() - started
    if cpu:
        warm_up()
    cpu_seconds = [_cpu_seconds(row) for row in rows] if cpu else [float('nan')]

    seconds = [v.seconds for _, v in results]
    official = [r['seconds'] for r, _ in results]
    by_kind = collections.defaultdict(lambda: [0, 0])
    fair_total = fair_agree = 0
    for row, verdict in results:
        if not is_fair(row):
            continue
        agree = verdict.eed is not None and abs(verdict.eed - row['official_score']) <= AGREEMENT_POINTS
        by_kind[row['kind']][0] += agree
        by_kind[row['kind']][1] += 1
        fair_total += 1
        fair_agree += agree
    equivalent = [(r, v) for r, v in results if is_equivalent_kind(r['kind'])]
    equivalent_ok = sum(1 for _, v in equivalent if v.eed == 100 and v.strict)
    figures = {
        'pairs': len(results),
        'pairs_per_second': len(results) / wall,
        'mean_seconds': statistics.mean(seconds),
        'median_seconds': statistics.median(seconds),
        'p99_seconds': percentile(seconds, 0.99),
        'max_seconds': max(seconds),
        'cpu_mean_seconds': statistics.mean(cpu_seconds),
        'cpu_p99_seconds': percentile(cpu_seconds, 0.99),
        'official_mean_seconds': statistics.mean(official),
        'official_median_seconds': statistics.median(official),
        'speedup_mean': statistics.mean(official) / statistics.mean(seconds),
        'speedup_cpu_mean': statistics.mean(official) / statistics.mean(cpu_seconds),
        'load_average': os.getloadavg()[0],
        'over_5s': sum(1 for s in seconds if s > ANSWER_DEADLINE),
        'fair_pairs': fair_total,
        'fair_within_5': fair_agree,
        'fair_agreement': fair_agree / fair_total if fair_total else float('nan'),
        'equivalent_pairs': len(equivalent),
        'equivalent_scored_100_strict': equivalent_ok,
        'equivalent_share': equivalent_ok / len(equivalent) if equivalent else float('nan'),
        'reasons': dict(collections.Counter(v.reason for _, v in results)),
        'agreement_by_kind': {k: {'within_5': a, 'fair': n} for k, (a, n) in sorted(by_kind.items())},
        'unscored': sum(1 for _, v in results if not v.scored),
        'labelled_errors_found_equal': [r['id'] for r, v in results if not is_equivalent_kind(r['kind']) and v.strict],
    }
    print(f"pairs: {figures['pairs']}  throughput: {figures['pairs_per_second']:.1f} pairs/s (one caller)"
          f"  load average {figures['load_average']:.1f} on {os.cpu_count()} CPUs")
    print(f"wall seconds per pair: mean {figures['mean_seconds']:.4f}  median {figures['median_seconds']:.4f}  "
          f"p99 {figures['p99_seconds']:.3f}  max {figures['max_seconds']:.3f}  over 5 s: {figures['over_5s']}")
    print(f"CPU seconds per pair (scoring work, inline): mean {figures['cpu_mean_seconds']:.4f}  "
          f"p99 {figures['cpu_p99_seconds']:.3f}")
    print(f"official scorer (recorded): mean {figures['official_mean_seconds']:.3f}  median "
          f"{figures['official_median_seconds']:.3f}  ->  speed-up (mean) wall {figures['speedup_mean']:.1f}x, "
          f"CPU {figures['speedup_cpu_mean']:.1f}x")
    print(f"equivalent rewrites scored EED 100 and strict: {equivalent_ok}/{len(equivalent)} "
          f"({figures['equivalent_share']:.1%}); the others:")
    for row, verdict in equivalent:
        if not (verdict.eed == 100 and verdict.strict):
            print(f"  {row['id']} {row['kind']}: {verdict.reason} {verdict.detail[:60]}")
    relabelled = [(r, v) for r, v in results if not is_equivalent_kind(r['kind']) and v.strict]
    if relabelled:
        print('labelled as errors but strictly equal to the reference (trust mathematics over the label):')
        for row, verdict in relabelled:
            zero = score_answer(row['gt'], '0', eed=False).strict
            note = '; the reference itself is identically 0' if zero else ''
            print(f"  {row['id']} {row['kind']}: {verdict.reason}{note}")
    print(f"agreement with the official EED (within {AGREEMENT_POINTS:g} points, fair pairs): "
          f"{fair_agree}/{fair_total} ({figures['fair_agreement']:.1%})")
    print('by kind (within 5 / fair):')
    for kind, (agree, total) in sorted(by_kind.items()):
        print(f'  {kind:30s} {agree:3d}/{total:<3d}')
    print('reasons:', ', '.join(f'{k} {n}' for k, n in collections.Counter(v.reason for _, v in results).most_common()))
    return figures


# --------------------------------------------------------------------------- Yale PHYSICS

def yale_records(directory: str) -> List[dict]:
    records = []
    for path in sorted(glob.glob(os.path.join(directory, '*', 'response.jsonl'))):
        with open(path, encoding='utf-8') as handle:
            for line in handle:
                if line.strip():
                    records.append(json.loads(line))
    return records


def answer_parts(answer: str) -> List[str]:
    """The parts of a model answer as the engine reads them (list items, boxes, aligned lines)."""
    from evalscope_phys.benchmarks.multipart import answer_items
    return answer_items(answer)


def strict_verdict(reference: str, answer: str, reference_parts: int, last_part: bool = True):
    """Our strict verdict for one of Yale's (reference part, model answer) comparisons.

    Their recorded verdicts follow a fixed pattern for questions with several reference parts: the
    record's ``accuracy`` equals the verdict on the LAST part in 995/999 records, and earlier parts
    are accepted in 9/775 cases only (their pipeline reads the answer's final expression). So:

    * one reference part, or the last of several: the answer matches when it matches whole or one
      of its parts does; when the answer's labelled parts (``labelled_parts``: (a), (b)...) are as
      many as the reference parts, only the answer's last labelled part is compared with the last
      (the alignment of the ``physics_yale`` adapter: ``multipart.labelled_answers``);
    * an earlier part of several: the whole answer is compared.
    """
    from evalscope_phys.scoring import score_answer
    whole = score_answer(reference, answer, eed=False)
    if whole.strict:
        return whole
    best = whole
    for text in protocol_candidates(answer, reference_parts, last_part):
        verdict = score_answer(reference, text, eed=False)
        if verdict.strict:
            return verdict
        if _informative(verdict) > _informative(best):
            best = verdict
    return best


def protocol_candidates(answer: str, reference_parts: int, last_part: bool = True) -> List[str]:
    """The parts of ``answer`` that :func:`strict_verdict` compares one by one (none for an earlier part)."""
    from evalscope_phys.benchmarks.multipart import labelled_answers
    from evalscope_phys.scoring.read.extract import labelled_parts
    if reference_parts > 1 and not last_part:
        return []
    aligned = labelled_answers(answer, reference_parts)  # the physics_yale adapter's alignment
    if aligned:
        return [aligned[-1]] + answer_parts(aligned[-1])
    return labelled_parts(answer) + answer_parts(answer)


def _informative(verdict) -> tuple:
    """Which rejection to report: a part that is close (lenient) over one that was read, over unread."""
    return (bool(verdict.lenient), bool(verdict.scored) and not verdict.reason.startswith('unparseable'))


_PROSE_RE = re.compile(r'\\(?:text|mbox|textbf)\s*\{[^{}]*?[A-Za-z]{2,}\s+[A-Za-z]{2,}')


def answer_shape(reference: str, answer: str) -> str:
    """``prose_reference``/``prose_answer`` (a phrase in ``\\text{}``), ``multi_part_answer``, ``formula``."""
    if _PROSE_RE.search(reference):
        return 'prose_reference'
    if _PROSE_RE.search(answer):
        return 'prose_answer'
    if len(answer_parts(answer)) > 1:
        return 'multi_part_answer'
    return 'formula'


def bench_yale(directory: str, limit: Optional[int] = None) -> Dict:
    records = yale_records(directory)
    pairs = []
    for record in records:
        count = len(record['equivalency_results'])
        for index, result in enumerate(record['equivalency_results']):
            pairs.append((record['id'], result['input_expressions']['expr2'],
                          result['input_expressions']['expr1'], bool(result['final_result']), count,
                          index == count - 1))
    if limit:
        pairs = pairs[:limit]
    started = time.perf_counter()
    agree = unscored = 0
    disagreements, shapes = collections.Counter(), collections.Counter()
    formula = collections.Counter()  # (theirs, ours) on formula pairs
    examples = collections.defaultdict(list)
    formula_accepts_of_rejected = []  # every one is listed: the <= 2% target is judged on them
    for record_id, reference, answer, theirs, count, last in pairs:
        verdict = strict_verdict(reference, answer, count, last)
        ours = bool(verdict.strict)
        unscored += not verdict.scored
        shape = answer_shape(reference, answer)
        if shape == 'formula':
            formula[(theirs, ours)] += 1
            if ours and not theirs:
                formula_accepts_of_rejected.append({'id': record_id, 'reference': reference, 'answer': answer,
                                                    'reason': verdict.reason})
        if ours == theirs:
            agree += 1
            continue
        side = 'we_accept' if ours else 'we_reject'
        key = f'{side}:{verdict.reason}'
        disagreements[key] += 1
        shapes[f'{side}:{shape}'] += 1
        if len(examples[key]) < 3:
            examples[key].append({'id': record_id, 'reference': reference[:160], 'answer': answer[:160]})
    wall = time.perf_counter() - started
    they_accept = formula[(True, True)] + formula[(True, False)]
    they_reject = formula[(False, True)] + formula[(False, False)]
    figures = {'answers': len(pairs), 'agree': agree, 'agreement': agree / len(pairs) if pairs else float('nan'),
               'unscored': unscored, 'seconds': wall, 'disagreements': dict(disagreements.most_common()),
               'disagreements_by_shape': dict(shapes.most_common()), 'examples': examples,
               'formula_pairs': they_accept + they_reject,
               'formula_accept_of_accepted': formula[(True, True)] / they_accept if they_accept else float('nan'),
               'formula_accept_of_rejected': formula[(False, True)] / they_reject if they_reject else float('nan'),
               'formula_accepts_of_rejected': formula_accepts_of_rejected,
               'formula_split': {f'they_{"accept" if t else "reject"}_we_{"accept" if o else "reject"}': n
                                 for (t, o), n in sorted(formula.items())}}
    print(f"Yale PHYSICS o3-mini: {len(pairs)} answers, strict agrees with their final verdict on "
          f"{agree} ({figures['agreement']:.1%}); unscored {unscored}; {wall:.1f} s")
    print(f"formula pairs (no prose on either side): {figures['formula_pairs']}; of the {they_accept} they "
          f"accept we accept {formula[(True, True)]} ({figures['formula_accept_of_accepted']:.1%}); of the "
          f"{they_reject} they reject we accept {formula[(False, True)]} ({figures['formula_accept_of_rejected']:.1%})")
    for row in formula_accepts_of_rejected:
        print(f"  we accept, they reject: {row['id']} ({row['reason']}): reference {row['reference'][:100]!r} "
              f"answer {row['answer'][-100:]!r}")
    print('disagreements by our reason:')
    for key, count in disagreements.most_common():
        print(f'  {key:40s} {count}')
    print('disagreements by the shape of the pair:')
    for key, count in shapes.most_common():
        print(f'  {key:40s} {count}')
    return figures


# --------------------------------------------------------------------------- peers' test cases

def bench_peer(cases_path: str, near_miss_path: str) -> Dict:
    from evalscope_phys.scoring import score_answer
    cases = [json.loads(line) for line in open(cases_path, encoding='utf-8') if line.strip()]
    headline = [c for c in cases if c.get('headline')]
    left_out = collections.Counter(c['category'] for c in cases if not c.get('headline'))
    by_category = collections.defaultdict(lambda: [0, 0])
    misses = []
    for case in headline:
        verdict = score_answer(case['gold'], case['pred'], eed=False)
        ok = bool(verdict.strict) == bool(case['expected'])
        by_category[case['category']][0] += ok
        by_category[case['category']][1] += 1
        if not ok:
            misses.append((case, verdict))
    agree = sum(a for a, _ in by_category.values())
    print(f"Math-Verify headline cases: strict agrees with their expected verdict on {agree}/{len(headline)} "
          f"({agree / len(headline):.1%}); left out as non-physics conventions: "
          + ', '.join(f'{k} {n}' for k, n in sorted(left_out.items())))
    for category, (a, n) in sorted(by_category.items()):
        print(f'  {category:24s} {a:3d}/{n}')
    print('disagreements:')
    for case, verdict in misses:
        print(f"  {case['id']} {case['category']}: expected {case['expected']}, strict {verdict.strict} "
              f"({verdict.reason}) gold {case['gold'][:50]!r} pred {case['pred'][-50:]!r}")
    near = [json.loads(line) for line in open(near_miss_path, encoding='utf-8') if line.strip()]
    wrong_accepts = right_rejects = 0
    for row in near:
        verdict = score_answer(row['gt'], row['gen'], eed=False)
        if bool(verdict.strict) and not row['strict']:
            wrong_accepts += 1
            print(f"  near miss ACCEPTED: {row['class']}: {row['gt']} vs {row['gen']} ({verdict.reason})")
        elif row['strict'] and not verdict.strict:
            right_rejects += 1
            print(f"  right form rejected: {row['class']}: {row['gt']} vs {row['gen']} ({verdict.reason})")
    wrong_forms = sum(1 for r in near if not r['strict'])
    print(f"near-miss table: {len(near)} rows; wrong forms accepted {wrong_accepts}/{wrong_forms}; "
          f"right forms rejected {right_rejects}/{len(near) - wrong_forms}")
    return {'headline': len(headline), 'headline_agree': agree, 'headline_agreement': agree / len(headline),
            'by_category': {k: {'agree': a, 'cases': n} for k, (a, n) in by_category.items()},
            'left_out': dict(left_out), 'near_miss_rows': len(near), 'near_miss_wrong_accepts': wrong_accepts,
            'near_miss_right_rejects': right_rejects}


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if '--peer' in argv:
        argv.remove('--peer')
        argv.insert(0, 'peer')
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = parser.add_subparsers(dest='mode')
    pairs = sub.add_parser('pairs', help='EED dev pairs: speed and agreement with the official scorer')
    pairs.add_argument('--pairs', default=DEFAULT_PAIRS)
    pairs.add_argument('--limit', type=int)
    pairs.add_argument('--json', help='write the figures here')
    yale = sub.add_parser('yale', help='strict verdict vs Yale PHYSICS o3-mini equivalence verdicts')
    yale.add_argument('--outputs', default=DEFAULT_YALE)
    yale.add_argument('--limit', type=int)
    yale.add_argument('--json', help='write the figures here')
    peer = sub.add_parser('peer', help="Math-Verify's test cases and our near-miss table")
    peer.add_argument('--cases', default=DEFAULT_PEER)
    peer.add_argument('--near-miss', default=DEFAULT_NEAR_MISS)
    peer.add_argument('--json', help='write the figures here')
    args = parser.parse_args(argv)
    mode = args.mode or 'pairs'
    if mode == 'pairs':
        path = getattr(args, 'pairs', DEFAULT_PAIRS)
        if not os.path.exists(path):
            print(f'no dev pairs at {path}', file=sys.stderr)
            return 2
        figures = bench_pairs(path, getattr(args, 'limit', None))
    elif mode == 'yale':
        if not os.path.isdir(args.outputs):
            print(f'no Yale outputs at {args.outputs}', file=sys.stderr)
            return 2
        figures = bench_yale(args.outputs, args.limit)
    else:
        for path in (args.cases, args.near_miss):
            if not os.path.exists(path):
                print(f'no peer cases at {path}', file=sys.stderr)
                return 2
        figures = bench_peer(args.cases, args.near_miss)
    if getattr(args, 'json', None):
        with open(args.json, 'w', encoding='utf-8') as handle:
            json.dump(figures, handle, indent=1, default=str)
    return 0


if __name__ == '__main__':
    sys.exit(main())
