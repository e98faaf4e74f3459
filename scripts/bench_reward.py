"""Benchmark the RL reward: rewards/s and agreement with the known truth, side by side with math-verify.

    python scripts/bench_reward.py [--data PATH] [--completions 2048] [--group 8] [--rounds 1]
                                   [--threads 4] [--seed 0] [--json OUT] [--baseline OTHER_TREE]
                                   [--no-math-verify]

Builds ``--completions`` synthetic completions from the PHYBench references (GRPO groups of
``--group`` per prompt, prompts drawn with repeats, some completions repeated inside a group) whose
truth is certain by construction: the reference answer boxed (with or without a name on its left),
an algebraic identity of it (``\\frac{2(X)}{2}``, ``-(-(X))``, ``(X)\\cdot\\frac{3}{3}``, ``\\dfrac`` for
``\\frac``, an exact decimal for a fraction), a certainly different value, either of them as a final
display or a "Final answer:" line without a box, and a reply cut off before any answer. Different
values are ``2(X)``, ``\\frac{X}{2}``, ``-(X)``, ``(X)^2`` when X evaluates, at a random point, to a
finite number away from 0 and 1 (that point proves they differ), else ``X + 1`` or ``X - 1``;
``\\frac{1}{1/X}`` likewise needs that point. The reference is the dataset's ``answer`` as stored.

Then, in one run and in this order per round, on the same completions with cold caches each time
(the verdict cache is cleared and the scoring workers restarted, so nothing carries over):

* ours, batch: ``batch_rewards`` over all completions at once (repeats scored once, threads);
* math-verify: ``verify(parse(gold), parse(pred))`` per completion in a 2-process pool;
* ours, one at a time: ``physics_reward`` per completion in one thread (the engine's cache still
  serves repeats, as it would under verl's naive reward manager).

Prints rewards/s and seconds for each, the ratios, and each scorer's agreement with the truth by
kind of completion.

``--baseline OTHER_TREE`` (another source tree: ``git archive <commit> | tar -x -C DIR``) measures old
and new in one run: each round scores the same completions with this tree and then OTHER_TREE, each
in a fresh process that imports that tree's package (ours, batch and one at a time, cold caches as
above), then math-verify once; the ratios this/baseline are taken round by round, with the load.
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import multiprocessing
import os
import random
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

SHARED = os.environ.get('EVALSCOPE_PHYS_SHARED', os.path.join(os.path.dirname(HERE), '..', 'shared'))
DEFAULT_DATA = os.path.join(SHARED, 'data', 'phybench', 'PHYBench-fullques_v1.json')

#: Share of the completions of each kind (before repeats); a GRPO group draws from these.
KIND_WEIGHTS = {
    'correct': 0.28,          # the reference answer boxed, left side kept or dropped
    'rewritten': 0.22,        # an algebraic identity of it, boxed
    'wrong': 0.25,            # a certainly different value, boxed
    'unboxed_correct': 0.08,  # the right value as a final display or "Final answer:" line, no box
    'unboxed_wrong': 0.07,
    'no_answer': 0.10,        # cut off before any answer
}
TRUTH = {'correct': True, 'rewritten': True, 'unboxed_correct': True,
         'wrong': False, 'unboxed_wrong': False, 'no_answer': False}
REPEAT_SHARE = 0.25
"""Share of a group's completions that copy an earlier completion of the same group verbatim."""

_NAME_LHS_RE = re.compile(r"^\s*(\\vec\{[^{}]*\}|\{\\[A-Za-z]+\}|(\\[Dd]elta\s*)?(\\[A-Za-z]+|[A-Za-z]))"
                          r"\s*(_\s*(\{[^{}]*\}|\\?[A-Za-z0-9]+))?\s*('|\^\{?\\prime\}?)?\s*(\([^()]*\))?\s*$")
_FRACTION_RE = re.compile(r'^\s*\\frac\{(\d+)\}\{(\d+)\}\s*$')
_REASONING = [
    r"We set up the problem with the quantities given and write the governing relation.",
    r"Conservation of energy between the two positions gives the first equation, $E_1 = E_2$.",
    r"Newton's second law along the direction of motion, $F = m a$, gives the second.",
    r"Eliminating the intermediate unknowns and simplifying, we obtain the result.",
    r"Checking the limits: the expression has the right dimensions and behaves sensibly.",
    r"The symmetry of the configuration means only one component survives.",
    r"Expanding to first order in the small quantity and keeping the leading term.",
]


@dataclass(frozen=True)
class Completion:
    """One synthetic completion with its known truth."""

    prompt_id: int
    reference: str
    response: str
    kind: str
    truth: bool


# --------------------------------------------------------------------------- building the completions

def strip_wrappers(answer: str) -> str:
    """The LaTeX inside ``$$..$$``/``\\[..\\]``/``$..$`` and an enclosing ``\\boxed{}``."""
    text = answer.strip()
    for opening, closing in (('$$', '$$'), ('\\[', '\\]'), ('$', '$')):
        if text.startswith(opening) and text.endswith(closing) and len(text) > len(opening) + len(closing):
            text = text[len(opening):-len(closing)].strip()
            break
    if text.startswith('\\boxed{') and _matching_brace(text, len('\\boxed')) == len(text) - 1:
        text = text[len('\\boxed{'):-1].strip()
    return text


def split_equation(inner: str) -> Tuple[str, str]:
    """(left side, value): the first and last parts of the top-level ``=`` chain ('' when none)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(inner):
        if char in '{([':
            depth += 1
        elif char in '})]':
            depth -= 1
        elif char == '=' and depth == 0:
            parts.append(inner[start:index])
            start = index + 1
    parts.append(inner[start:])
    if len(parts) == 1:
        return '', inner.strip()
    return parts[0].strip(), parts[-1].strip()


def certifying_point(value: str, rng: random.Random) -> bool:
    """True when ``value`` reads as a number away from 0 and 1 at some random point.

    Such a point proves 2X, X/2, -X, X^2 and 1/(1/X) are what they claim (different values, an
    identity) for the function X itself. The reference is our trusted dataset text, never a model's,
    read here only, with ``latex2sympy2_extended`` (symbols keep their case); a reading that needs
    an undefined function or gives infinity certifies nothing, and such a reference gets only the
    forms that need no certificate (``X + 1`` is always wrong).
    """
    try:
        import sympy
        from latex2sympy2_extended import latex2sympy
        from latex2sympy2_extended.latex2sympy2 import ConversionConfig
        expr = latex2sympy(value, conversion_config=ConversionConfig(lowercase_symbols=False))
        if not isinstance(expr, sympy.Expr) or expr.atoms(sympy.core.function.AppliedUndef) \
                or expr.has(sympy.gamma, sympy.zoo, sympy.oo, sympy.nan):
            return False
        symbols = sorted(expr.free_symbols, key=str)
        for _ in range(5):
            number = complex(expr.evalf(30, subs={s: 1.1 + rng.random() for s in symbols}))
            if all(map(math.isfinite, (number.real, number.imag))) and abs(number) > 1e-6 \
                    and abs(number - 1.0) > 1e-6:
                return True
    except Exception:  # noqa: BLE001  (an unreadable reference only loses the certified forms)
        return False
    return False


def usable_references(records: Sequence[dict], rng: random.Random) -> List[dict]:
    """PHYBench rows with an answer, split into left side and value, with their certificate."""
    usable = []
    for row in records:
        inner = strip_wrappers(row.get('answer') or '')
        lhs, value = split_equation(inner)
        if value:
            usable.append({'id': row['id'], 'answer': row['answer'], 'inner': inner, 'lhs': lhs, 'value': value,
                           'certified': certifying_point(value, rng)})
    return usable


def equivalent_forms(value: str, certified: bool) -> List[str]:
    """Algebraic identities of ``value``; 1/(1/X) only where X is certified not to vanish."""
    group = f'\\left({value}\\right)'
    forms = [f'\\frac{{2{group}}}{{2}}', f'-\\left(-{group}\\right)', f'{group} \\cdot \\frac{{3}}{{3}}']
    if certified:
        forms.append(f'\\frac{{1}}{{\\frac{{1}}{{{group}}}}}')
    if '\\frac' in value and '\\dfrac' not in value:
        forms.append(value.replace('\\frac', '\\dfrac'))
    if '\\cdot' in value and '\\times' not in value:  # never next to a cross product
        forms.append(value.replace('\\cdot', '\\times'))
    fraction = _FRACTION_RE.match(value)
    if fraction:
        decimal = _exact_decimal(int(fraction.group(1)), int(fraction.group(2)))
        if decimal:
            forms.append(decimal)
    return forms


def wrong_forms(value: str, certified: bool) -> List[str]:
    """Values that certainly differ from ``value``: X + 1 always; 2X, X/2, -X, X^2 where the
    certifying point shows X is not identically 0 or 1."""
    group = f'\\left({value}\\right)'
    if not certified:
        return [f'{value} + 1', f'{value} - 1']
    return [f'2{group}', f'\\frac{{{group}}}{{2}}', f'-{group}', f'{group}^{{2}}']


def with_left_side(ref: dict, value: str, rng: random.Random) -> str:
    """``lhs = value``; a name on the left (``T``, ``v_0``) may be dropped, an equation's left side never."""
    if not ref['lhs']:
        return value
    if _NAME_LHS_RE.match(ref['lhs']) and rng.random() < 0.5:
        return value
    return f"{ref['lhs']} = {value}"


def reasoning(rng: random.Random) -> str:
    return ' '.join(rng.sample(_REASONING, k=rng.randint(2, 5)))


def make_completion(ref: dict, kind: str, rng: random.Random) -> str:
    """The text of one completion of ``kind`` for reference ``ref``."""
    lead = reasoning(rng)
    if kind == 'no_answer':
        return lead + ' Substituting the expressions into the second equation and collecting the'
    if kind == 'correct':
        answer = ref['inner'] if rng.random() < 0.5 else with_left_side(ref, ref['value'], rng)
    elif kind in ('rewritten', 'unboxed_correct'):
        answer = with_left_side(ref, rng.choice(equivalent_forms(ref['value'], ref['certified'])), rng) if kind == 'rewritten' \
            else with_left_side(ref, ref['value'], rng)
    else:
        answer = with_left_side(ref, rng.choice(wrong_forms(ref['value'], ref['certified'])), rng)
    if kind.startswith('unboxed'):
        if rng.random() < 0.5:
            return f'{lead}\n\nTherefore\n$$\n{answer}\n$$'
        return f'{lead}\n\nFinal answer: ${answer}$'
    return f'{lead}\n\nHence\n$$\n\\boxed{{{answer}}}\n$$'


def build_completions(records: Sequence[dict], count: int, group: int, seed: int) -> Tuple[List[Completion], List[dict]]:
    """``count`` completions in groups of ``group``, and the references they were built from."""
    rng = random.Random(seed)
    refs = usable_references(records, rng)
    if not refs:
        raise SystemExit('no usable reference: is the PHYBench file the full-questions release?')
    kinds, weights = zip(*KIND_WEIGHTS.items())
    out: List[Completion] = []
    while len(out) < count:
        ref = rng.choice(refs)  # prompts repeat across groups, as over epochs
        members: List[Completion] = []
        for _ in range(min(group, count - len(out))):
            if members and rng.random() < REPEAT_SHARE:
                members.append(rng.choice(members))
                continue
            kind = rng.choices(kinds, weights)[0]
            members.append(Completion(ref['id'], ref['answer'], make_completion(ref, kind, rng), kind, TRUTH[kind]))
        out.extend(members)
    return out, refs


# --------------------------------------------------------------------------- scorers

def cold_start(workers: int = 2) -> None:
    """Forget cached verdicts, restart the scoring workers and wait until ``workers`` are ready."""
    from evalscope_phys.scoring import engine, score_answer
    from evalscope_phys.scoring.run import pool
    engine.clear_cache()
    pool.shutdown_pool()
    barrier = threading.Barrier(workers)

    def warm(index: int) -> None:
        barrier.wait()
        score_answer(str(index + 1), str(index + 1), eed=False)

    threads = [threading.Thread(target=warm, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    engine.clear_cache()


class CpuClock:
    """CPU seconds of this process and of the given worker processes: on a machine shared with
    other jobs the wall time depends on their load, the CPU time much less."""

    def __init__(self, pids: Sequence[int]):
        import psutil
        self._workers = [psutil.Process(pid) for pid in pids]
        self._start = self._read()

    def _read(self) -> Tuple[float, float]:
        workers = 0.0
        for process in self._workers:
            try:
                times = process.cpu_times()
                workers += times.user + times.system
            except Exception:  # noqa: BLE001  (a worker that died took its time with it)
                pass
        return time.process_time(), workers

    def elapsed(self) -> Dict[str, float]:
        parent, workers = self._read()
        return {'parent': parent - self._start[0], 'workers': workers - self._start[1]}


def _scoring_clock() -> CpuClock:
    from evalscope_phys.scoring.run import pool
    return CpuClock(pool.get_pool().worker_pids())


def run_ours_batch(items: Sequence[Completion], threads: int) -> Tuple[float, List[float], Dict[str, float]]:
    from evalscope_phys.reward import batch_rewards
    cold_start()
    clock, started = _scoring_clock(), time.perf_counter()
    rewards = batch_rewards([c.response for c in items], [c.reference for c in items], threads=threads)
    return time.perf_counter() - started, rewards, clock.elapsed()


def run_ours_serial(items: Sequence[Completion]) -> Tuple[float, List[float], Dict[str, float]]:
    from evalscope_phys.reward import physics_reward
    cold_start()
    clock, started = _scoring_clock(), time.perf_counter()
    rewards = []
    for index, c in enumerate(items):
        rewards.append(physics_reward(c.response, c.reference))
        if (index + 1) % 512 == 0:
            print(f'  one at a time: {index + 1}/{len(items)}', file=sys.stderr, flush=True)
    return time.perf_counter() - started, rewards, clock.elapsed()


def _math_verify_init() -> None:
    import math_verify  # noqa: F401  (imported before the clock starts)
    math_verify.verify(math_verify.parse('$1$'), math_verify.parse('$1$'))


def _math_verify_one(pair: Tuple[str, str]) -> bool:
    from math_verify import parse, verify
    gold, pred = pair
    try:
        return bool(verify(parse(gold), parse(pred)))
    except Exception:  # noqa: BLE001  (math-verify's own failure counts as not verified)
        return False


def run_math_verify(items: Sequence[Completion], processes: int = 2) -> Tuple[float, List[float], Dict[str, float]]:
    method = 'forkserver' if 'forkserver' in multiprocessing.get_all_start_methods() else 'spawn'
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(processes, initializer=_math_verify_init) as workers:
        pids = workers.map(_math_verify_pid, range(processes * 4))  # all started and warm
        clock, started = CpuClock(sorted(set(pids))), time.perf_counter()
        verdicts = workers.map(_math_verify_one, [(c.reference, c.response) for c in items], chunksize=16)
        seconds, cpu = time.perf_counter() - started, clock.elapsed()
    return seconds, [1.0 if v else 0.0 for v in verdicts], cpu


def _math_verify_pid(_: int) -> int:
    _math_verify_one(('$1$', '$1$'))
    return os.getpid()


# --------------------------------------------------------------------------- figures

def agreement(items: Sequence[Completion], rewards: Sequence[float]) -> Dict:
    by_kind = collections.defaultdict(lambda: [0, 0])
    for c, r in zip(items, rewards):
        by_kind[c.kind][0] += (r >= 0.5) == c.truth
        by_kind[c.kind][1] += 1
    agree = sum(a for a, _ in by_kind.values())
    return {'agree': agree, 'total': len(items), 'share': agree / len(items),
            'by_kind': {k: {'agree': a, 'total': n} for k, (a, n) in sorted(by_kind.items())}}


def bench(items: Sequence[Completion], rounds: int, threads: int, math_verify_too: bool = True) -> Dict:
    """Time the three scorers (two without ``math_verify_too``) ``rounds`` times, interleaved; return the
    figures (also printed)."""
    runs = collections.defaultdict(list)
    cpu = collections.defaultdict(list)
    results = {}
    for round_index in range(rounds):
        print(f'round {round_index + 1}/{rounds}: ours (batch)', file=sys.stderr, flush=True)
        seconds, results['ours_batch'], used = run_ours_batch(items, threads)
        runs['ours_batch'].append(seconds)
        cpu['ours_batch'].append(used)
        if math_verify_too:
            print(f'round {round_index + 1}/{rounds}: math-verify (2 processes)', file=sys.stderr, flush=True)
            seconds, results['math_verify'], used = run_math_verify(items)
            runs['math_verify'].append(seconds)
            cpu['math_verify'].append(used)
        print(f'round {round_index + 1}/{rounds}: ours (one at a time)', file=sys.stderr, flush=True)
        seconds, results['ours_serial'], used = run_ours_serial(items)
        runs['ours_serial'].append(seconds)
        cpu['ours_serial'].append(used)
    from evalscope_phys.reward import unscored_counts
    n = len(items)
    figures = {
        'completions': n,
        'distinct_completions': len({(c.response, c.reference) for c in items}),
        'seconds': {k: v for k, v in runs.items()},
        'cpu_seconds': {k: v for k, v in cpu.items()},
        'rewards_per_second': {k: [n / s for s in v] for k, v in runs.items()},
        'ratio_batch_over_math_verify': [m / b for b, m in zip(runs['ours_batch'], runs['math_verify'])],
        'ratio_serial_over_math_verify': [m / s for s, m in zip(runs['ours_serial'], runs['math_verify'])],
        'agreement': {k: agreement(items, v) for k, v in results.items()},
        'batch_equals_serial': results['ours_batch'] == results['ours_serial'],
        'unscored': unscored_counts(),
    }
    print(f"completions: {n} ({figures['distinct_completions']} distinct), threads: {threads}")
    for name in ('ours_batch', 'ours_serial') + (('math_verify',) if math_verify_too else ()):
        times = ', '.join(f'{s:.2f}' for s in runs[name])
        rates = ', '.join(f'{r:.0f}' for r in figures['rewards_per_second'][name])
        used = ', '.join(f"{c['parent']:.1f} + {c['workers']:.1f}" for c in cpu[name])
        print(f'  {name:12s} seconds: {times:14s} rewards/s: {rates:10s} CPU s (caller + workers): {used}')
    if math_verify_too:
        print('  throughput over math-verify: batch ' + ', '.join(f'{r:.2f}x' for r in figures['ratio_batch_over_math_verify'])
              + '; one at a time ' + ', '.join(f'{r:.2f}x' for r in figures['ratio_serial_over_math_verify']))
    print(f"  batch rewards identical to one-at-a-time rewards: {figures['batch_equals_serial']}")
    print('agreement with the known truth:')
    kinds = sorted(KIND_WEIGHTS)
    print(f"  {'kind':16s} {'n':>5s} {'ours':>7s} {'math-verify':>12s}")
    for kind in kinds:
        ours = figures['agreement']['ours_batch']['by_kind'].get(kind, {'agree': 0, 'total': 0})
        theirs = figures['agreement'].get('math_verify', {'by_kind': {}})['by_kind'].get(kind)
        print(f"  {kind:16s} {ours['total']:5d} {ours['agree']:7d} {theirs['agree'] if theirs else '-':>12}")
    ours, theirs = figures['agreement']['ours_batch'], figures['agreement'].get('math_verify')
    print(f"  {'all':16s} {n:5d} {ours['share']:7.1%} {format(theirs['share'], '12.1%') if theirs else '-':>12}")
    print(f"unscored (ours): {figures['unscored'] or 'none'}")
    return figures


# --------------------------------------------------------------------------- this tree against another

THIS_TREE = os.path.dirname(HERE)


def _ours_in_tree(tree: str, completions: str, threads: int) -> int:
    """Child of ``side_by_side``: score the completions with ``tree``'s package; figures as JSON on stdout."""
    sys.path.insert(0, tree)  # ahead of the harness's own tree (inserted at the top of this script)
    import evalscope_phys
    if os.path.dirname(os.path.dirname(os.path.abspath(evalscope_phys.__file__))) != os.path.abspath(tree):
        raise SystemExit(f'imported {evalscope_phys.__file__}, not the package of {tree}')
    with open(completions, encoding='utf-8') as handle:
        items = [Completion(**row) for row in json.load(handle)]
    out = {}
    for name, run in (('ours_batch', lambda: run_ours_batch(items, threads)), ('ours_serial', lambda: run_ours_serial(items))):
        seconds, rewards, cpu = run()
        out[name] = {'seconds': seconds, 'rewards': rewards, 'cpu': cpu}
    from evalscope_phys.reward import unscored_counts
    out['unscored'] = unscored_counts()
    print(json.dumps(out))
    return 0


def _run_tree(tree: str, completions: str, threads: int) -> Dict:
    env = dict(os.environ, PYTHONPATH=tree)  # the forkserver and workers import the same tree
    done = subprocess.run([sys.executable, os.path.abspath(__file__), '_ours', tree, completions, str(threads)],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f'{tree}: exit {done.returncode}: {done.stderr[-1500:]}')
    return json.loads(done.stdout.strip().splitlines()[-1])


def side_by_side(items: Sequence[Completion], baseline: str, rounds: int, threads: int,
                 math_verify_too: bool = True) -> Dict:
    """Each round: this tree, then ``baseline``, each in a fresh process, then math-verify (unless
    ``math_verify_too`` is False: it takes minutes); ratios per round."""
    import tempfile
    sides = {'this': THIS_TREE, 'baseline': baseline}
    runs: Dict[str, List[Dict]] = {side: [] for side in sides}
    math_verify: List[float] = []
    loads: List[float] = []
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False, encoding='utf-8') as handle:
        json.dump([c.__dict__ for c in items], handle)
    try:
        for round_index in range(rounds):
            for side, tree in sides.items():
                print(f'round {round_index + 1}/{rounds}: ours ({side} tree {tree})', file=sys.stderr, flush=True)
                runs[side].append(_run_tree(tree, handle.name, threads))
            if math_verify_too:
                print(f'round {round_index + 1}/{rounds}: math-verify (2 processes)', file=sys.stderr, flush=True)
                math_verify.append(run_math_verify(items)[0])
            loads.append(os.getloadavg()[0])
    finally:
        os.unlink(handle.name)
    n = len(items)
    print(f"completions: {n} ({len({(c.response, c.reference) for c in items})} distinct), threads: {threads}")
    figures: Dict = {'completions': n, 'trees': sides, 'load': loads, 'math_verify_seconds': math_verify}
    for name in ('ours_batch', 'ours_serial'):
        for side in sides:
            seconds = [r[name]['seconds'] for r in runs[side]]
            used = ', '.join(f"{r[name]['cpu']['parent']:.1f} + {r[name]['cpu']['workers']:.1f}" for r in runs[side])
            agree = agreement(items, runs[side][-1][name]['rewards'])
            print(f"  {name:12s} {side:8s} seconds: {', '.join(f'{s:.2f}' for s in seconds):14s} "
                  f"CPU s (caller + workers): {used}; agreement {agree['agree']}/{n}")
            figures[f'{name}_{side}'] = {'seconds': seconds, 'cpu': [r[name]['cpu'] for r in runs[side]],
                                         'agreement': agree}
        wall = [a[name]['seconds'] / b[name]['seconds'] for a, b in zip(runs['this'], runs['baseline'])]
        cpu = [sum(a[name]['cpu'].values()) / sum(b[name]['cpu'].values())
               for a, b in zip(runs['this'], runs['baseline'])]
        same = sum(x == y for x, y in zip(runs['this'][-1][name]['rewards'], runs['baseline'][-1][name]['rewards']))
        print(f'  {name:12s} this/baseline wall: {", ".join(f"{r:.3f}" for r in wall)}; '
              f'CPU: {", ".join(f"{r:.3f}" for r in cpu)}; same rewards {same}/{n}')
        figures[f'{name}_ratio'] = {'wall': wall, 'cpu': cpu, 'same_rewards': same}
    if math_verify:
        print(f'  math-verify seconds: {", ".join(f"{s:.2f}" for s in math_verify)}; batch over math-verify: this '
              + ', '.join(f"{m / r['ours_batch']['seconds']:.2f}x" for m, r in zip(math_verify, runs['this']))
              + ', baseline ' + ', '.join(f"{m / r['ours_batch']['seconds']:.2f}x" for m, r in zip(math_verify, runs['baseline'])))
    print(f'load average (1 min) after each round: {", ".join(f"{x:.2f}" for x in loads)}; at the end (1, 5, 15 min): '
          + ' '.join(f'{x:.2f}' for x in os.getloadavg()))
    figures['unscored'] = {side: runs[side][-1]['unscored'] for side in sides}
    return figures


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog='\n'.join(__doc__.splitlines()[1:]))
    parser.add_argument('--data', default=DEFAULT_DATA, help='PHYBench full-questions JSON (default: %(default)s)')
    parser.add_argument('--completions', type=int, default=2048)
    parser.add_argument('--group', type=int, default=8, help='completions per prompt (GRPO group size)')
    parser.add_argument('--rounds', type=int, default=1, help='repeat the three timings, interleaved')
    parser.add_argument('--threads', type=int, default=None, help='batch_rewards threads (default: its own)')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--json', help='write the figures here')
    parser.add_argument('--baseline', metavar='OTHER_TREE', help='another source tree, measured side by side')
    parser.add_argument('--no-math-verify', action='store_true',
                        help='time only ours (math-verify takes minutes on this box)')
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['_ours']:
        return _ours_in_tree(argv[1], argv[2], int(argv[3]))
    args = parser.parse_args(argv)
    if not os.path.exists(args.data):
        print(f'no PHYBench data at {args.data} (set EVALSCOPE_PHYS_SHARED or pass --data)', file=sys.stderr)
        return 2
    from evalscope_phys.reward.batch import DEFAULT_THREADS
    threads = args.threads or DEFAULT_THREADS
    with open(args.data, encoding='utf-8') as handle:
        records = json.load(handle)
    items, refs = build_completions(records, args.completions, args.group, args.seed)
    certified = sum(r['certified'] for r in refs)
    print(f'{len(refs)} references, {certified} with a value certified away from 0 and 1 at a random point '
          f'(the others get only X + 1 / X - 1 as wrong forms)')
    if args.baseline:
        figures = side_by_side(items, os.path.abspath(args.baseline), args.rounds, threads,
                               math_verify_too=not args.no_math_verify)
    else:
        figures = bench(items, args.rounds, threads, math_verify_too=not args.no_math_verify)
    figures['references'] = len(refs)
    figures['references_certified'] = certified
    if args.json:
        with open(args.json, 'w', encoding='utf-8') as handle:
            json.dump(figures, handle, indent=1)
    return 0


def _matching_brace(text: str, index: int) -> int:
    depth = 0
    for position in range(index, len(text)):
        if text[position] == '{':
            depth += 1
        elif text[position] == '}':
            depth -= 1
            if depth == 0:
                return position
    return -1


def _exact_decimal(numerator: int, denominator: int) -> Optional[str]:
    """``numerator/denominator`` as a finite decimal string, when it has one with few digits."""
    for digits in range(1, 7):
        scaled = numerator * 10 ** digits
        if scaled % denominator == 0:
            whole = scaled // denominator
            text = f'{whole // 10 ** digits}.{whole % 10 ** digits:0{digits}d}'
            return text.rstrip('0').rstrip('.') if '.' in text else text
    return None


if __name__ == '__main__':
    sys.exit(main())
