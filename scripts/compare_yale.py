"""Yale's published o3-mini PHYSICS run, replayed through `evalscope eval --datasets physics_yale`, beside theirs.

    python scripts/compare_yale.py [--work-dir DIR] [--domains optics ...] [--json OUT]
    python scripts/compare_yale.py --run DIR          (an earlier run's reviews: no new run)
    python scripts/compare_yale.py --direct           (score in-process through the adapter's scorer: a
                                                       quicker development loop, no EvalScope run)

It writes a replay file of their recorded solutions, serves it with the replay server, runs the
plain EvalScope CLI on the shared PHYSICS text-only release, and prints per domain their published
accuracy (accuracy.csv), ours (strict_acc, lenient_acc, answer_acc, partial, scored), and the
difference between their accuracy and our strict_acc split by reason, problem by problem
(evalscope_phys/benchmarks/yale_outputs.py: their accuracy needs one matching reference answer per
boxed answer; ours needs every reference answer). The split sums to the difference exactly.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

SHARED = Path(os.environ.get('EVALSCOPE_PHYS_SHARED', HERE.parent.parent / 'shared'))
DEFAULT_DATA = SHARED / 'data' / 'physics_yale' / 'PHYSICS' / 'PHYSICS-textonly'
DEFAULT_OUTPUTS = SHARED / 'data' / 'physics_yale' / 'outputs' / 'o3-mini_together_output'
METRICS = ('strict_acc', 'lenient_acc', 'answer_acc', 'partial', 'scored')


def load_questions(data: Path) -> Dict[str, dict]:
    """Problems of the release as the adapter reads them (id -> normalised record)."""
    from evalscope_phys.benchmarks.base import read_rows
    from evalscope_phys.benchmarks.physics_yale import data_files, normalise_record
    problems = {}
    for path in data_files(data, 'all'):
        for record in read_rows(path):
            problem = normalise_record(record, path.stem)
            problems[problem['id']] = problem
    return problems


def run_cli(data: Path, replay: Path, work_dir: Path, domains: List[str]) -> int:
    """The plain CLI against the replay server; EvalScope's progress goes to this terminal."""
    from evalscope_phys.serve.replay import replay_server
    args = {'physics_yale': {'local_path': str(data), **({'subset_list': domains} if domains else {})}}
    with replay_server(replay) as url:
        cmd = [sys.executable, '-m', 'evalscope.cli.cli', 'eval', '--model', 'o3-mini-replay', '--api-url', url,
               '--api-key', 'EMPTY', '--eval-type', 'openai_api', '--datasets', 'physics_yale',
               '--dataset-args', json.dumps(args),
               '--generation-config', json.dumps({'temperature': 0.0, 'max_tokens': 1024, 'timeout': 60, 'retries': 1}),
               '--model-args', json.dumps({'max_retries': 0}), '--ignore-errors', '--eval-batch-size', '8',
               '--work-dir', str(work_dir), '--no-timestamp']
        print(f'[compare_yale] replay server at {url}; running evalscope eval --datasets physics_yale', file=sys.stderr)
        return subprocess.run(cmd, env={**os.environ, 'HF_HUB_OFFLINE': '1'}).returncode


def read_reviews(work_dir: Path) -> Dict[str, dict]:
    """id -> {'parts': sub-verdicts, 'value': metric values} from a run's reviews."""
    out = {}
    for path in sorted(work_dir.rglob('reviews/*/physics_yale_*.jsonl')):
        for line in path.read_text(encoding='utf-8').split('\n'):
            if line.strip():
                row = json.loads(line)['sample_score']
                score = row['score']
                out[str(row['sample_metadata']['id'])] = {'parts': (score.get('metadata') or {}).get('sub_verdicts') or [],
                                                          'value': score.get('value') or {}}
    return out


def score_direct(problems: Dict[str, dict], outputs: Path, workers: int = 8) -> Dict[str, dict]:
    """Reviews as the adapter's ``match_score`` would write them, without EvalScope or the replay server."""
    from concurrent.futures import ThreadPoolExecutor
    from evalscope_phys.benchmarks.multipart import score_parts
    from evalscope_phys.benchmarks.physics_yale import answer_metrics_and_weights
    from evalscope_phys.benchmarks.yale_outputs import read_run
    theirs, _ = read_run(outputs, {rid: p['answers'] for rid, p in problems.items()})

    def one(rid: str) -> dict:
        problem = problems[rid]
        solution = theirs[rid].solution if rid in theirs else ''
        matched = score_parts(problem['answers'], solution or ' ', question=problem['question'],
                              labels=problem.get('labels') or ())
        subs = [p.to_dict() for p in matched.parts]
        return {'parts': subs, 'value': answer_metrics_and_weights(subs)[0]}

    ids = sorted(rid for rid, p in problems.items() if p['answers'] and all(a.strip() for a in p['answers'])
                 and not p.get('figures') and not p.get('broken') and p.get('question'))
    started = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        reviews = dict(zip(ids, pool.map(one, ids)))
    print(f'[compare_yale] scored {len(ids)} problems in-process in {time.perf_counter() - started:.0f} s',
          file=sys.stderr)
    return reviews


def mean(values: List[float]) -> Optional[float]:
    return sum(values) / len(values) if values else None


def ours_by_domain(reviews: Dict[str, dict], problems: Dict[str, dict]) -> Dict[str, Dict[str, Optional[float]]]:
    """Our report's numbers per domain, recomputed from the reviews (weighted as the report is)."""
    table: Dict[str, Dict[str, Optional[float]]] = {}
    for domain in sorted({p['domain'] for p in problems.values() if p['domain']}) + ['all']:
        rows = [r for rid, r in reviews.items() if domain == 'all' or problems.get(rid, {}).get('domain') == domain]
        if not rows:
            continue
        parts = [p for r in rows for p in r['parts']]
        scored = [p for p in parts if p.get('scored')]
        table[domain] = {
            'problems': len(rows),
            'strict_acc': mean([r['value']['strict_acc'] for r in rows if 'strict_acc' in r['value']]),
            'lenient_acc': mean([r['value']['lenient_acc'] for r in rows if 'lenient_acc' in r['value']]),
            'strict_acc_all': mean([r['value']['strict_acc_all'] for r in rows if 'strict_acc_all' in r['value']]),
            'answer_acc': mean([float(bool(p.get('strict'))) for p in scored]),
            'partial': mean([r['value']['partial'] for r in rows if 'partial' in r['value']]),
            'scored': mean([r['value']['scored'] for r in rows if 'scored' in r['value']]),
        }
    return table


def served_for_another(problems: Dict[str, dict]) -> List[str]:
    """Ids whose question another id also has: the replay served them the first id's solution, so
    they are left out of the comparison with Yale's records (the text-only release has one)."""
    first: Dict[str, str] = {}
    later = []
    for rid in sorted(problems):
        question = problems[rid]['question']
        if question in first:
            later.append(rid)
        else:
            first[question] = rid
    return later


def fmt(value: Optional[float]) -> str:
    return '   -  ' if value is None else f'{100 * value:6.1f}'


def report(reviews: Dict[str, dict], problems: Dict[str, dict], outputs: Path) -> dict:
    from evalscope_phys.benchmarks.yale_outputs import accepted_parts, explain, read_run
    theirs, published = read_run(outputs, {rid: p['answers'] for rid, p in problems.items()})
    ours = ours_by_domain(reviews, problems)
    print('\nPHYSICS text-only, o3-mini solutions (Yale\'s run), scored by physics_yale; percentages')
    print(f'{"domain":11s} {"n":>4s} {"theirs":>7s} | {"strict":>6s} {"lenient":>7s} {"answer":>6s} {"partial":>7s} '
          f'{"scored":>6s} | {"strict - theirs (same problems)":>32s}')
    figures = {'domains': {}, 'published': published}
    served_another = served_for_another(problems)
    parts = {rid: r['parts'] for rid, r in reviews.items() if rid not in served_another}
    for domain, row in ours.items():
        comparison = explain(parts, theirs, None if domain == 'all' else domain)
        if domain == 'all':
            ids = [rid for rid in reviews if rid in theirs]
            published_value = mean([theirs[rid].accuracy for rid in ids])
        else:
            published_value = published.get(domain)
        print(f'{domain:11s} {row["problems"]:4d} {fmt(published_value):>7s} | {fmt(row["strict_acc"])} '
              f'{fmt(row["lenient_acc"]):>7s} {fmt(row["answer_acc"])} {fmt(row["partial"]):>7s} {fmt(row["scored"])} | '
              f'{fmt(comparison.ours)} - {fmt(comparison.theirs)} = {100 * comparison.difference:+6.1f}')
        figures['domains'][domain] = {**row, 'theirs_published': published_value, 'theirs_same_problems': comparison.theirs,
                                      'ours_same_problems': comparison.ours, 'difference': comparison.difference,
                                      'unscored_problems': comparison.unscored}
    overall = explain(parts, theirs)
    print(f'\nThe difference over all {overall.problems} problems with every answer scored '
          f'({overall.unscored} with an unscored answer left out'
          + (f', and {", ".join(served_another)}, served another id\'s solution' if served_another else '')
          + '), by reason (percentage points):')
    groups: Dict[str, List[str]] = {}
    for reason in overall.by_reason:
        if reason != 'agree':
            groups.setdefault(reason.split(':')[0].split(';')[0], []).append(reason)
    for group, reasons in sorted(groups.items(), key=lambda item: sum(overall.by_reason[r] for r in item[1])):
        total = sum(overall.by_reason[r] for r in reasons)
        print(f'  {100 * total / overall.problems:+6.1f}  {sum(overall.counts[r] for r in reasons):4d} problems  {group}')
        for reason in sorted(reasons, key=lambda r: overall.by_reason[r]):
            detail = reason[len(group):].lstrip(':; ') or '-'
            print(f'      {100 * overall.by_reason[reason] / overall.problems:+6.1f}  {overall.counts[reason]:4d}  {detail}')
    print(f'  {100 * overall.difference:+6.1f}  total (strict_acc {100 * overall.ours:.1f} - theirs {100 * overall.theirs:.1f}); '
          f'{overall.counts["agree"]} problems agree')
    parts_they_accept = accepted_parts(parts, theirs, {rid: p['answers'] for rid, p in problems.items()})
    print(f'\nParts their run accepted that our strict verdict accepts: {parts_they_accept.accepted}/{parts_they_accept.total} '
          f'({100 * parts_they_accept.accepted / max(parts_they_accept.total, 1):.1f}%)')
    print(f'strict_acc_all over all {ours["all"]["problems"]} problems: {fmt(ours["all"]["strict_acc_all"])}')
    figures['their_accepted_parts'] = {'accepted': parts_they_accept.accepted, 'total': parts_they_accept.total,
                                       'rows': parts_they_accept.rows}
    figures['parts'] = {rid: [{'strict': bool(part.get('strict')), 'reason': part.get('reason')} for part in rid_parts]
                        for rid, rid_parts in parts.items()}
    figures['reasons'] = {reason: {'points': 100 * total / overall.problems, 'problems': overall.counts[reason]}
                          for reason, total in overall.by_reason.items()}
    return figures


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--data', type=Path, default=DEFAULT_DATA, help='the PHYSICS text-only release folder')
    parser.add_argument('--outputs', type=Path, default=DEFAULT_OUTPUTS, help="Yale's run folder (per-domain folders)")
    parser.add_argument('--work-dir', type=Path, default=None, help='where EvalScope writes (default: a temp dir)')
    parser.add_argument('--run', type=Path, default=None, help='compare an existing run instead of starting one')
    parser.add_argument('--domains', nargs='*', default=[], help='only these subsets (default: all six)')
    parser.add_argument('--direct', action='store_true', help='score in-process (no EvalScope run)')
    parser.add_argument('--json', type=Path, default=None, help='also write the figures here')
    args = parser.parse_args(argv)
    for path, what in ((args.data, 'PHYSICS text-only data'), (args.outputs, "Yale's outputs")):
        if not path.exists():
            print(f'{what} not found at {path}; pass --data/--outputs or set EVALSCOPE_PHYS_SHARED', file=sys.stderr)
            return 2
    problems = load_questions(args.data)
    work_dir = args.run
    if args.direct:
        reviews = score_direct(problems, args.outputs)
        figures = report(reviews, problems, args.outputs)
        if args.json:
            args.json.write_text(json.dumps(figures, indent=1, default=str), encoding='utf-8')
        return 0
    if work_dir is None:
        from evalscope_phys.benchmarks.yale_outputs import read_run, replay_records
        from evalscope_phys.serve.records import write_records
        theirs, _ = read_run(args.outputs, {rid: p['answers'] for rid, p in problems.items()})
        work_dir = args.work_dir or Path(tempfile.mkdtemp(prefix='compare-yale-'))
        work_dir.mkdir(parents=True, exist_ok=True)
        records, shared = replay_records({rid: p['question'] for rid, p in problems.items()}, theirs)
        replay = write_records(records, work_dir / 'replay.jsonl')
        if shared:
            print(f'[compare_yale] one question under several ids ({", ".join(shared)}): the first one\'s solution '
                  'is served for all of them', file=sys.stderr)
        started = time.perf_counter()
        code = run_cli(args.data, replay, work_dir / 'run', args.domains)
        print(f'[compare_yale] evalscope eval exited with {code} after {time.perf_counter() - started:.0f} s; '
              f'outputs in {work_dir / "run"}', file=sys.stderr)
        if code != 0:
            return code
        work_dir = work_dir / 'run'
    reviews = read_reviews(work_dir)
    if not reviews:
        print(f'no physics_yale reviews under {work_dir}', file=sys.stderr)
        return 1
    figures = report(reviews, problems, args.outputs)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, default=str), encoding='utf-8')
    return 0


if __name__ == '__main__':
    sys.exit(main())
