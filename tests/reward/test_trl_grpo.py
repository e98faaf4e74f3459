"""TRL's GRPOTrainer runs one optimisation step on CPU with our reward, on a tiny random model.

Nothing is downloaded: the model is a randomly initialised two-layer Llama and the tokenizer a
word-level one built here, whose only answer-like tokens are ``\\boxed{2}`` and ``\\boxed{3}``.
Every random completion therefore ends in a known final answer (or none), and the reference is 2:
the reward must be 1.0 exactly when the last box in the completion is ``\\boxed{2}``.
"""
from __future__ import annotations

import re

import pytest

pytest.importorskip('trl', reason='the [rl] extra (trl) is not installed')

from evalscope_phys.reward.trl import PhysicsRewardFunc  # noqa: E402

VOCAB = ['<pad>', '<eos>', '<unk>', '\\boxed{2}', '\\boxed{3}', 'so', 'the', 'answer', 'is', 'What', '1', '+',
         '?', 'Reply:']
GROUP = 4


def tiny_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.WordLevel({t: i for i, t in enumerate(VOCAB)}, unk_token='<unk>'))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.decoder = decoders.WordPiece(prefix='##')  # joins tokens with single spaces
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, pad_token='<pad>', eos_token='<eos>',
                                        unk_token='<unk>')
    tokenizer.chat_template = ("{% for m in messages %}{{ m['content'] }} {% endfor %}"
                               "{% if add_generation_prompt %}Reply: {% endif %}")
    return tokenizer


def tiny_model():
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(VOCAB), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
                         pad_token_id=0, eos_token_id=1, bos_token_id=None, tie_word_embeddings=False)
    return LlamaForCausalLM(config)


class RecordingReward(PhysicsRewardFunc):
    """Our reward, remembering what it was asked and what it answered (same name in TRL's logs)."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __call__(self, completions, **kwargs):
        rewards = super().__call__(completions, **kwargs)
        self.calls.append((list(completions), list(rewards)))
        return rewards


def expected_reward(text: str) -> float:
    boxes = re.findall(r'\\boxed\{(\d)\}', text)
    return 1.0 if boxes and boxes[-1] == '2' else 0.0


@pytest.mark.parametrize('conversational', [False, True], ids=['plain', 'conversational'])
def test_one_grpo_step_rewards_every_completion_and_logs_it(tmp_path, conversational):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    question = 'What is 1 + 1 ?'
    prompt = [{'role': 'user', 'content': question}] if conversational else question
    dataset = Dataset.from_list([{'prompt': prompt, 'solution': '2'}] * 4)
    reward = RecordingReward()
    args = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, max_steps=1, per_device_train_batch_size=GROUP,
                      num_generations=GROUP, max_completion_length=12, logging_steps=1, report_to=[],
                      save_strategy='no', bf16=False, seed=0, dataloader_num_workers=0, temperature=1.0)
    trainer = GRPOTrainer(model=tiny_model(), reward_funcs=reward, args=args, train_dataset=dataset,
                          processing_class=tiny_tokenizer())
    trainer.train()

    completions = [c for batch, _ in reward.calls for c in batch]
    rewards = [r for _, batch in reward.calls for r in batch]
    assert len(completions) == GROUP * len(reward.calls) and reward.calls
    texts = [c[-1]['content'] if conversational else c for c in completions]
    assert all(isinstance(t, str) for t in texts)
    assert rewards == [expected_reward(t) for t in texts]
    logged = [entry for entry in trainer.state.log_history if 'rewards/physics_reward_func/mean' in entry]
    assert logged, trainer.state.log_history
    assert logged[0]['rewards/physics_reward_func/mean'] == pytest.approx(sum(rewards) / len(rewards))
    assert logged[0]['physics_reward_func/unscored'] == 0.0
