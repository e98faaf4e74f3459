"""RL rewards over the scoring engine: one completion, a batch, and the verl and TRL entry points.

``physics_reward`` and ``batch_rewards`` need nothing beyond this package; ``reward.verl`` needs
nothing either (verl calls it), ``reward.trl`` is for TRL's trainers (the ``[rl]`` extra).
"""
from evalscope_phys.reward.batch import Rewards, batch_rewards, batch_scores
from evalscope_phys.reward.score import (MODES, UNSCORED_REWARD, Reward, physics_reward, reset_unscored_counts,
                                         score_completion, unscored_counts)

__all__ = ['MODES', 'UNSCORED_REWARD', 'Reward', 'Rewards', 'batch_rewards', 'batch_scores', 'physics_reward',
           'reset_unscored_counts', 'score_completion', 'unscored_counts']
