"""The subcommands say things one way (issue 22, item 5): a mistyped flag shows the
subcommand's usage, no flag is taken by a prefix, a refused token gets one hint naming
``--token``, an unknown task one message, and ``eval --help`` names ``openai:MODEL``."""

from __future__ import annotations

import pytest

from drums_gym.cli import main

pytestmark = pytest.mark.timeout(120)

TOKEN = "consistency-t0ken"
#: one run of each command that reaches the host (nothing runs: each fails before a step)
COMMANDS = {
    "tasks": ["tasks"],
    "rollout": ["rollout", "--n", "1", "--groups", "1", "--steps", "1", "--no-progress"],
    "eval": ["eval", "--episodes", "1", "--num-envs", "1", "--steps", "1", "--no-progress"],
    "eval --tasks": ["eval", "--tasks", "e0df059f", "--out", "{out}", "--no-progress"],
}


def error_of(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err  # one line
    prefix, _, message = err.partition(": error: ")
    assert prefix.startswith("drums-gym "), err
    return message


@pytest.mark.parametrize(("command", "flag"), [
    ("eval", "--num-env"),      # a prefix of --num-envs: refused, not guessed
    ("rollout", "--group"),     # a prefix of --groups
    ("eval", "--bogus"),
    ("tasks", "--jsn"),
])
def test_an_unknown_flag_shows_the_subcommands_usage(
    capsys: pytest.CaptureFixture[str], command: str, flag: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([command, flag, "2"] if command != "tasks" else [command, flag])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: drums-gym {command} "), err
    assert f"drums-gym {command}: error: unrecognized arguments: {flag}" in err


def test_a_refused_token_gets_the_same_hint_from_every_command(
    make_host, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    host = make_host(tokens=[TOKEN])
    monkeypatch.setenv("DRUMS_URL", host.url)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    refused, missing = set(), set()
    for argv in COMMANDS.values():
        argv = [a.format(out=tmp_path / "suite") for a in argv]
        refused.add(error_of(capsys, [*argv, "--token", "wrong"]).split("; ", 1)[1])
        missing.add(error_of(capsys, argv).split("; ", 1)[1])
    assert refused == {f"the host at {host.url} refused the token: give the token it was "
                       "started with (--token T, or $DRUMS_TOKEN)"}
    assert missing == {f"no token was given, and the host at {host.url} needs one: give it "
                       "with --token T (or $DRUMS_TOKEN)"}
    assert "token=" not in " ".join(refused | missing)
    assert "wrong" not in " ".join(refused | missing)


def test_an_unknown_task_gets_one_message_from_every_command(
    local_host, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    said = {
        error_of(capsys, ["rollout", "--task", "nosuch", "--no-progress"]),
        error_of(capsys, ["eval", "--task", "nosuch", "--no-progress"]),
        error_of(capsys, ["eval", "--tasks", "nosuch", "--out", str(tmp_path / "s"),
                          "--no-progress"]),
    }
    assert len(said) == 1, said
    [message] = said
    assert message.startswith(f"task 'nosuch' is not known to the Drums host at "
                              f"{local_host.url}: it serves ")
    assert "13584542, 23393935" in message and " more); list its tasks with `drums-gym " \
        "tasks`" in message  # sorted, the first 20 shown


def test_eval_help_names_model_policies(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "or openai:MODEL (a model behind --base-url: docs/models.md)" in text
    assert "--record --out DIR" in text or "--out DIR" in text
