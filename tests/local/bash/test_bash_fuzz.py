"""Property: any line from a grammar of bash constructs either completes or is stopped by
the work budget (`BudgetExceeded`); nothing else escapes the interpreter or the terminal.

The grammar mixes loops, expansions (braces, globs, parameters, substitutions), arithmetic,
regular expressions, redirections and pipes, with the hostile values of issue 11 among the
ordinary ones.
"""

from __future__ import annotations

import pytest
from bash_grammar import TYPABLE, lines
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from terminal_driver import Term

from drums_gym.local.budget import Budget, BudgetExceeded, Limits, running
from drums_gym.local.desktop.bash import BashSession
from drums_gym.local.desktop.bash import arith as arith_module
from drums_gym.local.desktop.fs import FileSystem

# The grammar is big: hypothesis warns that its repr is, when it reports a case.
pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

LIMITS = Limits(steps=20_000, seconds=3.0, output_bytes=256 * 1024)


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
@example(";;")  # refusals every run, whatever the draw: the refusal branch is always checked
@example("echo )")
@example('0`"`')  # an unclosed quote inside a substitution: reported, then 0 is run (127)
def test_any_text_is_parsed_or_refused_with_bash_s_error(text: str) -> None:
    sh = _session()
    try:
        with running(Budget(LIMITS)):
            reply = sh.submit(text.replace("\n", " "))
    except BudgetExceeded:
        assert sh.state.status == 130
        return
    assert isinstance(reply.output, str)
    assert 0 <= sh.state.status <= 255
    # a syntax error of the line itself is refused as bash refuses it: status 2, its
    # words (one inside a command substitution is reported and the line goes on, as in bash)
    if "syntax error" in reply.output and "command substitution" not in reply.output:
        assert sh.state.status == 2, (text, reply.output)
        assert "bash: syntax error" in reply.output, (text, reply.output)


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
