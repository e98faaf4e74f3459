"""The reward where RL frameworks call it: many threads at once, a fresh interpreter whose script
has no ``if __name__ == '__main__'`` guard, and a PyTorch DataLoader worker process."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from evalscope_phys.reward import batch_rewards, physics_reward


def test_many_threads_at_once_each_get_their_own_answer():
    cases = [(fr'\boxed{{{n}}}', str(n if n % 3 else n + 1)) for n in range(1, 25)]
    start = threading.Barrier(8, timeout=60)

    def reward(case):
        return physics_reward(*case)

    def first_wave(case):
        start.wait()  # the first eight calls are released together
        return physics_reward(*case)

    with ThreadPoolExecutor(max_workers=8) as executor:
        wave = list(executor.map(first_wave, cases[:8]))
        rest = list(executor.map(reward, cases[8:]))
        batches = [executor.submit(batch_rewards, [c[0] for c in cases], [c[1] for c in cases]) for _ in range(3)]
        batched = [future.result(timeout=300) for future in batches]
    expected = [0.0 if n % 3 == 0 else 1.0 for n in range(1, 25)]
    assert wave + rest == expected
    assert batched == [expected] * 3


SCRIPT = '''
import json
from evalscope_phys.reward import batch_rewards, physics_reward
print(json.dumps([physics_reward(r"\\\\boxed{2}", "2"), physics_reward(r"\\\\boxed{3}", "2")]
                 + batch_rewards([r"\\\\boxed{2}", r"\\\\boxed{5}"], ["2", "2"])))
'''


def test_a_fresh_interpreter_without_a_main_guard(tmp_path):
    script = tmp_path / 'train.py'
    script.write_text(textwrap.dedent(SCRIPT))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    # once: a worker start must not run the training script again (it did, and its own calls
    # then failed with multiprocessing's bootstrapping error)
    assert done.stdout.strip().splitlines() == ['[1.0, 0.0, 1.0, 0.0]'], done.stdout + done.stderr[-3000:]
    assert 'could not be scored' not in done.stderr


def test_a_fresh_interpreter_running_code_given_with_dash_c(tmp_path):
    # python -c has no main file to re-run: the way some launchers start workers
    done = subprocess.run([sys.executable, '-c', textwrap.dedent(SCRIPT)], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines() == ['[1.0, 0.0, 1.0, 0.0]'], done.stdout + done.stderr[-3000:]
    assert 'could not be scored' not in done.stderr


class _RewardDataset:
    """Each item is scored inside the DataLoader's worker process (pairs no other test scores, so
    no verdict can come from a cache the worker inherited)."""

    cases = [(r'\boxed{41}', '41'), (r'\boxed{43}', '42'), (r'\boxed{47}', '47')]

    def __len__(self):
        return len(self.cases)

    def __getitem__(self, index):
        import os

        from evalscope_phys.reward import score_completion
        reward = score_completion(*self.cases[index])
        return reward.score, reward.verdict.scored, reward.verdict.detail, os.getpid()


@pytest.mark.parametrize('context', ['fork', 'spawn'])
def test_inside_a_dataloader_worker(context):
    torch = pytest.importorskip('torch')
    import os
    physics_reward(r'\boxed{1}', '1')  # the parent has a running pool (what a forked worker inherits)
    loader = torch.utils.data.DataLoader(_RewardDataset(), batch_size=None, num_workers=1, timeout=300,
                                         multiprocessing_context=context)
    results = list(loader)
    assert all(pid != os.getpid() for *_, pid in results)
    assert [(score, scored) for score, scored, _, _ in results] == [(1.0, True), (0.0, True), (1.0, True)], results


def test_inside_a_ray_task(ray_cluster):
    import os

    def score_in_this_process(cases):  # defined here: Ray ships it by value, not by this module's name
        import os

        from evalscope_phys.reward import score_completion
        rewards = [score_completion(response, reference) for response, reference in cases]
        return [(r.score, r.verdict.scored) for r in rewards], os.getpid()

    scorer = ray_cluster.remote(num_cpus=1)(score_in_this_process)
    results, pid = ray_cluster.get(scorer.remote(list(_RewardDataset.cases)), timeout=600)
    assert pid != os.getpid()
    assert results == [(1.0, True), (0.0, True), (1.0, True)]
