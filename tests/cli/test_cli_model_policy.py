"""``drums-gym rollout --policy openai:MODEL --base-url URL``: the CLI drives a model behind
an OpenAI-compatible server (a stand-in on loopback, real HTTP) in every member."""

from __future__ import annotations

import json

import pytest
from openai_server import Reply, StandIn

from drums_gym.cli import main

KEY = "sk-cli-test-0123456789"


@pytest.fixture
def host_url(local_host, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    monkeypatch.setenv("DRUMS_CLI_TEST_KEY", KEY)
    return local_host.url


def test_rollout_asks_the_model_for_every_members_actions(host_url, capsys):
    # two members, two steps each: a move, then DONE (the scripted replies, in order)
    replies = [Reply.text("```python\npyautogui.moveTo(100, 100)\n```")] * 2 + [
        Reply.text("DONE")
    ] * 2
    with StandIn(replies) as server:
        code = main([
            "rollout", "--task", "e0df059f", "--n", "2", "--groups", "1", "--steps", "3",
            "--policy", "openai:standin-model", "--base-url", server.url,
            "--api-key-env", "DRUMS_CLI_TEST_KEY", "--json", "--no-progress",
        ])
        requests = list(server.requests)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out)
    assert len(requests) == 4  # each member asked once per step, never after DONE
    assert all(r.body["model"] == "standin-model" for r in requests)
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in requests)
    assert KEY not in captured.out + captured.err
    group = summary["groups"][0]
    assert group["valid"] == 2 and group["scores"] == [0.0, 0.0]


def test_an_unknown_observation_is_refused_by_argparse(host_url, capsys):
    with pytest.raises(SystemExit):
        main(["rollout", "--policy", "openai:m", "--observation", "video"])
    assert "--observation" in capsys.readouterr().err
