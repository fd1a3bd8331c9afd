"""A hypothesis grammar of bash lines: loops, expansions (braces, globs, parameters,
substitutions), arithmetic, regular expressions, redirections and pipes, with the hostile
values of issue 11 among the ordinary ones (shared by the interpreter's fuzz test and the
hostile-input suite over HTTP)."""

from __future__ import annotations

import string

from hypothesis import strategies as st

__all__ = ["TYPABLE", "arith", "lines", "redirected", "simple", "words"]

TYPABLE = string.ascii_letters + string.digits + string.punctuation + " "

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
