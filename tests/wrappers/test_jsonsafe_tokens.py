"""The recorder's secret filter drops keys naming a token, but keeps a model's token counts
(``prompt_tokens``: the report shows them), and only as counts."""

from __future__ import annotations

from drums_gym.wrappers._jsonsafe import json_safe


def test_token_counts_survive_and_secrets_do_not() -> None:
    record = {
        "prompt_tokens": 1234, "completion_tokens": None, "total_tokens": 7,
        "api_token": "sk-secret", "token": "t0k", "access_tokens": "sk-other",
        "nested": {"bearer_token": "x", "prompt_tokens": 3},
        "fake_tokens": True,  # a bool is no count
    }
    assert json_safe(record) == {
        "prompt_tokens": 1234, "completion_tokens": None, "total_tokens": 7,
        "nested": {"prompt_tokens": 3},
    }
