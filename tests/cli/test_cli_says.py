"""The CLI says what it knows: help text, --version, --token, action errors and a warning
when a policy answers something that is not an action."""

from __future__ import annotations

import json

import pytest

from drums_gym import __version__
from drums_gym.cli import main

pytestmark = pytest.mark.timeout(60)


def help_of(capsys, *command):
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--help"])
    assert exit_info.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def test_help_texts(capsys):
    text = help_of(capsys, "eval")
    assert "95% Wilson" in text and "%%" not in text
    assert "'scripted'" in text and "scripted:terminal" in text and "--token" in text
    text = help_of(capsys, "rollout")
    assert "(default e0df059f)" in text and "'scripted'" in text


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"drums-gym {__version__}"


def test_token_flag(make_host, monkeypatch, capsys):
    server = make_host(tokens=["tok-flag-1"])
    monkeypatch.setenv("DRUMS_URL", server.url)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    assert main(["tasks", "--json"]) == 1
    capsys.readouterr()
    assert main(["tasks", "--json", "--token", "tok-flag-1"]) == 0
    assert json.loads(capsys.readouterr().out)
    assert main(["eval", "--token", "tok-flag-1", "--episodes", "1", "--num-envs", "1",
                 "--steps", "1", "--json", "--no-progress"]) == 0


POLICIES = '''
def none(observation, instruction):
    return None

def forty_two(observation, instruction):
    return 42
'''


@pytest.mark.parametrize("name", ["none", "forty_two"])
def test_non_string_actions_are_counted_and_warned_once(local_host, monkeypatch, tmp_path,
                                                        capsys, name):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    path = tmp_path / "bad_policies.py"
    path.write_text(POLICIES)
    assert main(["eval", "--policy", f"{path}:{name}", "--episodes", "2", "--num-envs", "2",
                 "--steps", "3", "--no-progress"]) == 0
    captured = capsys.readouterr()
    row = next(line for line in captured.out.splitlines() if line.startswith("action errors"))
    assert row.split()[2] == "6"  # 2 episodes x 3 steps, every action rejected
    assert captured.err.count("not an action string") == 1
    assert main(["rollout", "--policy", f"{path}:{name}", "--n", "2", "--groups", "1",
                 "--steps", "2", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "4 action errors" in captured.out
    table = captured.out.splitlines()
    header = next(line for line in table if line.startswith("group"))
    assert "errors" in header.split()
    assert captured.err.count("not an action string") == 1
