"""Judge economy on real graded answers: the rules-first hybrid against Yale PHYSICS' final verdicts.

    python scripts/bench_judge.py [--outputs DIR] [--questions DIR] [--scopes undecided rejected]
                                  [--limit N] [--workers N] [--json OUT]

Every (reference part, model answer) comparison of Yale's o3-mini outputs is scored with the Yale
protocol of ``scripts/bench_scoring.py`` (``strict_verdict``: the whole answer, and for the last or
only part each of the answer's parts) and routed by the one routing function
(:func:`evalscope_phys.judge.routing.needs_judge`): under scope ``undecided`` a comparison goes to
the judge when the rules cannot decide the whole answer or one of the parts the protocol compares;
under ``rejected`` also when the rules rejected it.

The judge is our replay server (``evalscope_phys.serve``) with one judge record per routed pair,
keyed by the exact prompt the adapters send (``rules_first.judge_prompt``) and answering Yale's own
recorded LLM verdict for that pair (their final verdict where they recorded none). It is asked
through ``evalscope_phys.judge.panel``: the adapters' judge definition and output contract, and
EvalScope's ``JudgeExecutor`` with an ``LLMJudge`` over HTTP -- the path a run takes.

Printed per scope: the hybrid's agreement with Yale's final verdicts (the judge's decision where it
was asked, our strict verdict elsewhere), the share of comparisons judged, judge calls/failures
and tokens (the replay server counts ~4 characters a token), the routed comparisons by
``judge_reason`` (with how often Yale accepted them and how often the rules alone would have
agreed), and where the remaining disagreements come from (by which side accepted, our verdict
reason, the pair's shape and the part's position). Scope ``rejected`` also prints how often the
judge agreed with the rules on the rule rejections it saw.
"""
from __future__ import annotations

import argparse
import collections
import glob
import json
import logging
import os
import sys
import time
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import bench_scoring  # noqa: E402  (the Yale protocol lives there)

DEFAULT_YALE = bench_scoring.DEFAULT_YALE
DEFAULT_QUESTIONS = os.path.join(bench_scoring.SHARED, 'data', 'physics_yale', 'PHYSICS', 'PHYSICS-textonly')
SCOPES = ('undecided', 'rejected')


def yale_parts(directory: str, limit: Optional[int] = None) -> List[dict]:
    """One row per (reference part, answer) comparison, with Yale's LLM and final verdicts."""
    parts = []
    for record in bench_scoring.yale_records(directory):
        results = record['equivalency_results']
        for index, result in enumerate(results):
            parts.append({'id': record['id'], 'index': index, 'count': len(results),
                          'reference': result['input_expressions']['expr2'],
                          'answer': result['input_expressions']['expr1'],
                          'final': bool(result['final_result']), 'llm': result['llm_result']})
    return parts[:limit] if limit else parts


def yale_questions(directory: str) -> Dict[str, str]:
    """Problem statements by id (the judge prompt shows the problem); empty when the files are absent."""
    questions = {}
    for path in sorted(glob.glob(os.path.join(directory, '*.jsonl'))):
        with open(path, encoding='utf-8') as handle:
            for line in handle:
                if line.strip():
                    row = json.loads(line)
                    questions[row['id']] = row.get('questions') or ''
    return questions


def route_part(part: dict, verdict, scope: str) -> Tuple[bool, str]:
    """``(needs_judge, judge_reason)`` of one comparison: the whole answer, then the parts the protocol compares."""
    from evalscope_phys.scoring import score_answer
    from evalscope_phys.judge.routing import needs_judge
    reference, answer = part['reference'], part['answer']
    if verdict.strict:
        return needs_judge(verdict, reference, scope)
    whole = score_answer(reference, answer, eed=False)  # cached: strict_verdict scored it already
    routed, why = needs_judge(whole, reference, scope)
    if routed:
        return routed, why
    last = part['index'] == part['count'] - 1
    for text in bench_scoring.protocol_candidates(answer, part['count'], last):
        part_routed, part_why = needs_judge(score_answer(reference, text, eed=False), reference, 'undecided')
        if part_routed:
            return True, part_why
    return routed, why


def replay_judge_records(pairs: List[Tuple[str, str, str, bool]]) -> Tuple[List[dict], int]:
    """One judge record per distinct prompt answering the recorded verdict; returns (records, conflicts)."""
    from evalscope_phys.judge.rules_first import judge_prompt
    by_prompt: Dict[str, bool] = {}
    conflicts = 0
    for question, reference, answer, equivalent in pairs:
        prompt = judge_prompt(question, reference, answer)
        if prompt in by_prompt and by_prompt[prompt] != equivalent:
            conflicts += 1
        by_prompt.setdefault(prompt, equivalent)
    records = [{'match': prompt, 'judge': True,
                'response': json.dumps({'case': '{case}', 'reasoning': 'recorded verdict',
                                        'verdict': 'equivalent' if ok else 'not_equivalent'})}
               for prompt, ok in by_prompt.items()]
    return records, conflicts


def shape_of(part: dict) -> str:
    return bench_scoring.answer_shape(part['reference'], part['answer'])


def bench(directory: str, questions_dir: str, scopes=SCOPES, limit: Optional[int] = None,
          workers: int = 4) -> Dict:
    from evalscope_phys.judge.panel import JudgePair, build_panel, judge_config, judge_pairs, total_usage
    from evalscope_phys.judge.routing import rule_decision
    from evalscope_phys.serve import replay_server

    started = time.perf_counter()
    parts = yale_parts(directory, limit)
    questions = yale_questions(questions_dir)
    for part in parts:
        part['verdict'] = bench_scoring.strict_verdict(part['reference'], part['answer'], part['count'],
                                                       part['index'] == part['count'] - 1)
        part['routes'] = {scope: route_part(part, part['verdict'], scope) for scope in scopes}
    scored = time.perf_counter() - started

    routed_keys = sorted({k for k, p in enumerate(parts) for s in scopes if p['routes'][s][0]})
    recorded = [(questions.get(parts[k]['id'], ''), parts[k]['reference'], parts[k]['answer'],
                 parts[k]['llm'] if parts[k]['llm'] is not None else parts[k]['final']) for k in routed_keys]
    records, conflicts = replay_judge_records(recorded)
    pairs = [JudgePair(str(k), question, reference, answer) for k, (question, reference, answer, _) in
             zip(routed_keys, recorded)]
    logging.getLogger('httpx2').setLevel(logging.WARNING)
    logging.getLogger('httpx').setLevel(logging.WARNING)
    started = time.perf_counter()
    with replay_server(records) as url:
        panel = build_panel(judge_config('yale-replay-judge', url,
                                         generation_config={'temperature': 0.0, 'timeout': 30, 'retries': 0}))
        judgements = {int(j.key): j for j in judge_pairs(panel, pairs, workers=workers)}
    judged_seconds = time.perf_counter() - started

    print(f'Yale PHYSICS o3-mini: {len(parts)} comparisons in {len({p["id"] for p in parts})} records; rules '
          f'{scored:.0f} s; replay judge asked {len(pairs)} distinct routed pairs in {judged_seconds:.0f} s '
          f'({len(records)} judge records, {conflicts} prompts recorded with two verdicts)')
    figures = {'comparisons': len(parts), 'records': len({p['id'] for p in parts}), 'scopes': {}}
    for scope in scopes:
        figures['scopes'][scope] = report_scope(scope, parts, judgements, rule_decision, total_usage)
    return figures


def report_scope(scope: str, parts: List[dict], judgements: Dict, rule_decision, total_usage) -> Dict:
    agree = judged = fell_back = 0
    reasons = collections.defaultdict(lambda: [0, 0, 0])  # judge_reason -> routed, Yale accepts, rules agree
    sources = collections.Counter()
    examples = collections.defaultdict(list)
    judge_vs_rules = [0, 0]
    used = []
    for k, part in enumerate(parts):
        ours = bool(part['verdict'].strict)
        routed, why = part['routes'][scope]
        final = ours
        if routed:
            judged += 1
            judgement = judgements[k]
            used.append(judgement)
            row = reasons[why]
            row[0] += 1
            row[1] += part['final']
            row[2] += ours == part['final']
            if judgement.decision is None:
                fell_back += 1
            else:
                final = judgement.decision
                rule = rule_decision(why)
                if rule is not None:
                    judge_vs_rules[0] += judgement.decision == rule
                    judge_vs_rules[1] += 1
        if final == part['final']:
            agree += 1
            continue
        side = 'we accept, Yale rejects' if final else 'we reject, Yale accepts'
        where = 'judge' if routed and judgements[k].decision is not None else f'rules:{part["verdict"].reason}'
        position = 'earlier part' if part['index'] < part['count'] - 1 else 'last/only part'
        key = f'{side} | {where} | {shape_of(part)} | {position}'
        sources[key] += 1
        if len(examples[key]) < 3:
            examples[key].append(f'{part["id"]}#{part["index"]}')
    usage = total_usage(used)
    n = len(parts)
    figures = {'agreement': agree / n, 'agree': agree, 'judged': judged, 'judged_share': judged / n,
               'fell_back_to_rules': fell_back, 'usage': usage,
               'routed_by_reason': {k: {'routed': r, 'yale_accepts': a, 'rules_agree': g}
                                    for k, (r, a, g) in sorted(reasons.items(), key=lambda kv: -kv[1][0])},
               'disagreements': dict(sources.most_common()), 'examples': examples}
    print(f'\nscope {scope}: the hybrid agrees with Yale\'s final verdict on {agree}/{n} ({agree / n:.1%}); '
          f'judged {judged}/{n} ({judged / n:.1%}); judge calls {usage["judge_calls"]}, failed '
          f'{usage["judge_failed_calls"]}, fell back to the rules {fell_back}; tokens: prompt '
          f'{usage["judge_prompt_tokens"]}, completion {usage["judge_completion_tokens"]}')
    if judge_vs_rules[1]:
        share = judge_vs_rules[0] / judge_vs_rules[1]
        figures['judge_rule_agreement'] = share
        print(f'  judge agrees with the rules on {judge_vs_rules[0]}/{judge_vs_rules[1]} ({share:.1%}) '
              f'of the rule-decided comparisons it saw')
    print(f'  {"routed by judge_reason":28s} {"routed":>6s} {"Yale accepts":>12s} {"rules alone agree":>17s}')
    for why, (routed, accepts, rules_agree) in sorted(reasons.items(), key=lambda kv: -kv[1][0]):
        print(f'  {why:28s} {routed:6d} {accepts:12d} {rules_agree:17d}')
    print(f'  remaining disagreements ({n - agree}) by side | decided by | shape | position:')
    for key, count in sources.most_common():
        print(f'    {count:4d}  {key}   e.g. {", ".join(examples[key])}')
    return figures


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument('--outputs', default=DEFAULT_YALE, help='Yale o3-mini outputs (*/response.jsonl)')
    parser.add_argument('--questions', default=DEFAULT_QUESTIONS, help='PHYSICS text-only problems (*.jsonl)')
    parser.add_argument('--scopes', nargs='+', default=list(SCOPES), choices=('undecided', 'rejected', 'all'))
    parser.add_argument('--limit', type=int, help='only the first N comparisons')
    parser.add_argument('--workers', type=int, default=4, help='judge requests in flight')
    parser.add_argument('--json', help='write the figures here')
    args = parser.parse_args(argv)
    if not os.path.isdir(args.outputs):
        print(f'no Yale outputs at {args.outputs}', file=sys.stderr)
        return 2
    figures = bench(args.outputs, args.questions, tuple(args.scopes), args.limit, args.workers)
    if args.json:
        with open(args.json, 'w', encoding='utf-8') as handle:
            json.dump(figures, handle, indent=1, default=str)
    return 0


if __name__ == '__main__':
    sys.exit(main())
