"""Rewards lost to the queue: 8 threads, 2 scoring workers, 6% slow completions, 3 identical runs.

    python scripts/bench_reward_queue.py [--completions 150] [--slow-share 0.06] [--runs 3] [--timeout 5]

Completions are distinct (no cache hits): correct and wrong small answers (each scored in
milliseconds) and a share of slow ones (a wrong 100-term sum in EED mode: seconds of tree edit
distance). Per run, cold verdict cache, in this order:

* the budget from the call (the rule before): ``score_answer(timeout=T)`` per completion, no retry;
* the budget from the take (``batch_scores``): budget from the moment a worker takes the completion,
  one retry of an unscored one, ``max_wait`` overall.

Prints the correct completions that did not get reward 1.0, whether the runs agree, wall seconds,
and the machine's load average.
"""
from __future__ import annotations

import argparse
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import List, Optional, Tuple

from evalscope_phys.reward import batch_scores
from evalscope_phys.reward.score import reward_from_verdict
from evalscope_phys.scoring.engine import clear_cache, score_answer
from evalscope_phys.scoring.run.limits import ANSWER_DEADLINE
from evalscope_phys.scoring.run.pool import start_pool

THREADS = 8


def completions(count: int, slow_share: float, seed: int) -> List[Tuple[str, str, bool]]:
    """(response, reference, correct) triples, all distinct, in a shuffled order fixed by ``seed``."""
    rng = random.Random(seed)
    slow = max(1, round(count * slow_share))
    items: List[Tuple[str, str, bool]] = []
    terms = 100
    for index in range(slow):
        reference = '+'.join(rf'\sin(x_{{{i}}} y_{{{index}}})^{{{i % 5 + 2}}}' for i in range(terms))
        response = r'\boxed{' + '+'.join(rf'\cos(x_{{{i}}} y_{{{index}}})^{{{i % 5 + 2}}}' for i in range(terms)) + '}'
        items.append((response, reference, False))
    for index in range(count - slow):
        k = index + 2
        reference = rf'\frac{{{k} m g}}{{2}}'
        correct = index % 3 != 2
        value = rf'\frac{{{k} m g}}{{2}}' if correct else rf'\frac{{{k + 1} m g}}{{2}}'
        items.append((f'Step {index}: forces balance, so T = \\boxed{{{value}}}', reference, correct))
    rng.shuffle(items)
    return items


def old_rule(items, timeout: float) -> List[float]:
    def one(item):
        response, reference, _ = item
        verdict = score_answer(reference, response, eed=True, timeout=timeout)
        return reward_from_verdict(verdict, response, mode='eed').score
    with ThreadPoolExecutor(THREADS) as executor:
        return list(executor.map(one, items))


def new_rule(items, timeout: float) -> List[float]:
    rewards = batch_scores([i[0] for i in items], [i[1] for i in items], mode='eed', timeout=timeout,
                           threads=THREADS)
    return [r.score for r in rewards]


def lost(items, rewards: List[float]) -> int:
    return sum(1 for item, reward in zip(items, rewards) if item[2] and reward != 1.0)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--completions', type=int, default=150)
    parser.add_argument('--slow-share', type=float, default=0.06)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--timeout', type=float, default=ANSWER_DEADLINE)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)
    items = completions(args.completions, args.slow_share, args.seed)
    correct = sum(i[2] for i in items)
    start_pool(wait=True)
    print(f'{len(items)} completions ({correct} correct, {sum(1 for i in items if "sin" in i[1])} slow), '
          f'{THREADS} threads, budget {args.timeout} s; load average {os.getloadavg()[0]:.2f}')
    outcomes = {'budget from the call (before)': [], 'budget from the take (now)': []}
    for run in range(args.runs):
        for name, rule in (('budget from the call (before)', old_rule), ('budget from the take (now)', new_rule)):
            clear_cache()
            started = time.monotonic()
            rewards = rule(items, args.timeout)
            seconds = time.monotonic() - started
            outcomes[name].append(rewards)
            print(f'run {run + 1} {name}: {lost(items, rewards)}/{correct} correct completions lost, '
                  f'{seconds:.1f} s wall, load {os.getloadavg()[0]:.2f}')
    for name, runs in outcomes.items():
        same = all(r == runs[0] for r in runs)
        differ = sum(1 for values in zip(*runs) if len(set(values)) > 1)
        slow_differ = sum(1 for item, values in zip(items, zip(*runs)) if len(set(values)) > 1 and not item[2]
                          and 'sin' in item[1])
        print(f'{name}: lost per run {[lost(items, r) for r in runs]}; identical rewards in all runs: {same} '
              f'({differ} completions differ, {slow_differ} of them slow ones)')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
