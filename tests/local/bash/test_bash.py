"""The terminal's bash, driven through typed events and checked through the filesystem
and the accessibility tree's terminal text."""

from __future__ import annotations

import pytest
from terminal_driver import Term

from drums_gym.local.desktop.bash import BashSession
from drums_gym.local.desktop.fs import FileSystem


@pytest.fixture
def t() -> Term:
    return Term()


def mode(fs: FileSystem, path: str) -> int:
    return fs.stat(path).st_mode & 0o7777


def test_prompt_cd_pwd_and_title(t: Term) -> None:
    assert t.text() == "user@ubuntu:~$"
    assert t.node()["name"] == "user@ubuntu: ~"
    assert t.run("pwd") == "/home/user"
    assert t.run("cd Desktop && pwd") == "/home/user/Desktop"
    assert t.text().endswith("user@ubuntu:~/Desktop$")
    assert t.node()["name"] == "user@ubuntu: ~/Desktop"
    assert t.run("cd ..; cd nope") == "bash: cd: nope: No such file or directory"
    assert t.run("cd /; pwd; cd -") == "/\n/home/user"
    t.run("touch f")
    assert t.run("cd f") == "bash: cd: f: Not a directory"
    assert t.run("cd; pwd") == "/home/user"


def test_ls_flags_and_paths(t: Term) -> None:
    t.run("mkdir -p proj/src && touch proj/a.txt proj/.env 'proj/my notes.txt'")
    assert t.run("ls proj") == " a.txt  'my notes.txt'   src"
    assert t.run("ls -1 proj") == " a.txt\n'my notes.txt'\n src"
    assert t.run("ls -a proj").split() == [".", "..", "a.txt", ".env", "'my", "notes.txt'",
                                           "src"]
    long = t.run("ls -l proj").split("\n")
    assert long[0] == "total 4"
    assert long[1].startswith("-rw-rw-r-- 1 user user    0 ")
    assert long[3].startswith("drwxrwxr-x 2 user user 4096 ") and long[3].endswith(" src")
    assert len(t.run("ls -la proj").split("\n")) == 1 + 6
    assert t.run("ls proj/a.txt proj/src nope") == (
        "ls: cannot access 'nope': No such file or directory\nproj/a.txt\n\nproj/src:")
    assert t.run("ls proj | wc -l") == "3"
    assert t.run("ls -z") == "ls: invalid option -- 'z'\nTry 'ls --help' for more information."


def test_mkdir_touch(t: Term) -> None:
    assert t.run("mkdir -p a/b/c && touch a/b/c/f.txt && echo ok") == "ok"
    assert t.fs.is_file("~/a/b/c/f.txt")
    assert t.run("mkdir a") == "mkdir: cannot create directory ‘a’: File exists"
    assert t.run("mkdir x/y") == "mkdir: cannot create directory ‘x/y’: No such file or directory"
    assert t.run("mkdir -p a/b && mkdir -v d1 d2") == (
        "mkdir: created directory 'd1'\nmkdir: created directory 'd2'")
    assert t.run("touch x/y") == "touch: cannot touch 'x/y': No such file or directory"
    assert t.run("mkdir /srv") == "mkdir: cannot create directory ‘/srv’: Permission denied"
    assert t.run("mkdir") == "mkdir: missing operand\nTry 'mkdir --help' for more information."


def test_mv_cp_rm(t: Term) -> None:
    t.run("mkdir d && echo hi > f1")
    assert t.run("mv f1 d/ && ls d") == "f1"
    assert t.run("mv x y") == "mv: cannot stat 'x': No such file or directory"
    assert t.run("mv d/f1 d/f2 d/f3") == "mv: target 'd/f3' is not a directory"
    assert t.run("mv d d/sub") == "mv: cannot move 'd' to a subdirectory of itself, 'd/sub'"
    assert t.run("cp d e") == "cp: -r not specified; omitting directory 'd'"
    assert t.run("cp -r d e && cp -R d e && ls e") == "d  f1"
    assert t.fs.read_file("~/e/d/f1") == b"hi\n"
    assert t.run("cp d/f1 d/f1") == "cp: 'd/f1' and 'd/f1' are the same file"
    assert t.run("cp nope e") == "cp: cannot stat 'nope': No such file or directory"
    assert t.run("rm e") == "rm: cannot remove 'e': Is a directory"
    assert t.run("rm nope") == "rm: cannot remove 'nope': No such file or directory"
    assert t.run("rm -f nope; echo $?") == "0"
    assert t.run("rm -r e && rm -rf d nope && ls d") == (
        "ls: cannot access 'd': No such file or directory")
    assert not t.fs.exists("~/e")
    assert t.run("rm -rf .") == "rm: refusing to remove '.' or '..' directory: skipping '.'"


def test_cat_echo_printf(t: Term) -> None:
    assert t.run("echo hello   world") == "hello world"
    assert t.run("echo -n a; echo b") == "ab"
    assert t.run("echo -e 'x\\ty\\nz'") == "x       y\nz"
    assert t.run("printf '%s=%d\\n' a 1 b 2") == "a=1\nb=2"
    assert t.run("printf '[%5s|%-4s|%03d|%.1f]\\n' ab c 7 2.25") == "[   ab|c   |007|2.2]"
    assert t.run("printf 'no newline'") == ""  # the prompt follows on the same row
    assert t.text().split("\n")[1] == "no newlineuser@ubuntu:~$"
    assert t.run("printf 'l1\\nl2\\n' > f; cat f f") == "l1\nl2\nl1\nl2"
    assert t.run("cat -n f") == "     1\tl1\n     2\tl2".replace("\t", " " * 2)
    assert t.run("cat nope Desktop") == (
        "cat: nope: No such file or directory\ncat: Desktop: Is a directory")
    assert t.run("head -n 1 f; tail -1 f; wc -l f; wc -c < f") == "l1\nl2\n2 f\n6"


def test_chmod_modes(t: Term) -> None:
    t.run("mkdir -p d/sub && touch d/f d/sub/g s.sh")
    assert t.run("chmod 600 d/f && ls -l d/f").startswith("-rw------- 1 user user 0 ")
    t.run("chmod +x s.sh")
    assert mode(t.fs, "~/s.sh") == 0o775
    t.run("chmod u=rw,g=r,o= s.sh")
    assert mode(t.fs, "~/s.sh") == 0o640
    t.run("chmod go-w,a+X d")
    assert mode(t.fs, "~/d") == 0o755
    t.run("chmod -R 700 d")
    assert {mode(t.fs, p) for p in ("~/d", "~/d/f", "~/d/sub", "~/d/sub/g")} == {0o700}
    assert t.run("chmod 9z s.sh") == (
        "chmod: invalid mode: ‘9z’\nTry 'chmod --help' for more information.")
    assert t.run("chmod 644 nope") == "chmod: cannot access 'nope': No such file or directory"
    assert t.run("chmod 755 /") == "chmod: changing permissions of '/': Operation not permitted"
    t.run("chmod 000 d/f")
    assert t.run("cat d/f") == "cat: d/f: Permission denied"
    assert t.run("ls -l d | head -2 | tail -1").startswith("---------- 1 user user")


def test_find(t: Term) -> None:
    t.run("mkdir -p w/a/b && touch w/x.txt w/a/y.txt w/a/b/z.log w/a/.h.txt")
    assert t.run("find w -name '*.txt'") == "w/a/.h.txt\nw/a/y.txt\nw/x.txt"
    assert t.run("cd w && find . -type d") == ".\n./a\n./a/b"
    assert t.run("find . -maxdepth 1 -type f") == "./x.txt"
    assert t.run("find . -type f -name '*.log' -o -name 'x*'") == "./a/b/z.log\n./x.txt"
    assert t.run("find . ! -name '*.txt' -type f") == "./a/b/z.log"
    assert t.run("find . -name '*.txt' -exec echo got {} \\;") == (
        "got ./a/.h.txt\ngot ./a/y.txt\ngot ./x.txt")
    assert t.run("find . -name '*.txt' -exec echo all {} +") == (
        "all ./a/.h.txt ./a/y.txt ./x.txt")
    assert t.run("find nope") == "find: ‘nope’: No such file or directory"
    assert t.run("find . -bogus") == "find: unknown predicate `-bogus'"
    assert t.run("find . -exec echo") == "find: missing argument to `-exec'"
    t.run("find . -name '*.log' -delete")
    assert not t.fs.exists("~/w/a/b/z.log")
    assert t.run("find . -empty") == "./a/.h.txt\n./a/b\n./a/y.txt\n./x.txt"


def test_chmod_recursive_with_find(t: Term) -> None:
    """OSWorld-style: regular files 644, directories 755, via find -exec {} + and \\;."""
    t.run("mkdir -p tree/a/b && touch tree/f tree/a/g tree/a/b/h && chmod -R 777 tree")
    t.run("find tree -type f -exec chmod 644 {} +")
    t.run("find tree -type d -exec chmod 755 {} \\;")
    assert {mode(t.fs, f"~/tree/{p}") for p in ("f", "a/g", "a/b/h")} == {0o644}
    assert {mode(t.fs, f"~/tree{p}") for p in ("", "/a", "/a/b")} == {0o755}
    assert t.run("find tree -perm 644 | wc -l; find tree -perm -111 -type d | wc -l") == "3\n3"


def test_quoting(t: Term) -> None:
    assert t.run("echo 'a  b' \"c  d\" e\\ \\ f") == "a  b c  d e  f"
    assert t.run("echo 'it''s' \"say \\\"hi\\\"\" '$HOME' \\$HOME") == 'its say "hi" $HOME $HOME'
    assert t.run("touch 'with space.txt' && ls -1 | grep space") == "with space.txt"
    assert t.fs.is_file("~/with space.txt")
    assert t.run("echo \"$USER's home: ${HOME}\"") == "user's home: /home/user"
    assert t.run("X='*'; echo \"$X\"") == "*"


def test_globs(t: Term) -> None:
    t.run("mkdir g && cd g && touch a1.txt a2.txt b1.txt c.log .hidden")
    assert t.run("echo *.txt") == "a1.txt a2.txt b1.txt"
    assert t.run("echo a?.txt [bc]*") == "a1.txt a2.txt b1.txt c.log"
    assert t.run("echo [!a]*") == "b1.txt c.log"
    assert t.run("echo *.none '*.txt' \\*") == "*.none *.txt *"
    assert t.run("echo .h* ../g/*.log") == ".hidden ../g/c.log"
    t.run("rm a*")
    assert t.fs.listdir("~/g") == [".hidden", "b1.txt", "c.log"]
    assert t.run("cd ~ && echo ~/g/*.log") == "/home/user/g/c.log"


def test_variables_expansion(t: Term) -> None:
    assert t.run("echo $HOME $USER $PWD ~") == "/home/user user /home/user /home/user"
    assert t.run("X=1; Y=two; echo $X${Y}3 $UNSET-") == "1two3 -"
    assert t.run("echo {a,b}.txt x{1..3} {3..1}") == "a.txt b.txt x1 x2 x3 3 2 1"
    assert t.run("echo $((6*7)) $(echo nested) `echo back`") == "42 nested back"
    assert t.run("mkdir -p dir{1,2} && ls -d dir*") == "dir1  dir2"


def test_redirection(t: Term) -> None:
    t.run("echo one > out.txt; echo two >> out.txt")
    assert t.fs.read_file("~/out.txt") == b"one\ntwo\n"
    t.run("echo new > out.txt")
    assert t.fs.read_file("~/out.txt") == b"new\n"
    assert t.run("ls nope 2> err.txt; cat err.txt") == (
        "ls: cannot access 'nope': No such file or directory")
    assert t.run("ls nope 2>/dev/null; echo rc=$?") == "rc=2"
    assert t.run("ls nope > all.txt 2>&1; wc -l < all.txt") == "1"
    assert t.run("echo x &> both.txt; cat both.txt") == "x"
    assert t.run("wc -w < out.txt") == "1"
    assert t.run("cat < nope") == "bash: nope: No such file or directory"
    assert t.run("echo x > Desktop") == "bash: Desktop: Is a directory"
    assert t.run("echo x > /root.txt") == "bash: /root.txt: Permission denied"


def test_and_or_semicolon_and_status(t: Term) -> None:
    assert t.run("true && echo a || echo b") == "a"
    assert t.run("false && echo a || echo b") == "b"
    assert t.run("false; echo $?; true; echo $?") == "1\n0"
    assert t.run("mkdir q && cd q && pwd; cd ..") == "/home/user/q"
    assert t.run("ls nope || echo failed") == (
        "ls: cannot access 'nope': No such file or directory\nfailed")
    assert t.run("! false && echo negated") == "negated"


def test_for_loop_osworld_6f56bf42(t: Term) -> None:
    """Copy file1 into dir1, dir2 and dir3 (OSWorld 6f56bf42's solution)."""
    t.run("mkdir dir1 dir2 dir3 && echo data > file1")
    assert t.run("for d in dir1 dir2 dir3; do cp file1 $d; done") == ""
    for d in ("dir1", "dir2", "dir3"):
        assert t.fs.read_file(f"~/{d}/file1") == b"data\n"
    assert t.run("for d in dir*/; do echo \"[$d]\"; done") == "[dir1/]\n[dir2/]\n[dir3/]"
    assert t.run("for i in 1 2 3; do if [ $i -eq 2 ]; then continue; fi; echo $i; done") == (
        "1\n3")
    assert t.run("n=0; while [ $n -lt 3 ]; do n=$((n+1)); done; echo $n") == "3"
    assert t.run("ls dir1 | while read f; do echo got $f; done") == "got file1"


def test_pipes_and_text_tools(t: Term) -> None:
    t.run("printf 'b\\na\\nc\\na\\n' > l.txt")
    assert t.run("sort l.txt | uniq -c | head -1") == "      2 a"
    assert t.run("grep -c a l.txt; grep -v a l.txt | rev") == (
        "2\nbash: rev: command not found")
    assert t.run("grep -n c l.txt") == "3:c"
    assert t.run("cat l.txt | grep b | wc -l") == "1"
    assert t.run("seq 3 | xargs echo n") == "n 1 2 3"
    assert t.run("echo hi | tee copy.txt") == "hi"
    assert t.fs.read_file("~/copy.txt") == b"hi\n"


def test_sudo_password_flow(t: Term) -> None:
    t.hotkey("ctrl", "l")
    t.write("sudo mkdir /opt\n")
    assert t.text().split("\n")[-1] == "[sudo] password for user:"
    t.write("secret\n")  # not echoed
    assert "secret" not in t.text()
    assert t.text().split("\n")[-2:] == ["Sorry, try again.", "[sudo] password for user:"]
    t.write("password\n")
    assert t.fs.is_dir("/opt")
    assert t.text().endswith("user@ubuntu:~$")
    assert t.run("sudo touch /opt/x && ls /opt") == "x"  # credentials are cached
    assert t.run("whoami; sudo whoami") == "user\nroot"
    assert t.run("sudo -k; sudo rm /opt/x; echo after") == ""
    assert t.text().split("\n")[-1] == "[sudo] password for user:"
    for wrong in ("a", "b", "c"):
        t.write(wrong + "\n")
    assert t.text().split("\n")[-4:] == [
        "[sudo] password for user:", "sudo: 3 incorrect password attempts", "after",
        "user@ubuntu:~$"]
    assert t.fs.exists("/opt/x")
    assert t.run("sudo nosuchcmd") == ""
    assert t.text().split("\n")[-1] == "[sudo] password for user:"
    t.write("password\n")
    assert t.text().split("\n")[-2] == "sudo: nosuchcmd: command not found"


def test_command_not_found_and_syntax_errors(t: Term) -> None:
    assert t.run("foo --bar") == "bash: foo: command not found"
    assert t.run("foo; echo $?") == "bash: foo: command not found\n127"
    assert t.run("echo a;; b") == "bash: syntax error near unexpected token `;;'"
    assert t.run("done") == "bash: syntax error near unexpected token `done'"
    assert t.run("./nope.sh") == "bash: ./nope.sh: No such file or directory"


def test_continuation_prompt(t: Term) -> None:
    t.hotkey("ctrl", "l")
    t.write("for x in a b\n")
    assert t.text().split("\n")[-1] == ">"
    t.write("do echo $x\n")
    t.write("done\n")
    assert t.text().split("\n")[-3:] == ["a", "b", "user@ubuntu:~$"]
    assert t.run("echo 'two\nlines'") == "> lines'\ntwo\nlines"


def test_scripts(t: Term) -> None:
    t.run("printf '#!/bin/bash\\necho hi $1\\nmkdir -p made\\n' > s.sh")
    assert t.run("./s.sh") == "bash: ./s.sh: Permission denied"
    assert t.run("chmod +x s.sh && ./s.sh there") == "hi there"
    assert t.fs.is_dir("~/made")
    assert t.run("bash -c 'cd /; pwd'; pwd") == "/\n/home/user"


def test_session_is_plain_data() -> None:
    """A session deep-copies mid-sudo (forks) and both copies go on independently."""
    import copy

    fs = FileSystem()
    sh = BashSession(fs)
    assert sh.submit("mkdir a; sudo mkdir /x; mkdir b").output == ""
    assert sh.mode == "password"
    fs2, sh2 = copy.deepcopy((fs, sh))
    sh.submit("password")
    assert fs.is_dir("/x") and fs.is_dir("~/b") and not fs2.is_dir("/x")
    sh2.interrupt()
    assert sh2.mode == "command" and not fs2.is_dir("~/b")
