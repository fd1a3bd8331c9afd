"""System commands of the simulated bash that the os split's tasks and checkers use:
their output as Ubuntu 22.04 prints it, their state in the desktop, root where Ubuntu
needs it, and the work budget around what input can make large."""

from __future__ import annotations

import gzip as std_gzip

import pytest
from terminal_driver import Term

from drums_gym.local.budget import Budget, BudgetExceeded, Limits, running
from drums_gym.local.desktop import Desktop
from drums_gym.local.desktop.accounts import sha512_crypt
from drums_gym.local.tasks.shell import run_command

PROFILE = ("org.gnome.Terminal.Legacy.Profile:/org/gnome/terminal/legacy/profiles:/"
           ":b1dcc9dd-5262-4d8d-a863-c897e6d979b9/")
VOLUME = ("pactl list sinks | grep '^[[:space:]]Volume:' | head -n 1 | awk '{print $5}' "
          "| sed 's/%//g'")


@pytest.fixture
def d() -> Desktop:
    return Desktop()


def out(d: Desktop, line: str) -> str:
    r = run_command(d, line)
    return r.stdout + r.stderr


def status(d: Desktop, line: str) -> int:
    return run_command(d, line).status


# -- time ----------------------------------------------------------------------------

def test_timedatectl_status_layout_and_set_timezone_needs_root(d: Desktop) -> None:
    lines = out(d, "timedatectl status").split("\n")
    assert [ln.split(":")[0] for ln in lines[:7]] == [
        "               Local time", "           Universal time", "                 RTC time",
        "                Time zone", "System clock synchronized", "              NTP service",
        "          RTC in local TZ"]
    assert lines[3] == "                Time zone: America/New_York (EST, -0500)"
    assert out(d, "timedatectl set-timezone Etc/UTC") == (
        "Failed to set time zone: Interactive authentication required.\n")
    assert out(d, "sudo timedatectl set-timezone Mars/Olympus") == (
        "Failed to set time zone: Invalid or not installed time zone 'Mars/Olympus'\n")
    assert status(d, "sudo timedatectl set-timezone Etc/UTC") == 0
    lines = out(d, "timedatectl").split("\n")
    assert lines[3] == "                Time zone: Etc/UTC (UTC, +0000)"
    assert lines[0].endswith("UTC") and lines[0][-23:-4] == lines[1][-23:-4]
    assert out(d, "cat /etc/timezone") == "Etc/UTC\n"


# -- sound ---------------------------------------------------------------------------

def test_pactl_listing_and_the_checkers_pipeline(d: Desktop) -> None:
    listing = out(d, "pactl list sinks")
    assert listing.startswith("Sink #0\n\tState: SUSPENDED\n\tName: alsa_output.")
    assert ("\tVolume: front-left: 26214 /  40% / -23.88 dB,   front-right: 26214 /  40% / "
            "-23.88 dB\n\t        balance 0.00\n\tBase Volume: 65536 / 100% / 0.00 dB\n"
            ) in listing
    assert out(d, "pulseaudio --start\n" + VOLUME) == "40\n"
    for change, expected in [("+10%", "50"), ("-5%", "45"), ("100%", "100"), ("0.5", "79"),
                             ("32768", "50"), ("150%", "150")]:
        assert status(d, f"pactl set-sink-volume @DEFAULT_SINK@ {change}") == 0
        assert out(d, VOLUME) == expected + "\n", change
    assert out(d, "pactl set-sink-volume @DEFAULT_SINK@ loud") == (
        "Invalid volume specification\n")
    assert out(d, "pactl set-sink-volume nosuchsink 10%") == "Failure: No such entity\n"
    assert status(d, "amixer -D pulse sset Master 100%") == 0 and out(d, VOLUME) == "100\n"
    assert "Mute: yes" in out(d, "pactl set-sink-mute @DEFAULT_SINK@ 1; pactl list sinks")


# -- packages ------------------------------------------------------------------------

def test_snap_and_apt_install_known_packages_which_then_finds(d: Desktop) -> None:
    assert status(d, "which spotify") == 1 and out(d, "which spotify") == ""
    assert out(d, "snap install spotify") == "error: access denied (try with sudo)\n"
    assert out(d, "sudo snap install nosuch") == 'error: snap "nosuch" not found\n'
    assert out(d, "sudo apt install spotify").endswith("E: Unable to locate package spotify\n")
    assert "are you root?" in out(d, "apt-get install -y expect")
    assert out(d, "sudo snap install spotify") == (
        "spotify 1.2.31.1205.g4d59ad7c from Spotify✓ installed\n")
    assert out(d, "which spotify") == "/snap/bin/spotify\n"
    assert out(d, "type spotify") == "spotify is /snap/bin/spotify\n"
    assert status(d, "echo password | sudo -S apt-get install -y expect") == 0
    assert out(d, "which expect") == "/usr/bin/expect\n"
    assert "is already installed" in out(d, "sudo snap install spotify")
    assert out(d, "spotify") == "spotify: cannot open display\n"  # bash finds it on $PATH
    assert status(d, "sudo snap remove spotify") == 0 and status(d, "which spotify") == 1
    assert out(d, "spotify") == "bash: spotify: command not found\n"
    assert status(d, "sudo apt-get remove -y expect") == 0 and status(d, "which expect") == 1
    assert out(d, "apt list --installed") == "Listing... Done\n"


# -- the terminal's size ---------------------------------------------------------------

def test_stty_size_reports_the_terminal_and_new_ones_open_at_the_profile_size() -> None:
    t = Term(maximize=False)
    assert t.run("stty size") == "24 80"
    t.run(f"gsettings set {PROFILE} default-size-columns 132")
    t.run(f"gsettings set {PROFILE} default-size-rows 43")
    assert t.run("stty size") == "24 80"  # this window keeps its size
    other = Term(t.d, maximize=False)
    assert other.run("stty size") == "43 132"
    assert out(Desktop(), "stty size") == (
        "stty: 'standard input': Inappropriate ioctl for device\n")


# -- accounts ------------------------------------------------------------------------

def test_sha512_crypt_matches_glibc() -> None:
    # known answers of glibc's crypt(3) and `openssl passwd -6 -salt ...`
    assert sha512_crypt("Ex@mpleP@55w0rd!", "abcdefgh") == (
        "$6$abcdefgh$v.b8qRGov4X8UUxDLHTJkI9JBcrm7WvloTf5XbLQlKDS0wM/juNjKbdA1Xk8brHkZaTm"
        "Dcqnwu137FXxklLSp.")
    assert sha512_crypt("Hello world!", "saltstring") == (
        "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbY"
        "EdFCoEOfaS35inz1")


def test_users_passwords_and_homes(d: Desktop) -> None:
    assert out(d, "getent passwd user") == "user:x:1000:1000:user,,,:/home/user:/bin/bash\n"
    assert "Permission denied" in out(d, "useradd charles")
    assert status(d, "sudo useradd -m -d /home/test1 -s /bin/bash charles") == 0
    assert out(d, "sudo useradd charles") == "useradd: user 'charles' already exists\n"
    assert out(d, "getent passwd charles | cut -d: -f6") == "/home/test1\n"
    assert out(d, "stat -c '%A %a %F' /home/test1") == "drwxr-x--- 750 directory\n"
    assert out(d, "id charles") == "uid=1001(charles) gid=1001(charles) groups=1001(charles)\n"
    assert status(d, "echo 'charles:Ex@mpleP@55w0rd!' | chpasswd") == 1
    assert status(d, "echo 'charles:Ex@mpleP@55w0rd!' | sudo chpasswd") == 0
    shadow = out(d, "sudo getent shadow charles").split(":")[1]
    assert shadow.startswith("$6$")
    salt = shadow.split("$")[2]
    assert out(d, f"openssl passwd -6 -salt {salt} 'Ex@mpleP@55w0rd!'") == shadow + "\n"
    assert out(d, "getent shadow charles") == ""  # only root reads it
    assert status(d, "sudo usermod -d /srv/c charles") == 0
    assert out(d, "getent passwd charles | cut -d: -f6") == "/srv/c\n"
    assert "does not exist" in out(d, "su - nobody2")
    assert status(d, "sudo userdel charles") == 0 and status(d, "id charles") == 1


def test_sudo_makes_root_owned_files_and_chown_gives_them_away(d: Desktop) -> None:
    run_command(d, "sudo mkdir ~/Desktop/r && mkdir ~/Desktop/mine")
    assert out(d, "stat -c '%U %n' ~/Desktop/r ~/Desktop/mine") == (
        "root /home/user/Desktop/r\nuser /home/user/Desktop/mine\n")
    assert "Permission denied" in out(d, "touch ~/Desktop/r/x")
    assert "Operation not permitted" in out(d, "chown user ~/Desktop/r")
    assert out(d, "sudo chown nobodyhere ~/Desktop/r") == "chown: invalid user: ‘nobodyhere’\n"
    assert status(d, "sudo useradd charles && sudo chown -R charles:charles ~/Desktop/r") == 0
    assert out(d, "stat -c %U ~/Desktop/r") == "charles\n"
    assert status(d, "sudo chown user ~/Desktop/r && touch ~/Desktop/r/x") == 0
    assert out(d, "ls -l ~/Desktop/r").split("\n")[1].split()[2] == "user"


def test_a_clone_has_its_own_accounts(d: Desktop) -> None:
    run_command(d, "sudo useradd bob")
    fork = d.clone()
    run_command(fork, "sudo userdel bob")
    assert status(d, "id bob") == 0 and status(fork, "id bob") == 1


# -- file times, compression, copies ------------------------------------------------------

def test_touch_dates_and_find_mtime(d: Desktop) -> None:
    run_command(d, "mkdir -p /tmp/t && cd /tmp/t && touch -d '40 days ago' old && touch new "
                   "&& touch -d 2023-12-25 xmas && touch -t 202312010000 dec1 && touch -r old ref")
    assert out(d, "cd /tmp/t && find . -type f -mtime +30 | sort") == "./dec1\n./old\n./ref\n"
    assert out(d, "cd /tmp/t && find . -type f -mtime -1") == "./new\n"
    assert out(d, "cd /tmp/t && find . -type f -newer xmas | sort") == "./new\n"
    assert out(d, "touch -d 'someday maybe' /tmp/t/x") == (
        "touch: invalid date format ‘someday maybe’\n")


def test_gzip_makes_real_gzip_data_and_gunzip_restores(d: Desktop) -> None:
    d.fs.write_file("/tmp/a.txt", "hello\n" * 100)
    before = d.fs.stat("/tmp/a.txt").st_mtime
    assert status(d, "gzip /tmp/a.txt") == 0
    assert not d.fs.exists("/tmp/a.txt")
    data = d.fs.read_file("/tmp/a.txt.gz")
    assert std_gzip.decompress(data) == b"hello\n" * 100  # Python's gzip reads it
    assert d.fs.stat("/tmp/a.txt.gz").st_mtime == before
    assert out(d, "file /tmp/a.txt.gz").startswith(
        '/tmp/a.txt.gz: gzip compressed data, was "a.txt", last modified: ')
    assert out(d, "zcat /tmp/a.txt.gz | wc -l") == "100\n"
    assert out(d, "gzip /tmp/a.txt.gz") == "gzip: /tmp/a.txt.gz already has .gz suffix -- " \
                                           "unchanged\n"
    assert status(d, "gunzip /tmp/a.txt.gz") == 0 and out(d, "file /tmp/a.txt") == (
        "/tmp/a.txt: ASCII text\n")
    d.fs.write_file("/tmp/fake.gz", "not gzip")
    assert out(d, "gunzip /tmp/fake.gz") == "gunzip: /tmp/fake.gz: not in gzip format\n"


def test_gunzip_of_a_bomb_stops_at_the_work_budget(d: Desktop) -> None:
    d.fs.write_file("/tmp/bomb.gz", std_gzip.compress(b"\0" * (64 << 20)))
    with running(Budget(Limits(output_bytes=1 << 20))), pytest.raises(BudgetExceeded):
        run_command(d, "gunzip /tmp/bomb.gz")
    assert d.fs.exists("/tmp/bomb.gz") and not d.fs.exists("/tmp/bomb")


def test_cp_parents_and_find_print0_into_xargs_0(d: Desktop) -> None:
    run_command(d, "mkdir -p w/a/b 'w/c d' && cd w && touch a/b/x_failed.ipynb "
                   "'c d/y failed.ipynb' z_failed.ipynb a/k.ipynb && mkdir fails")
    assert status(d, "cd w && find . -name '*failed.ipynb' -print0 | "
                     "xargs -0 cp --parents -t fails") == 0
    assert out(d, "cd w/fails && find . -type f | sort") == (
        "./a/b/x_failed.ipynb\n./c d/y failed.ipynb\n./z_failed.ipynb\n")
    assert out(d, "cp --parents w/a/k.ipynb w/a/k.ipynb") == (
        "cp: with --parents, the destination must be a directory\n"
        "Try 'cp --help' for more information.\n")


# -- text tools ----------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "expected"), [
    ("printf 'a 1\\nb 2\\n' | awk '{print $2, $1}'", "1 a\n2 b\n"),
    ("printf 'a:1\\nb:2\\n' | awk -F: '/b/ {print $NF}'", "2\n"),
    ("printf 'x\\ny\\n' | awk 'END {print NR}'", "2\n"),
    ("echo 'foo bar foo' | sed 's/foo/X/g'", "X bar X\n"),
    ("echo 'foo bar foo' | sed -e 's/foo/X/2'", "foo bar X\n"),
    ("echo 'a.b' | sed -E 's/([a-z])\\.([a-z])/\\2-\\1/'", "b-a\n"),
    ("printf '1\\n2\\n3\\n' | sed -n '2p'", "2\n"),
    ("printf '1\\n2\\n3\\n' | sed '/2/d'", "1\n3\n"),
    ("printf '1\\n2\\n3\\n' | sed '$d'", "1\n2\n"),
    ("echo a:b:c:d | cut -d: -f2,4", "b:d\n"),
    ("echo abcdef | cut -c2-4", "bcd\n"),
    ("echo Hello | tr a-z A-Z", "HELLO\n"),
    ("echo 'a  b   c' | tr -s ' '", "a b c\n"),
    ("echo hello | tr -d l", "heo\n"),
    ("echo hello | tr -cd l", "ll"),
    ("echo 'x' | awk '{system(\"rm -rf ~\")}'",
     "awk: cmd. line:1: only print statements are supported here, not 'system(\"rm -rf ~\")'\n"),
])
def test_stream_tools(d: Desktop, line: str, expected: str) -> None:
    assert out(d, line) == expected


def test_sed_in_place_needs_write_permission(d: Desktop) -> None:
    d.fs.write_file("~/f.txt", "one\ntwo\n")
    assert status(d, "sed -i 's/one/1/' ~/f.txt") == 0
    assert d.fs.read_file("~/f.txt") == b"1\ntwo\n"
    assert "Permission denied" in out(d, "sudo mkdir /srv; sudo touch /srv/x; sed -i s/a/b/ /srv/x")


def test_gio_trash_and_xdg_open(d: Desktop) -> None:
    d.fs.write_file("~/Desktop/a.txt", "x")
    assert status(d, "gio trash ~/Desktop/a.txt") == 0
    assert out(d, "gio trash --list") == "trash:///a.txt\t/home/user/Desktop/a.txt\n"
    assert "No such file or directory" in out(d, "gio trash ~/Desktop/none")
    assert status(d, "gio trash -f ~/Desktop/none") == 0
    assert status(d, "xdg-open /home/user/Desktop") == 0
    assert status(d, "xdg-open /nowhere") == 4
