"""``sudo -S`` reads the password from standard input and ``sudo -n`` never asks, in an
interactive terminal as on Ubuntu (before: both paused at the tty prompt, so the next
typed line became the password)."""

from __future__ import annotations

import pytest

from drums_gym.local.desktop.bash.cmd_core import reads_itself
from drums_gym.local.desktop.bash.session import BashSession
from drums_gym.local.desktop.fs import FileSystem

PROMPT = "[sudo] password for user: "


@pytest.fixture
def sh() -> BashSession:
    return BashSession(FileSystem())


def test_echo_password_into_sudo_S_runs_the_command_as_root(sh: BashSession) -> None:
    assert sh.submit("echo password | sudo -S whoami").output == PROMPT + "root\n"
    assert sh.mode == "command"  # no prompt left waiting for the next line
    assert sh.submit("sudo whoami").output == "root\n"  # and the credentials are cached


def test_the_rest_of_standard_input_reaches_the_command_and_p_sets_the_prompt(
        sh: BashSession) -> None:
    assert sh.submit("printf 'password\\nhello\\n' | sudo -S -p '' cat").output == "hello\n"


def test_a_wrong_or_missing_password_fails_as_sudo_does(sh: BashSession) -> None:
    out = sh.submit("echo nope | sudo -S whoami; echo $?").output
    assert out == (f"{PROMPT}Sorry, try again.\n{PROMPT}\nsudo: no password was provided\n"
                   "sudo: 1 incorrect password attempt\n1\n")
    assert sh.submit("sudo -S true < /dev/null; echo $?").output.endswith(
        "sudo: no password was provided\n1\n")
    assert sh.mode == "command"


def test_sudo_n_refuses_without_credentials_and_runs_with_them(sh: BashSession) -> None:
    assert sh.submit("sudo -n true; echo $?").output == "sudo: a password is required\n1\n"
    sh.submit("sudo true")
    assert sh.mode == "password"
    sh.submit("password")
    assert sh.submit("sudo -n whoami").output == "root\n"


def test_plain_sudo_still_asks_on_the_tty(sh: BashSession) -> None:
    sh.submit("sudo whoami")
    assert sh.mode == "password" and sh.prompt() == PROMPT
    assert sh.submit("password").output == "root\n"


@pytest.mark.parametrize(("args", "itself"), [
    (["-S", "ls"], True), (["-Sp", "", "ls"], True), (["-p", "-S", "ls"], False),
    (["--stdin", "ls"], True), (["-u", "root", "-n", "ls"], True), (["ls", "-S"], False),
    (["-k", "ls"], False),
])
def test_which_sudo_lines_read_their_own_password(args: list[str], itself: bool) -> None:
    assert reads_itself(args) is itself
