"""Commands whose options the registry's `Opts` parses: each prints its real tool's usage
error (getopt's message, then the tool's usage or hint) with the tool's exit status, and
options that take a value take it in every getopt spelling."""

from __future__ import annotations

import pytest

from drums_gym.local.desktop import Desktop
from drums_gym.local.tasks.shell import run_command


@pytest.fixture
def d() -> Desktop:
    return Desktop()


def run(d: Desktop, line: str) -> tuple[int, str, str]:
    r = run_command(d, line)
    return r.status, r.stdout, r.stderr


SHADOW_USAGE = "Usage: useradd [options] LOGIN\n       useradd -D\n       useradd -D [options]"


@pytest.mark.parametrize(("line", "status", "err"), [
    ("sudo useradd --x bob", 2, f"useradd: unrecognized option '--x'\n{SHADOW_USAGE}\n"),
    ("sudo useradd -Q bob", 2, f"useradd: invalid option -- 'Q'\n{SHADOW_USAGE}\n"),
    ("sudo useradd bob -d", 2, f"useradd: option requires an argument -- 'd'\n{SHADOW_USAGE}\n"),
    ("sudo useradd bob --home-dir", 2,
     f"useradd: option '--home-dir' requires an argument\n{SHADOW_USAGE}\n"),
    ("sudo usermod --x bob", 2,
     "usermod: unrecognized option '--x'\nUsage: usermod [options] LOGIN\n"),
    ("sudo userdel -Q bob", 2, "userdel: invalid option -- 'Q'\nUsage: userdel [options] LOGIN\n"),
    ("passwd --x", 2, "passwd: unrecognized option '--x'\nUsage: passwd [options] [LOGIN]\n"),
    ("sudo chpasswd -Q", 1, "chpasswd: invalid option -- 'Q'\nUsage: chpasswd [options]\n"),
    ("getent --x passwd", 64, "getent: unrecognized option '--x'\n"
     "Try `getent --help' or `getent --usage' for more information.\n"),
    ("id -Q", 1, "id: invalid option -- 'Q'\nTry 'id --help' for more information.\n"),
    ("su --x", 1, "su: unrecognized option '--x'\nTry 'su --help' for more information.\n"),
    ("chown -Q user f", 1, "chown: invalid option -- 'Q'\n"
     "Try 'chown --help' for more information.\n"),
    ("stat --x f", 1, "stat: unrecognized option '--x'\nTry 'stat --help' for more information.\n"),
])
def test_usage_error_is_the_real_tools(d: Desktop, line: str, status: int, err: str) -> None:
    assert run(d, line) == (status, "", err)


def test_useradd_takes_long_values_separately_or_with_equals(d: Desktop) -> None:
    assert run(d, "sudo useradd -m --home-dir /srv/bob --shell=/bin/bash bob")[0] == 0
    assert run(d, "getent passwd bob")[1].rstrip().split(":")[5:] == ["/srv/bob", "/bin/bash"]
    assert d.fs.is_dir("/srv/bob")


def test_userdel_remove_and_id_bundled_flags(d: Desktop) -> None:
    assert run(d, "sudo useradd -m bob")[0] == 0
    assert run(d, "id -u -n bob") == (0, "bob\n", "")
    assert run(d, "id -nu bob") == (0, "bob\n", "")
    assert run(d, "sudo userdel --remove bob")[0] == 0
    assert not d.fs.exists("/home/bob")


def test_stat_format_and_printf_spellings(d: Desktop) -> None:
    run(d, "echo hi > f")
    assert run(d, "stat -c %s f") == (0, "3\n", "")
    assert run(d, "stat --format %s f") == (0, "3\n", "")
    assert run(d, "stat --printf=%s f") == (0, "3", "")


def test_su_dash_is_a_login_not_an_option(d: Desktop) -> None:
    assert run(d, "su - nosuch") == (1, "", "su: user nosuch does not exist or the user entry "
                                         "does not contain all the required fields\n")


# -- commands that run a command: the first operand ends their options -------------------

SUDO_USAGE = ("usage: sudo -h | -K | -k | -V\nusage: sudo -v [-AknS] [-g group] [-h host] "
              "[-p prompt] [-u user]\nusage: sudo [-AbEHknPS] [-C num] [-D directory] "
              "[-g group] [-h host] [-p prompt] [-R directory] [-T timeout] [-u user] "
              "[VAR=value] [-i|-s] [<command>]\n")


def test_sudo_usage_error_and_the_commands_own_options(d: Desktop) -> None:
    assert run(d, "sudo -Q ls") == (1, "", f"sudo: invalid option -- 'Q'\n{SUDO_USAGE}")
    assert run(d, "sudo --x ls") == (1, "", f"sudo: unrecognized option '--x'\n{SUDO_USAGE}")
    run(d, "touch f")
    assert run(d, "sudo -u root ls -d f") == (0, "f\n", "")
    assert run(d, "sudo --user=root -- ls -d f") == (0, "f\n", "")


def test_xargs_usage_errors_and_the_commands_own_options(d: Desktop) -> None:
    assert run(d, "echo a | xargs -Q echo") == (
        1, "", "xargs: invalid option -- 'Q'\nTry 'xargs --help' for more information.\n")
    assert run(d, "echo a | xargs -n x echo") == (
        1, "", "xargs: invalid number \"x\" for -n option\n"
               "Try 'xargs --help' for more information.\n")
    assert run(d, "printf 'a b c' | xargs --max-args=2 echo -n") == (0, "a bc", "")
    assert run(d, "printf 'a\\0b' | xargs -0 -I{} echo x{}") == (0, "xa\nxb\n", "")


def test_timedatectl_prints_only_getopts_line_and_keeps_its_verbs(d: Desktop) -> None:
    assert run(d, "timedatectl --x") == (1, "", "timedatectl: unrecognized option '--x'\n")
    assert run(d, "timedatectl -Q status") == (1, "", "timedatectl: invalid option -- 'Q'\n")
    assert run(d, "sudo timedatectl --no-ask-password set-timezone Etc/UTC")[0] == 0
    assert run(d, "timedatectl -a status")[1].split("\n")[3] == (
        "                Time zone: Etc/UTC (UTC, +0000)")


def test_gio_trash_flags_parse_and_a_bad_one_gets_goptions_wording(d: Desktop) -> None:
    status, _, err = run(d, "gio trash --x f")
    assert status == 1
    assert err.startswith("gio: Unknown option --x\n\nUsage:\n  gio trash [OPTION…] [LOCATION…]\n")
    assert run(d, "gio trash -Q f")[2].startswith("gio: Unknown option -Q\n\nUsage:")
    run(d, "touch f")
    assert run(d, "gio trash f nosuch -f") == (0, "", "")
    assert run(d, "gio trash --list")[1].startswith("trash:///f\t")
    assert run(d, "gio trash --empty") == (0, "", "")
    assert run(d, "gio trash --list") == (0, "", "")
