"""Tiny offline language models for the integration tests: nothing is downloaded.

`scripted_lm(script)` builds a word-level tokenizer (trained on nothing: a handful of
words, every other word is [UNK]) with Qwen2.5's chat template, and a 2-layer Llama from
a config whose weights are set so that it is a deterministic bigram model: after any
token it emits the single token ``script`` (a whole reply, e.g. three tool calls), and
after ``script`` it emits the end-of-turn token. So a real GRPO run (real generation,
real tool-call parsing, real losses and optimizer steps) acts exactly as the script says.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing is downloaded

import torch
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

__all__ = ["scripted_lm"]

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
WORDS = ["[UNK]", " ", "\n", "system", "user", "assistant", "tool"]


def scripted_lm(script: str, *, chat_template: str | None = None):
    """``(model, tokenizer)``: a tiny causal LM that always answers ``script``."""
    vocab = {word: i for i, word in enumerate(WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    # words, single spaces and newlines are tokens (so the chat template's anchors survive)
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"[^\s]+| |\n"), behavior="isolated")
    tok.decoder = decoders.Fuse()
    tok.add_special_tokens(SPECIAL)
    tok.add_tokens([script])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="<|endoftext|>",
        eos_token="<|im_end|>",
        padding_side="left",
    )
    if chat_template is None:
        from trl.chat_template_utils import qwen2_5_chat_template as chat_template
    tokenizer.chat_template = chat_template
    size = len(tokenizer)
    script_id = tokenizer.convert_tokens_to_ids(script)
    eos_id = tokenizer.eos_token_id
    hidden = max(16, size)
    config = LlamaConfig(
        vocab_size=size,
        hidden_size=hidden,
        intermediate_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=16384,
        tie_word_embeddings=False,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=eos_id,
        bos_token_id=None,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    with torch.no_grad():
        # one-hot embeddings; the blocks add nothing to the residual stream
        model.model.embed_tokens.weight.zero_()
        model.model.embed_tokens.weight[:, :size].copy_(torch.eye(size))
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        model.model.norm.weight.fill_(1.0)
        # the bigram: every token -> script, script -> end of turn
        model.lm_head.weight.zero_()
        model.lm_head.weight[script_id, :size] = 40.0
        model.lm_head.weight[script_id, script_id] = 0.0
        model.lm_head.weight[eos_id, script_id] = 40.0
    model.generation_config.eos_token_id = eos_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model, tokenizer
