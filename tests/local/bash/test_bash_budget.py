"""The terminal's bash under the work budget (issue 11, items 1, 4 and 5).

Each hostile line of the issue runs through the interpreter under a `Budget`: it either
answers as bash would (its output or its error text) or stops with `BudgetExceeded`,
in bounded memory, and never raises anything else. Sizes are bounded with tracemalloc;
nothing here measures time.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from drums_gym.local.budget import Budget, BudgetExceeded, Limits, running
from drums_gym.local.desktop.bash import BashSession
from drums_gym.local.desktop.bash.arith import ArithError, evaluate
from drums_gym.local.desktop.bash.expand import brace_size
from drums_gym.local.desktop.bash.lexer import tokenize
from drums_gym.local.desktop.bash.regexes import RegexError, compile_regex
from drums_gym.local.desktop.fs import FileSystem

MB = 1 << 20


def steps(n: int, **more: int) -> Limits:
    """A budget of ``n`` work steps and no wall-clock limit to speak of, so that what stops
    the work is the step count however loaded the machine is."""
    return Limits(steps=n, seconds=3600.0, **more)


@contextmanager
def peak_memory(limit: int) -> Iterator[None]:
    """Fail when the block allocates more than ``limit`` bytes at its peak."""
    tracemalloc.start()
    try:
        yield
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit, f"peak {peak / MB:.1f} MB"


def run(line: str, limits: Limits | None = None, sh: BashSession | None = None) -> str:
    sh = sh if sh is not None else BashSession(FileSystem())
    with running(Budget(limits or Limits())):
        return sh.submit(line).output


def cut(line: str, limits: Limits, memory: int = 64 * MB) -> tuple[BudgetExceeded, BashSession]:
    """Run ``line``, expecting the budget to stop it within ``memory`` bytes."""
    sh = BashSession(FileSystem())
    with peak_memory(memory), pytest.raises(BudgetExceeded) as info:
        run(line, limits, sh)
    return info.value, sh


# -- item 1: work in C or outside the budget ----------------------------------------------

def test_backtracking_regex_answers_at_once() -> None:
    line = "echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa! | grep -E '^(a+)+$'; echo $?"
    assert run(line, steps(10_000)) == "1\n"
    assert run("echo aaaa | grep -E '^(a+)+$' | cat") == "aaaa\n"


def test_regex_engine_refuses_what_it_cannot_bound() -> None:
    assert run("echo abab | grep -E '(ab)\\1'; echo $?") == (
        "grep: back-references are not supported\n2\n")
    with pytest.raises(RegexError, match="look-around"):
        compile_regex("(?=a)b")
    assert compile_regex("^(a+)+$").search("a" * 100_000 + "!") is None


def test_glob_patterns_match_without_backtracking() -> None:
    sh = BashSession(FileSystem())
    name = "a" * 40
    run(f"touch {name}", sh=sh)
    assert run("echo " + "*a" * 30 + "*b; echo " + "a*" * 12, steps(10_000), sh) == (
        "*a" * 30 + "*b\n" + name + "\n")


def test_power_towers_wrap_at_64_bits() -> None:
    out = run("x=$(( ((((3**64)**64)**64)**64)**64 )); echo $x", steps(10_000))
    assert out == f"{pow(3, 64 ** 5, 1 << 64) - (1 << 64) * (pow(3, 64 ** 5, 1 << 64) >> 63)}\n"
    assert out == "5234513438067130369\n"  # what bash 5.2 prints


@pytest.mark.parametrize("expr, value", [
    ("-9223372036854775808 / -1", -9223372036854775808),
    ("-9223372036854775808 % -1", 0),
    ("9223372036854775807 + 1", -9223372036854775808),
    ("2**63", -9223372036854775808),
    ("2**64", 0),
    ("1 << 65", 2),
    ("7 / -2", -3),
    ("-7 % 3", -1),
    ("0x10 + 010 + 2#101", 29),
    ("2 ** 3 ** 2", 512),
    ("1 ? 2 : 3", 2),
    ("0 && 1/0", 0),
    ("~5", -6),
])
def test_arithmetic_is_bash_s(expr: str, value: int) -> None:
    assert evaluate(expr) == value
    assert run(f"echo $(( {expr} ))") == f"{value}\n"


@pytest.mark.parametrize("expr, message", [
    ("1/0", 'bash: 1/0: division by 0 (error token is "0")'),
    ("5%0", 'bash: 5%0: division by 0 (error token is "0")'),
    ("08", 'bash: 08: value too great for base (error token is "08")'),
    ("1 +", 'bash: 1 +: syntax error: operand expected (error token is "+")'),
    ("(" * 200 + "1" + ")" * 200, "expression recursion level exceeded"),
])
def test_arithmetic_errors_print_bash_s_text(expr: str, message: str) -> None:
    out = run(f"echo $(({expr})); echo $?")
    assert message in out and out.endswith("\n1\n")
    with pytest.raises(ArithError):
        evaluate(expr)


def test_nested_loops_that_only_assign_are_stopped() -> None:
    line = ("for a in {1..10000}; do for b in {1..10000}; do for c in {1..10000}; do x=1; done;"
            " done; done")
    exc, sh = cut(line, steps(50_000))
    assert exc.kind == "steps"
    assert sh.state.status == 130 and sh.mode == "command"
    assert sh.submit("echo still here").output == "still here\n"


@pytest.mark.parametrize("line", [
    "while true; do :; done",
    "while :; do x=1; done",
    "until false; do y=$x; done",
    "x=0; while [ $x -ge 0 ]; do x=$((x+1)); done",
])
def test_endless_loops_are_cut_by_steps(line: str) -> None:
    exc, _ = cut(line, steps(20_000))
    assert exc.kind == "steps"


def test_a_line_without_a_budget_gets_its_own() -> None:
    """Called outside any unit of work (a library user), a line still cannot run forever."""
    from drums_gym.local.desktop.bash import session

    sh = BashSession(FileSystem())
    saved = session.LINE_LIMITS
    session.LINE_LIMITS = steps(10_000)
    try:
        with pytest.raises(BudgetExceeded):
            sh.submit("while true; do :; done")
    finally:
        session.LINE_LIMITS = saved


# -- item 4: memory per line ------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "echo {1..20000000} | wc -c",
    "echo {1..100000000}",
    "echo " + "{a,b}" * 20 + " | wc -c",
    "echo " + "{a,b}" * 2000,
    "printf '%.999999999d' 1",
    "printf '%999999999s' x",
    "x=a; for i in $(seq 24); do x=$x$x; done; echo ${#x}",
    "seq 1 100000000000000000000",
    "echo {1..100000000000000000000000}",
])
def test_big_expansions_are_charged_before_they_are_built(line: str) -> None:
    exc, _ = cut(line, steps(200_000, output_bytes=4 * MB), memory=24 * MB)
    assert exc.kind in ("steps", "output")


def test_brace_sizes_are_computed_not_built() -> None:
    word = tokenize("{a,b}" * 40)[0].word
    assert brace_size(word) == (2 ** 40, 40 * 2 ** 40)
    assert brace_size(tokenize("{1..100}")[0].word) == (100, 100 * 3)
    assert run("echo x{1..3}y{a,b} {01..3..2} {c..a}") == (
        "x1ya x1yb x2ya x2yb x3ya x3yb 01 03 c b a\n")


def test_the_same_work_fits_a_bigger_budget() -> None:
    assert run("echo {1..20000} | wc -c") == "108894\n"
    assert run("x=a; for i in $(seq 10); do x=$x$x; done; echo ${#x}") == "1024\n"
    assert run("seq 3 | wc -l; seq 1 100000 | tail -1") == "3\n100000\n"


# -- item 5: bash errors answer normally ------------------------------------------------

@pytest.mark.parametrize("line, out", [
    ("break", "bash: break: only meaningful in a `for', `while', or `until' loop\n"),
    ("continue; echo $?", "bash: continue: only meaningful in a `for', `while', or `until' "
                          "loop\n0\n"),
    ("for i in 1 2; do break 0; done", "bash: break: 0: loop count out of range\n"
                                       "bash: break: 0: loop count out of range\n"),
    ("for i in 1 2; do echo $i; break x; done; echo $?",
     "1\nbash: break: x: numeric argument required\n2\n"
     "bash: break: x: numeric argument required\n128\n"),
    ("for i in 1 2 3; do echo $i; break 5; done", "1\n"),
    ("for i in 1 2; do for j in a b; do echo $i$j; continue 2; done; done", "1a\n2a\n"),
    ("for i in 1 2; do (break); echo $i; done", "1\n2\n"),
    ("printf '%.99999999999f' 1; echo \"[$?]\"", "[0]\n"),
    ("printf 'a%99999999999db\\n' 1", "ab\n"),
    ("echo $(( 9223372036854775807 * 3 ))", "9223372036854775805\n"),
    ("echo 'source ./s' > s; source ./s; echo $?",
     "bash: ./s: maximum source nesting level exceeded (16)\n1\n"),
    ("echo 'bash ./r' > r; bash ./r", "bash: maximum nesting level exceeded (32)\n"),
    ("seq x", "seq: invalid floating point argument: ‘x’\n"
              "Try 'seq --help' for more information.\n"),
    ("exit ²", "bash: exit: ²: numeric argument required\n"),
])
def test_bash_errors_print_what_bash_prints(line: str, out: str) -> None:
    assert run(line) == out


def test_seq_of_a_huge_range_stops_at_the_budget_not_a_crash() -> None:
    exc, sh = cut("seq 1 100000000000000000000", steps(20_000), memory=8 * MB)
    assert exc.kind == "steps"
    assert sh.stopped_output.startswith("1\n2\n3\n")


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    deep = "echo " + "$(echo " * 200 + "hi" + ")" * 200
    assert "bash: maximum nesting level exceeded (32)\n" in run(deep)
    groups = "{ " * 300 + "echo hi; " + "}; " * 300
    assert "maximum nesting level exceeded" in run(groups)
