"""The sandbox backend: a real bash as uid 1000 in a bubblewrap sandbox per desktop.

Commands see the desktop's own /etc and tree; files keep real owners; sudo behaves as
Ubuntu's (password prompt, -S, -n, -p, -u, the credential cache); the desktop's files, its
setup, its getters and its Terminal share one tree; a fork copies it; closing a desktop
leaves no process and no tree behind.
"""

from __future__ import annotations

import copy
import os

import pytest
from terminal_driver import Term

from drums_gym.local.config import HostConfig
from drums_gym.local.desktop import Desktop
from drums_gym.local.desktop.fs import FileSystem
from drums_gym.local.desktop.terminal_pty import PtyTerminalWindow
from drums_gym.local.desktop.tree_fs import TreeFileSystem
from drums_gym.local.sandbox import Sandbox, available, resolve_backend, unavailable_reason
from drums_gym.local.sandbox.tree import new_tree, remove_tree
from drums_gym.local.tasks.shell import run_command

pytestmark = pytest.mark.skipif(not available(), reason=f"no sandbox: {unavailable_reason()}")


@pytest.fixture
def desk():
    d = Desktop(640, 480, shell="sandbox")
    yield d
    d.close()


def run(d: Desktop, line: str) -> tuple[str, str, int]:
    """A setup step's or getter's command (sudo's credential cached, as on both backends)."""
    r = run_command(d, line)
    return r.stdout, r.stderr, r.status


def user(d: Desktop, line: str) -> tuple[str, str, int]:
    """A command line as the user runs it (sudo asks for the password)."""
    assert d.sandbox is not None
    r = d.sandbox.run(line)
    d.fs.touched()
    return r.stdout, r.stderr, r.status


def test_commands_run_as_the_user_of_an_ubuntu_machine(desk: Desktop) -> None:
    out, _, status = run(desk, "id -un; id -u; hostname; echo $HOME; pwd; "
                               "grep ^user: /etc/passwd; . /etc/os-release; echo $ID")
    assert status == 0
    assert out.split("\n")[:7] == ["user", "1000", "ubuntu", "/home/user", "/home/user",
                                   "user:x:1000:1000:user,,,:/home/user:/bin/bash", "ubuntu"]


def test_permissions_are_enforced_as_on_ubuntu(desk: Desktop) -> None:
    out, err, status = run(desk, "cat /etc/shadow; ls /root; touch /etc/x; "
                                 "mkdir ~/d && chmod 000 ~/d && ls ~/d; echo end")
    assert out == "end\n"
    assert err.count("Permission denied") == 4, err


def test_owners_stay_distinguishable(desk: Desktop) -> None:
    run(desk, "touch ~/mine; echo password | sudo -S touch ~/roots /tmp/t")
    assert desk.fs.owner("~/mine") is None  # the user's, the default in their home
    assert desk.fs.owner("~/roots") == "root"
    out, _, _ = run(desk, "stat -c '%U %G' ~/mine ~/roots")
    assert out == "user user\nroot root\n"
    desk.fs.write_file("~/from_gui.txt", "x")
    out, _, _ = run(desk, "stat -c %U ~/from_gui.txt; cat ~/from_gui.txt")
    assert out == "user\nx"


@pytest.mark.parametrize(("line", "out", "status"), [
    ("echo password | sudo -S id -u", "0\n", 0),
    ("echo wrong | sudo -S id -u", "", 1),
    ("sudo -n true", "", 1),
    ("echo password | sudo -S -u nobody id -un", "nobody\n", 0),
    ("echo password | sudo -S true && sudo -n id -u", "0\n", 0),  # the cached credential
    ("echo password | sudo -S nosuchcommand", "", 1),
])
def test_sudo_forms(desk: Desktop, line: str, out: str, status: int) -> None:
    got, err, code = user(desk, line)
    assert (got, code) == (out, status), err


def test_sudo_prompt_option_and_messages(desk: Desktop) -> None:
    _, err, _ = user(desk, "echo password | sudo -S -p 'pw? ' true")
    assert err == "pw? "
    _, err, _ = user(desk, "sudo -n true")
    assert err == "sudo: a password is required\n"
    _, err, _ = user(desk, "echo password | sudo -S nosuchcommand")
    assert err.endswith("sudo: nosuchcommand: command not found\n")


def test_useradd_and_chpasswd_edit_the_desktops_own_etc(desk: Desktop) -> None:
    _, err, status = run(desk, "echo password | sudo -S useradd -m -s /bin/bash charles && "
                               "echo charles:secret | sudo chpasswd")
    assert status == 0, err
    assert b"charles:x:1001" in desk.fs.read_file("/etc/passwd")
    out, _, _ = run(desk, "getent passwd charles | cut -d: -f6; stat -c %U /home/charles")
    assert out == "/home/charles\ncharles\n"
    with open("/etc/passwd", encoding="utf-8") as machine:
        assert "charles" not in machine.read()


def test_settings_commands_reach_the_desktops_store(desk: Desktop) -> None:
    out, _, _ = run(desk, "gsettings set org.gnome.desktop.session idle-delay 0; "
                          "gsettings get org.gnome.desktop.session idle-delay")
    assert out == "uint32 0\n"
    from drums_gym.local.desktop.settings_store import SettingsStore
    assert SettingsStore(desk.fs).get("org.gnome.desktop.session", "idle-delay") == 0


def test_a_fork_copies_the_tree_and_is_independent(desk: Desktop) -> None:
    run(desk, "echo one > ~/Desktop/a.txt")
    child = desk.clone()
    try:
        assert child.fs.read_file("~/Desktop/a.txt") == b"one\n"
        run(child, "echo two > ~/Desktop/a.txt")
        assert desk.fs.read_file("~/Desktop/a.txt") == b"one\n"
        assert run(child, "cat ~/Desktop/a.txt")[0] == "two\n"
        assert isinstance(child.fs, TreeFileSystem) and child.fs.root != desk.fs.root
    finally:
        child.close()


def test_closing_a_desktop_ends_its_programs_and_deletes_its_tree() -> None:
    d = Desktop(640, 480, shell="sandbox")
    run(d, "(sleep 300 &) ; true")
    assert d.sandbox is not None and d.sandbox.cgroup is not None
    pids = d.sandbox.cgroup.pids()
    assert pids
    root = d.fs.root
    d.close()
    assert not os.path.exists(root)
    assert not any(os.path.exists(f"/proc/{p}") for p in pids)


def test_the_terminal_is_a_real_bash_on_a_pty(desk: Desktop) -> None:
    t = Term(desk, maximize=False)
    win = desk.windows[-1]
    assert isinstance(win, PtyTerminalWindow)
    t.write("for i in 1 2 3; do echo n$i; done > ~/Desktop/n.txt; cd /tmp\n")
    assert desk.fs.read_file("~/Desktop/n.txt") == b"n1\nn2\nn3\n"
    assert "Desktop" in desk.desktop_entries() or "n.txt" in desk.desktop_entries()
    assert win.title == "user@ubuntu: /tmp"
    t.write("printf '\\x1b[31mred\\x1b[0m\\n'; tty\n")
    assert "/dev/pts/" in win.text()
    assert any(seg[1][0] == 1 and "red" in seg[0] for row in win.view()[0] for seg in row)


def test_terminal_sudo_asks_for_the_password_on_the_tty(desk: Desktop) -> None:
    t = Term(desk, maximize=False)
    win = desk.windows[-1]
    t.write("sudo id -u\n")
    assert win.text().rstrip().endswith("[sudo] password for user:")
    t.write("password\n")
    assert "\n0\n" in win.text()
    assert "password\n" not in win.text()  # not echoed


def test_an_action_waits_for_bash_to_reach_the_program_that_reads_the_tty(desk: Desktop) -> None:
    """Work in bash's own process group (here a command substitution) before sudo runs is
    not idleness: the next action's password reaches sudo, not the void (sudo flushes what
    was typed before its prompt)."""
    t = Term(desk, maximize=False)
    win = desk.windows[-1]
    t.write("x=$(sleep 0.3; echo hi); sudo id -u\n")
    assert win.text().rstrip().endswith("[sudo] password for user:")
    t.write("password\n")
    assert "\n0\n" in win.text() and win.text().rstrip().endswith("user@ubuntu:~$")


def test_an_action_that_never_reaches_the_terminal_waits_for_nothing(
    desk: Desktop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With bash idle at its prompt, a mouse move (no keys for the terminal) waits on no
    output at all; keys, and a command still running from an earlier action, are waited
    for as before."""
    from drums_gym.local.desktop import terminal_pty

    t = Term(desk, maximize=False)
    win = desk.windows[-1]
    waits: list[float] = []
    real = terminal_pty.select.select

    def counted(r, w, x, timeout):  # type: ignore[no-untyped-def]
        waits.append(timeout)
        return real(r, w, x, timeout)

    monkeypatch.setattr(terminal_pty.select, "select", counted)
    t.act("pyautogui.moveTo(5, 5)")
    t.act("pyautogui.moveTo(9, 9)")
    assert waits == [], "an idle terminal is not waited on"
    t.write("echo typed\n")
    assert waits and "\ntyped\n" in win.text()
    win.write(b"sleep 1; echo finished\r")
    win.settle(cap=0.05)  # the action's cap passes while sleep runs
    waits.clear()
    t.act("pyautogui.moveTo(5, 5)")  # no keys, but bash is busy: wait for it
    assert waits and "\nfinished\n" in win.text()


@pytest.mark.parametrize(("line", "shown", "leave"), [
    ("sudo id -u", "[sudo] password for user:", b"\x03"),
    ("cat", "cat", b"\x03"),
    ("python3 -q", ">>>", b"\x04"),
    ("read -p 'name? ' n", "name?", b"\x03"),
    ("cat > f.txt << EOF", ">", b"EOF\r"),
])
def test_a_program_waiting_for_the_keyboard_ends_the_actions_wait(
    desk: Desktop, line: str, shown: str, leave: bytes
) -> None:
    """sudo at its password prompt, cat, python3's prompt, bash's own ``read`` and its
    secondary prompt: the action that started them is done once they wait for keys (not
    after the settle cap), and the next keys reach them."""
    Term(desk, maximize=False)
    win = desk.windows[-1]
    assert isinstance(win, PtyTerminalWindow)
    win.write(line.encode() + b"\r")
    assert win.settle() is True, "waits for keys, not cut by the cap"
    assert win.text().rstrip().endswith(shown)
    win.write(leave)  # back at bash's prompt
    assert win.settle() is True and win.text().rstrip().endswith("user@ubuntu:~$")


def test_a_running_program_is_not_taken_for_one_waiting_for_keys(desk: Desktop) -> None:
    Term(desk, maximize=False)
    win = desk.windows[-1]
    assert isinstance(win, PtyTerminalWindow)
    win.write(b"sleep 100\r")
    assert win.settle(cap=0.3) is False, "sleep runs: the cap ends the wait"
    win.write(b"\x03")
    assert win.settle() is True


def test_ctrl_c_stops_a_command_and_tab_completes(desk: Desktop) -> None:
    t = Term(desk, maximize=False)
    win = desk.windows[-1]
    t.write("sleep 100\n")  # the action returns after the settle cap; sleep runs on
    t.hotkey("ctrl", "c")
    t.write("echo back\n")
    assert "^C" in win.text() and "back" in win.text()
    desk.fs.write_file("~/Documents/unique_name.txt", "x")
    t.write("cat ~/Documents/uniq")
    t.press("tab")
    t.write("\n")
    assert "cat ~/Documents/unique_name.txt" in win.text()


def test_a_forked_terminal_keeps_its_scrollback_and_directory(desk: Desktop) -> None:
    t = Term(desk, maximize=False)
    t.write("cd ~/Documents; echo marker-1\n")
    child = desk.clone()
    try:
        win = child.windows[-1]
        assert isinstance(win, PtyTerminalWindow)
        assert "marker-1" in win.scrollback_text()
        child_term = Term.__new__(Term)  # the copied window, not a new one
        child_term.d = child
        child_term.write("pwd\n")
        assert "/home/user/Documents" in win.text()
        from drums_gym.local.tasks.getters import GETTERS
        text = GETTERS["vm_terminal_output"](child, {})
        assert text.rstrip().endswith("/home/user/Documents\nuser@ubuntu:~/Documents$")
    finally:
        child.close()


def test_vm_terminal_output_reads_the_scrollback(desk: Desktop) -> None:
    from drums_gym.local.tasks.getters import GETTERS
    t = Term(desk, maximize=False)
    t.write("seq 1 200\n")
    text = GETTERS["vm_terminal_output"](desk, {})
    assert "\n1\n2\n" in text and text.rstrip().endswith("user@ubuntu:~$")


def test_tree_filesystem_follows_symlinks_inside_the_sandbox(desk: Desktop) -> None:
    run(desk, "ln -s /etc/shadow ~/s; ln -s / ~/top; ln -s ../../../../../etc/passwd ~/up")
    assert desk.fs.read_file("~/up").startswith(b"root:x:0:0")
    assert b"drumsgym" in (desk.fs.read_file("~/top/etc/shadow"))  # the desktop's own
    assert "work" not in desk.fs.listdir("~/top")
    with pytest.raises(OSError):
        desk.fs.write_file("~/top/usr/x", "x")


@pytest.mark.parametrize("kind", ["simulated", "tree"])
def test_both_filesystems_answer_the_same(kind: str) -> None:
    tree = new_tree() if kind == "tree" else None
    fs = TreeFileSystem(tree) if tree is not None else FileSystem()
    try:
        fs.mkdir("~/a/b", parents=True)
        fs.write_file("~/a/b/f.txt", "hi")
        fs.copy("~/a", "~/c")
        moved = fs.move("~/c", "~/Documents")
        name = fs.trash("~/a")
        assert (moved, fs.listdir("~/Documents/c/b"), fs.read_file("~/Documents/c/b/f.txt")) \
            == ("/home/user/Documents/c", ["f.txt"], b"hi")
        assert [t.original for t in fs.trash_items()] == ["/home/user/a"]
        assert fs.restore(name) == "/home/user/a" and fs.is_dir("~/a/b")
        walked = [(p, d, f) for p, d, f in fs.walk("~/a")]
        assert walked == [("/home/user/a", ["b"], []), ("/home/user/a/b", [], ["f.txt"])]
        fs.chmod("~/a/b/f.txt", 0o600)
        assert fs.stat("~/a/b/f.txt").st_mode & 0o777 == 0o600
        fs.chown("~/a/b/f.txt", "root")
        assert fs.owner("~/a/b/f.txt") == "root"
        with pytest.raises(FileExistsError):
            fs.mkdir("~/a")
        with pytest.raises(FileNotFoundError):
            fs.read_file("~/nope")
        dup = copy.deepcopy(fs)
        dup.write_file("~/a/b/f.txt", "changed")
        assert fs.read_file("~/a/b/f.txt") == b"hi"
    finally:
        if isinstance(fs, TreeFileSystem):
            fs.close()
            if "dup" in locals() and isinstance(dup, TreeFileSystem):
                dup.close()


def test_setup_commands_have_sudo_as_task_files_expect(desk: Desktop) -> None:
    out, err, status = run(desk, "sudo mkdir /test && sudo -n id -u && stat -c %U /test")
    assert (out, status) == ("0\nroot\n", 0), err
    assert desk.fs.is_dir("/test") and desk.fs.owner("/test") is None  # root's, the default
    assert user(desk, "sudo -n true")[2] == 1  # only that command line was authorised


def test_the_backend_choice() -> None:
    assert resolve_backend("simulated") == "simulated"
    assert resolve_backend("auto") == "sandbox"
    assert HostConfig.from_env({"DRUMS_LOCAL_SHELL": "sandbox"}).shell_backend() == "sandbox"
    with pytest.raises(ValueError, match="DRUMS_LOCAL_SHELL must be one of auto, sandbox"):
        HostConfig.from_env({"DRUMS_LOCAL_SHELL": "real"})
    with pytest.raises(ValueError, match=r"HostConfig\.shell"):
        HostConfig(shell="bash")


def test_a_sandbox_is_started_only_when_a_program_runs() -> None:
    tree = new_tree()
    box = Sandbox(tree)
    try:
        assert not box.running
        assert box.run("echo $((6 * 7))").stdout == "42\n"
        assert box.running
    finally:
        box.close()
        remove_tree(tree)
    assert not box.running


def _nest(top: str, depth: int) -> None:
    """``mkdir -p a/a/a/...`` ``depth`` levels under ``top`` (as the agent's bash would,
    relative to each new folder, so no path is ever longer than PATH_MAX)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("a", dir_fd=fd)
            child = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)


def test_a_tree_nested_deeper_than_python_recurses_is_removed_without_error() -> None:
    """An agent's ``mkdir -p`` of 2,000 folders: deleting it from Files, and the tree with
    its desktop (also when the desktop is only collected, in a finalizer, where an error
    would surface in whatever the process was doing), leave nothing and raise nothing."""
    fs = TreeFileSystem(new_tree())
    _nest(fs.root + "/home/user", 2000)
    fs.mkdir("~/b", parents=True)
    _nest(fs.root + "/home/user/b", 2000)
    fs.remove("~/b")
    assert not fs.exists("~/b")
    root = fs.root
    del fs  # the finalizer removes it
    assert not os.path.exists(root)


def test_tty_reader_docstring_example_runs() -> None:
    import doctest

    from drums_gym.local.desktop import tty_reader

    assert doctest.testmod(tty_reader).failed == 0
