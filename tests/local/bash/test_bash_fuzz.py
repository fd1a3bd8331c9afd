"""Property: any line from a grammar of bash constructs either completes or is stopped by
the work budget (`BudgetExceeded`); nothing else escapes the interpreter or the terminal.

The grammar mixes loops, expansions (braces, globs, parameters, substitutions), arithmetic,
regular expressions, redirections and pipes, with the hostile values of issue 11 among the
ordinary ones.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from terminal_driver import Term

from drums_gym.local.budget import Budget, BudgetExceeded, Limits, running
from drums_gym.local.desktop.bash import BashSession
from drums_gym.local.desktop.bash import arith as arith_module
from drums_gym.local.desktop.fs import FileSystem

# The grammar is big: hypothesis warns that its repr is, when it reports a case.
pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

TYPABLE = string.ascii_letters + string.digits + string.punctuation + " "
LIMITS = Limits(steps=20_000, seconds=3.0, output_bytes=256 * 1024)

names = st.sampled_from(["a", "b", "f.txt", "dir", "s.sh", "x", "-", "..", "/", "~/d", "/etc"])
var_names = st.sampled_from(["x", "y", "i", "HOME", "PATH", "1", "?", "#", "@", "*", "0"])
numbers = st.sampled_from(["0", "1", "-1", "7", "08", "0x1F", "2#101", "64#_", "100000000",
                           "99999999999999999999", "9223372036854775807", "-9223372036854775808"])
patterns = st.sampled_from(["a", "^(a+)+$", "(ab)\\1", "[", "(?=a)", "a{1000}", ".*.*.*=.*",
                            "\\(a\\)\\1", "x|y", "^$", "[[:alpha:]]+", "a**", "\\b", "(", ")"])
globs = st.sampled_from(["*", "?", "[a-c]*", "*.txt", "**/*", ".*", "[!a]", "[", "*a*a*a*a*b"])


def arith() -> st.SearchStrategy[str]:
    ops = st.sampled_from(["+", "-", "*", "/", "%", "**", "<<", ">>", "&", "|", "^", "&&", "||",
                           "==", "!=", "<", ">=", ","])
    leaf = st.one_of(numbers, var_names.filter(lambda n: n.isalpha()),
                     st.sampled_from(["x++", "--y", "i+=3", "x=2", "$x", "${y}"]))
    def extend(e: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(e, ops, e).map(" ".join)
        return st.one_of(
            binary, binary, binary,
            st.tuples(st.sampled_from(["(%s)", "-%s", "!%s", "~%s"]), e).map(lambda t: t[0] % t[1]),
            st.tuples(e, e, e).map(lambda t: f"{t[0]} ? {t[1]} : {t[2]}"),
        )

    return st.recursive(leaf, extend, max_leaves=8)


def words(cmds: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    plain_word = st.one_of(names, numbers, globs)
    return st.one_of(
        plain_word,
        var_names.map(lambda v: f"${v}"),
        st.tuples(var_names, st.sampled_from([":-", ":=", ":+", "-", "+", "#"]), names).map(
            lambda t: "${#" + t[0] + "}" if t[1] == "#" else "${" + t[0] + t[1] + t[2] + "}"),
        arith().map(lambda e: f"$(( {e} ))"),
        cmds.map(lambda c: f"$({c})"),
        st.lists(names, min_size=2, max_size=4).map(lambda xs: "{" + ",".join(xs) + "}"),
        st.tuples(numbers, numbers).map(lambda t: "{" + t[0] + ".." + t[1] + "}"),
        st.tuples(numbers, numbers, numbers).map(lambda t: "{" + "..".join(t) + "}"),
        st.integers(2, 30).map(lambda n: "{a,b}" * n),
        plain_word.map(lambda w: f"'{w}'"),
        st.tuples(plain_word, var_names).map(lambda t: f'"{t[0]} ${t[1]}"'),
        st.text(TYPABLE, max_size=8).map(lambda s: "'" + s.replace("'", "") + "'"),
    )


def simple(cmds: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    w = words(cmds)
    args = st.lists(w, max_size=4).map(" ".join)
    fmt = st.sampled_from(["%s\\n", "%d", "%.99999999999f", "%*d", "%-5s|", "%x %o", "%b",
                           "%.999999d", "%10000000s", "%c%c", "%q", "%"])
    return st.one_of(
        st.tuples(st.sampled_from(["echo", "echo -e", "cat", "wc -c", "head -n 2", "tail -1",
                                   "sort -r", "uniq -c", "ls -la", "touch", "mkdir -p", "rm -rf",
                                   "cp -r", "mv", "test", "[", "true", "false", ":", "seq",
                                   "basename", "dirname", "type", "which", "export", "unset",
                                   "read x", "xargs", "xargs -n 1 echo", "cd", "chmod 755",
                                   "break", "continue", "exit", "source", ".", "bash",
                                   "bash -c", "env", "history", "date +%s", "sleep 1",
                                   "find . -name", "find / -maxdepth 2 -type f -exec echo {} ;",
                                   "tee", "nosuchcmd", "./s.sh", "ls -R /"]), args).map(" ".join),
        st.tuples(st.sampled_from(["grep", "grep -E", "grep -c", "grep -v -i", "grep -rn",
                                   "egrep -o", "grep -F -w -x"]), patterns, args).map(
            lambda t: f"{t[0]} '{t[1]}' {t[2]}"),
        st.tuples(fmt, args).map(lambda t: f"printf '{t[0]}' {t[1]}"),
        st.tuples(var_names.filter(lambda n: n.isalpha()), w).map(lambda t: f"{t[0]}={t[1]}"),
        st.tuples(var_names.filter(lambda n: n.isalpha())).map(lambda t: f"{t[0]}=${t[0]}${t[0]}"),
        st.tuples(st.sampled_from(["break", "continue"]), numbers).map(" ".join),
    )


def redirected(cmd: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    redir = st.sampled_from(["", " > f.txt", " >> f.txt", " < f.txt", " 2>&1", " &> /dev/null",
                             " 2> /dev/null", " > /", " < nope", " > dir/x/y", " >& 2"])
    return st.tuples(cmd, redir).map("".join)


def lines() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        w = words(inner)
        command = redirected(simple(inner))
        return st.one_of(
            command,
            command,
            st.tuples(inner, st.sampled_from([" | ", " && ", " || ", "; ", "\n"]), inner).map(
                "".join),
            st.tuples(st.sampled_from(["i", "x"]), st.lists(w, max_size=3), inner).map(
                lambda t: f"for {t[0]} in {' '.join(t[1])}; do {t[2]}; done"),
            st.tuples(st.sampled_from(["while", "until"]), inner, inner).map(
                lambda t: f"{t[0]} {t[1]}; do {t[2]}; done"),
            st.tuples(inner, inner, inner).map(
                lambda t: f"if {t[0]}; then {t[1]}; else {t[2]}; fi"),
            st.tuples(st.sampled_from(["{ %s; }", "( %s )", "! %s"]), inner).map(
                lambda t: t[0] % t[1]),
        )

    base = st.one_of(redirected(simple(st.just("echo hi"))),
                     arith().map(lambda e: f"echo $(( {e} ))"),
                     arith().map(lambda e: f"x=$(( {e} ))"))
    return st.recursive(base, extend, max_leaves=6)


SETUP = ("mkdir -p dir/sub && echo aaaa > f.txt && echo 'echo in script; source ./s.sh' > s.sh"
         " && chmod +x s.sh && x=abc")


def _session() -> BashSession:
    sh = BashSession(FileSystem())
    with running(Budget(Limits())):
        sh.submit(SETUP)
    return sh


BATCHES = st.lists(lines(), min_size=1, max_size=3)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(BATCHES)
def test_every_line_completes_or_is_cut_by_the_budget(batch: list[str]) -> None:
    check(batch)


def test_the_property_catches_a_planted_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    real = arith_module._apply

    def planted(op: str, a: int, b: int, where: str, noeval: bool) -> int:
        if op == "*":  # a crash in one arithmetic operator
            raise ZeroDivisionError("planted")
        return real(op, a, b, where, noeval)

    monkeypatch.setattr(arith_module, "_apply", planted)

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck),
              phases=[Phase.generate], database=None)
    @given(BATCHES)
    def prop(batch: list[str]) -> None:
        check(batch)

    with pytest.raises(ZeroDivisionError, match="planted"):
        prop()


def check(batch: list[str]) -> None:
    """Run ``batch`` line by line: each completes or is cut; the shell goes on after a cut."""
    sh = _session()
    for line in batch:
        try:
            with running(Budget(LIMITS)):
                reply = sh.submit(line)
            assert isinstance(reply.output, str)
        except BudgetExceeded:
            assert sh.state.status == 130
        if sh.mode == "more":
            sh.interrupt()
        if sh.mode == "password":
            sh.submit("password")


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(alphabet=TYPABLE + "\t\n", max_size=60))
def test_any_text_is_parsed_or_refused_with_bash_s_error(text: str) -> None:
    sh = _session()
    try:
        with running(Budget(LIMITS)):
            sh.submit(text.replace("\n", " "))
    except BudgetExceeded:
        pass


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines())
def test_the_terminal_survives_every_line(line: str) -> None:
    t = Term(maximize=False)
    try:
        with running(Budget(LIMITS)):
            t.write(line.replace("\n", "; ") + "\n")
    except BudgetExceeded:
        assert "drums: command stopped: " in t.text()
    t.press("escape")
    with running(Budget(LIMITS)):
        t.d.render()
        t.text()
