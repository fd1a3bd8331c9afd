"""The action language: pyautogui code strings are parsed against an allowlist, never run."""

from __future__ import annotations

import doctest
import importlib
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drums_gym.actions import (
    CONSTRUCTS,
    KEYBOARD_KEYS,
    MAX_CODE_CHARS,
    MAX_EVENTS,
    MAX_STATEMENTS,
    Action,
    ActionError,
    Event,
    KeyDown,
    KeyUp,
    MouseDown,
    MouseMove,
    MouseUp,
    Scroll,
    Sleep,
    canonical_key,
    expand,
    is_valid_key,
    normalize_key,
    parse,
    parse_control,
    validate,
)

L_DOWN, L_UP = MouseDown("left"), MouseUp("left")


def events(code: str, pointer: tuple[int, int] = (100, 100)) -> list[Event]:
    return expand(parse(code), pointer=pointer)


def refused(code: str) -> ActionError:
    with pytest.raises(ActionError) as info:
        parse(code)
    return info.value


def tap(*keys: str) -> list[Event]:
    out: list[Event] = []
    for key in keys:
        out += [KeyDown(key), KeyUp(key)]
    return out


# --- expansion --------------------------------------------------------------------------------

EXPANSIONS: list[tuple[str, list[Event]]] = [
    ("pyautogui.moveTo(10, 20)", [MouseMove(10, 20)]),
    ("pyautogui.moveTo(x=10)", [MouseMove(10, 100)]),
    ("pyautogui.moveTo()", []),
    ("pyautogui.moveTo(10.9, -3.7)", [MouseMove(10, -3)]),  # int() like pyautogui
    ("pyautogui.moveRel(5, -5)", [MouseMove(105, 95)]),
    ("pyautogui.move(yOffset=7)", [MouseMove(100, 107)]),
    ("pyautogui.moveRel(0, 0)", []),
    ("pyautogui.click()", [L_DOWN, L_UP]),
    ("pyautogui.click(10, 20)", [MouseMove(10, 20), L_DOWN, L_UP]),
    (
        "pyautogui.click(10, 20, clicks=2, interval=0.1, button='right')",
        [
            MouseMove(10, 20),
            MouseDown("right"),
            MouseUp("right"),
            Sleep(0.1),
            MouseDown("right"),
            MouseUp("right"),
        ],
    ),
    ("pyautogui.click(clicks=0)", []),
    ("pyautogui.leftClick(1, 2)", [MouseMove(1, 2), L_DOWN, L_UP]),
    ("pyautogui.doubleClick()", [L_DOWN, L_UP, L_DOWN, L_UP]),
    (
        "pyautogui.doubleClick(1, 2, interval=0.2)",
        [MouseMove(1, 2), L_DOWN, L_UP, Sleep(0.2), L_DOWN, L_UP],
    ),
    ("pyautogui.tripleClick(button='middle')", [MouseDown("middle"), MouseUp("middle")] * 3),
    ("pyautogui.rightClick(5, 6)", [MouseMove(5, 6), MouseDown("right"), MouseUp("right")]),
    ("pyautogui.middleClick()", [MouseDown("middle"), MouseUp("middle")]),
    ("pyautogui.click(button='secondary')", [MouseDown("right"), MouseUp("right")]),
    ("pyautogui.click(button='PRIMARY')", [L_DOWN, L_UP]),
    ("pyautogui.mouseDown()", [L_DOWN]),
    ("pyautogui.mouseDown(1, 2, 'right')", [MouseMove(1, 2), MouseDown("right")]),
    ("pyautogui.mouseUp(x=3, y=4)", [MouseMove(3, 4), L_UP]),
    ("pyautogui.dragTo(300, 400)", [L_DOWN, MouseMove(300, 400), L_UP]),
    (
        "pyautogui.dragTo(300, 400, 0.5, button='right')",
        [MouseDown("right"), MouseMove(300, 400), MouseUp("right")],
    ),
    ("pyautogui.dragTo(1, 2, mouseDownUp=False)", [MouseMove(1, 2)]),
    ("pyautogui.dragRel(10, -10)", [L_DOWN, MouseMove(110, 90), L_UP]),
    ("pyautogui.drag(0, 0)", []),
    ("pyautogui.scroll(5)", [Scroll(dy=5)]),
    ("pyautogui.scroll(-3, 10, 20)", [MouseMove(10, 20), Scroll(dy=-3)]),
    ("pyautogui.scroll(2.9, x=(4, 5))", [MouseMove(4, 5), Scroll(dy=2)]),
    ("pyautogui.vscroll(-1)", [Scroll(dy=-1)]),
    ("pyautogui.hscroll(4)", [Scroll(dx=4)]),
    ("pyautogui.scroll(0)", []),
    ("pyautogui.write('Ab')", tap("A", "b")),
    ("pyautogui.typewrite('a\\nb\\tc')", tap("a", "enter", "b", "tab", "c")),
    (
        "pyautogui.write('a b', interval=0.05)",
        [*tap("a"), Sleep(0.05), *tap(" "), Sleep(0.05), *tap("b")],
    ),
    ("pyautogui.write(['a', 'Enter', 'esc'])", tap("a", "enter", "esc")),
    ("pyautogui.write('')", []),
    ("pyautogui.write('héllo 日本')", tap(*"hllo ")),  # X11 pyautogui drops non-ASCII
    ("pyautogui.write('a\u00e9b', interval=0.5)",
     [*tap("a"), Sleep(0.5), Sleep(0.5), *tap("b")]),  # the dropped one still waits
    ("pyautogui.press('enter')", tap("enter")),
    ("pyautogui.press('ENTER')", tap("enter")),
    ("pyautogui.press(['a', 'b'])", tap("a", "b")),
    ("pyautogui.press('f5', presses=3)", tap("f5", "f5", "f5")),
    ("pyautogui.press('a', 2, 0.5)", [*tap("a"), Sleep(0.5), *tap("a")]),
    ("pyautogui.press([])", []),
    ("pyautogui.keyDown('shift')", [KeyDown("shift")]),
    ("pyautogui.keyUp('Shift')", [KeyUp("shift")]),
    (
        "pyautogui.hotkey('ctrl', 'shift', 't')",
        [
            KeyDown("ctrl"),
            KeyDown("shift"),
            KeyDown("t"),
            KeyUp("t"),
            KeyUp("shift"),
            KeyUp("ctrl"),
        ],
    ),
    ("pyautogui.hotkey(['ctrl', 'c'])", [KeyDown("ctrl"), KeyDown("c"), KeyUp("c"), KeyUp("ctrl")]),
    (
        "pyautogui.hotkey('alt', 'tab', interval=0.1)",
        [
            KeyDown("alt"),
            Sleep(0.1),
            KeyDown("tab"),
            Sleep(0.1),
            KeyUp("tab"),
            Sleep(0.1),
            KeyUp("alt"),
        ],
    ),
    ("time.sleep(0.5)", [Sleep(0.5)]),
    ("time.sleep(2)", [Sleep(2.0)]),
    ("pyautogui.sleep(1)", [Sleep(1.0)]),
    ("pass", []),
]


@pytest.mark.parametrize(("code", "expected"), EXPANSIONS, ids=[c for c, _ in EXPANSIONS])
def test_expansion(code: str, expected: list[Event]) -> None:
    assert events(code, pointer=(100, 100)) == expected


def test_sleep_events_carry_floats() -> None:
    [sleep] = events("time.sleep(2)")
    assert isinstance(sleep, Sleep) and isinstance(sleep.seconds, float)


def test_pointer_is_tracked_through_the_expansion() -> None:
    code = (
        "pyautogui.moveTo(10, 10)\n"
        "pyautogui.moveRel(5, 5); pyautogui.dragRel(1, 0)\n"
        "pyautogui.click(y=50)"
    )
    assert events(code, pointer=(0, 0)) == [
        MouseMove(10, 10),
        MouseMove(15, 15),
        L_DOWN,
        MouseMove(16, 15),
        L_UP,
        MouseMove(16, 50),
        L_DOWN,
        L_UP,
    ]


def test_action_events_matches_expand() -> None:
    [action] = parse("pyautogui.moveRel(1, 2)")
    assert action.events((5, 5)) == expand([action], pointer=(5, 5)) == [MouseMove(6, 7)]
    assert action.events() == [MouseMove(1, 2)]  # default pointer (0, 0)


# --- binding ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "pyautogui.click(10, 20, 2, 0.1, 'right')",
            "pyautogui.click(x=10, y=20, clicks=2, interval=0.1, button='right')",
        ),
        ("pyautogui.click((10, 20))", "pyautogui.click(10, 20)"),
        ("pyautogui.moveTo([10, 20])", "pyautogui.moveTo(y=20, x=10)"),
        ("pyautogui.doubleClick(1, 2)", "pyautogui.click(1, 2, clicks=2)"),
        ("pyautogui.tripleClick(1, 2)", "pyautogui.click(1, 2, clicks=3)"),
        ("pyautogui.rightClick()", "pyautogui.click(button='right')"),
        ("pyautogui.leftClick()", "pyautogui.click()"),
        ("pyautogui.move(1, 2)", "pyautogui.moveRel(xOffset=1, yOffset=2)"),
        ("pyautogui.drag(1, 2)", "pyautogui.dragRel(1, 2)"),
        ("pyautogui.typewrite('x', 0.1)", "pyautogui.write(message='x', interval=0.1)"),
        ("pyautogui.vscroll(3, 1, 2)", "pyautogui.scroll(clicks=3, x=1, y=2)"),
        ("pyautogui.press('a', 2, 0.1)", "pyautogui.press(keys=['a'], presses=2, interval=0.1)"),
        ("pyautogui.dragTo(1, 2, 0.5, button='left')", "pyautogui.dragTo(1, 2)"),
        ("pyautogui.moveTo(1, 2, 0.3, logScreenshot=True, _pause=False)", "pyautogui.moveTo(1, 2)"),
        ("pyautogui.sleep(1)", "time.sleep(1.0)"),
        ("pyautogui.hotkey(('ctrl', 'c'))", "pyautogui.hotkey('ctrl', 'c')"),
        ("pyautogui.write(f'abc')", "pyautogui.write('abc')"),
        ("pyautogui.click(-5, +6)", "pyautogui.click(-5, 6)"),
    ],
)
def test_equivalent_spellings(first: str, second: str) -> None:
    assert parse(first) == parse(second)


def test_actions_are_normalised_frozen_and_hashable() -> None:
    [action] = parse("pyautogui.doubleClick(1.5, 2)")
    assert action == Action(
        "click", (("x", 1), ("y", 2), ("clicks", 2), ("interval", 0.0), ("button", "left"))
    )
    assert action.kwargs == {"x": 1, "y": 2, "clicks": 2, "interval": 0.0, "button": "left"}
    assert hash(action) == hash(parse("pyautogui.click(1, 2, 2)")[0])
    with pytest.raises(AttributeError):
        action.name = "moveTo"  # type: ignore[misc]


@pytest.mark.parametrize("code", [c for c, _ in EXPANSIONS if c != "pass"])
def test_to_code_round_trips(code: str) -> None:
    actions = parse(code)
    assert [parse(action.to_code())[0] for action in actions] == actions


def test_multi_statement_strings_imports_and_line_numbers() -> None:
    code = (
        "import pyautogui\nimport time\nimport pyautogui, time\n\n"
        "pyautogui.click(1, 2); time.sleep(0.1)\n# a comment\npass\npyautogui.press('enter')\n"
    )
    actions = parse(code)
    assert [a.name for a in actions] == ["click", "sleep", "press"]
    assert [a.lineno for a in actions] == [5, 5, 8]
    assert parse("") == [] and parse("# nothing\n") == []


def test_key_names_follow_pyautogui() -> None:
    # names are lower-cased; single characters are kept as pyautogui keeps them (it presses
    # shift for an upper-case letter), so press('A') types 'A' like write('A')
    assert events("pyautogui.press('A')") == events("pyautogui.write('A')") == tap("A")
    assert events("pyautogui.hotkey('Ctrl', 'ALT', 'Delete')")[:3] == [
        KeyDown("ctrl"),
        KeyDown("alt"),
        KeyDown("delete"),
    ]
    assert normalize_key("Return") == "return" and canonical_key("Return") == "enter"
    assert normalize_key("\n") == normalize_key("\r") == "enter" and normalize_key("\t") == "tab"
    assert is_valid_key("f24") and is_valid_key("é") and not is_valid_key("f25")
    assert not is_valid_key("") and not is_valid_key("\x00") and not is_valid_key(None)
    assert {"enter", "esc", "escape", "ctrlleft", "win", "command", "pagedown"} <= set(
        KEYBOARD_KEYS
    )


# --- refusals ---------------------------------------------------------------------------------

REFUSALS: list[tuple[str, str, str, int | None]] = [
    # (code, construct, message fragment, lineno)
    ("pyautogui.click(1, 2)\nos", "name", "line 2: name 'os' is not allowed", 2),
    (
        "os.system('touch /tmp/x')",
        "attribute",
        "line 1: attribute chain os.system is not allowed",
        1,
    ),
    ("__import__('os').system('id')", "call", "call to __import__() is not allowed", 1),
    ("__import__('os')", "call", "line 1: call to __import__() is not allowed", 1),
    ("open('f', 'w')", "call", "line 1: call to open() is not allowed", 1),
    ("print('hi')", "call", "call to print() is not allowed", 1),
    ("getattr(pyautogui, 'click')(1, 2)", "call", "call to getattr() is not allowed", 1),
    ("pyautogui.click(getattr(pyautogui, 'x'))", "call", "call to getattr() is not allowed", 1),
    ("pyautogui.__dict__", "attribute", "attribute chain pyautogui.__dict__ is not allowed", 1),
    ("pyautogui.__dict__['click'](1, 2)", "subscript", "subscript is not allowed", 1),
    ("pyautogui.os.system('id')", "attribute", "attribute chain pyautogui.os.system", 1),
    ("''.join(['a'])", "attribute", "attribute access on a literal", 1),
    ("pyautogui.position()", "call", "call to pyautogui.position() is not allowed", 1),
    ("pyautogui.screenshot('x.png')", "call", "pyautogui.screenshot()", 1),
    ("time.time()", "call", "call to time.time() is not allowed", 1),
    ("(lambda: 0)()", "lambda", "lambda is not allowed", 1),
    ("pyautogui.click(lambda: 1)", "lambda", "lambda is not allowed", 1),
    ("pyautogui.press([k for k in 'ab'])", "comprehension", "list comprehension is not allowed", 1),
    ("pyautogui.press({k for k in 'ab'})", "comprehension", "set comprehension", 1),
    ("pyautogui.press(k for k in 'ab')", "comprehension", "generator expression", 1),
    (
        "pyautogui.write(f'{1 + 1}')",
        "f-string",
        "line 1: f-string with expressions is not allowed",
        1,
    ),
    ("pyautogui.click((x := 5), 3)", "walrus", "assignment expression (:=) is not allowed", 1),
    ("pyautogui.click([1, 2][0], 3)", "subscript", "subscript is not allowed", 1),
    ("pyautogui.click(x)", "name", "name 'x' is not allowed", 1),
    ("pyautogui.click(True and 1, 2)", "operator", "boolean operator", 1),
    ("pyautogui.click(1 + 2, 3)", "operator", "operator + is not allowed", 1),
    ("pyautogui.click(10**6, 2)", "operator", "operator ** is not allowed", 1),
    ("pyautogui.write('a' * 10)", "operator", "operator * is not allowed", 1),
    ("pyautogui.click(-(-1), 2)", "operator", "unary - is only allowed before a number", 1),
    ("pyautogui.click(1 if 1 else 2, 2)", "expression", "conditional expression", 1),
    ("pyautogui.click({'x': 1})", "expression", "dict display", 1),
    (
        "pyautogui.click(pyautogui.position())",
        "call",
        "call to pyautogui.position() is not allowed as an argument",
        1,
    ),
    ("pyautogui.click(*[1, 2])", "starred", "* unpacking", 1),
    ("pyautogui.click(**{'x': 1})", "starred", "** unpacking", 1),
    ("pyautogui.write(b'x')", "literal", "bytes literal is not allowed", 1),
    ("pyautogui.click(1j, 2)", "literal", "complex literal is not allowed", 1),
    ("x = 1", "statement", "line 1: assignment is not allowed", 1),
    ("pyautogui.x = 1", "statement", "assignment is not allowed", 1),
    ("for i in range(3):\n    pyautogui.click()", "statement", "for loop is not allowed", 1),
    ("while True:\n    pass", "statement", "while loop is not allowed", 1),
    ("if True:\n    pass", "statement", "if statement is not allowed", 1),
    ("def f():\n    pass", "statement", "function definition is not allowed", 1),
    ("class A:\n    pass", "statement", "class definition is not allowed", 1),
    ("with open('f') as f:\n    pass", "statement", "with statement is not allowed", 1),
    ("try:\n    pass\nexcept Exception:\n    pass", "statement", "try statement", 1),
    ("del pyautogui", "statement", "del statement", 1),
    ("raise SystemExit", "statement", "raise statement", 1),
    ("42", "statement", "bare literal", 1),
    ("'docstring'", "statement", "bare literal", 1),
    ("import os", "import", "line 1: import of 'os' is not allowed", 1),
    ("import pyautogui, subprocess", "import", "import of 'subprocess'", 1),
    ("import pyautogui as pg", "import", "import alias 'pg' is not allowed", 1),
    ("import os.path", "import", "import of 'os.path'", 1),
    ("from pyautogui import click", "import", "from-import is not allowed", 1),
    ("from os import system", "import", "from-import is not allowed", 1),
    ("pyautogui.click(", "syntax", "syntax error at line 1, column 16", 1),
    ("pyautogui.click(1, 2)\npyautogui.click(3 4)", "syntax", "syntax error at line 2", 2),
    (
        "pyautogui.write('a\x00')",
        "syntax",
        "syntax error at line 1, column 19: code contains a NUL",
        1,
    ),
    ("pyautogui.write('a\\x00')", "argument", "contains '\\x00', which cannot be typed", 1),
    ("pyautogui.click(1,\n  2,\n  button=os)", "name", "line 3: name 'os'", 3),
]


@pytest.mark.parametrize(
    ("code", "construct", "fragment", "lineno"), REFUSALS, ids=[r[0] for r in REFUSALS]
)
def test_refused_constructs(code: str, construct: str, fragment: str, lineno: int | None) -> None:
    error = refused(code)
    assert error.construct == construct
    assert fragment in str(error)
    assert error.lineno == lineno
    assert error.construct in CONSTRUCTS
    assert isinstance(error, ValueError)


ARGUMENT_ERRORS: list[tuple[str, str]] = [
    ("pyautogui.click(foo=1)", "pyautogui.click() got an unexpected keyword argument 'foo'"),
    (
        "pyautogui.click(1, 2, 1, 0.0, 'left', 0.0, None, None, True, 9)",
        "takes at most 9 positional arguments (10 given)",
    ),
    ("pyautogui.click(1, x=2)", "multiple values for argument 'x'"),
    ("pyautogui.click('button.png')", "argument 'x' must be a number"),
    ("pyautogui.moveTo(1, '2')", "argument 'y' must be a number"),
    ("pyautogui.click(True, 2)", "argument 'x' must be a number"),
    ("pyautogui.click(1e999, 2)", "argument 'x' must be a number"),
    ("pyautogui.click(10000000, 2)", "argument 'x' must be a number from -1000000 to 1000000"),
    ("pyautogui.click((1, 2, 3))", "argument 'x' must be a number or an (x, y) pair"),
    ("pyautogui.click((1, 2), 3)", "argument 'y' must not be given"),
    ("pyautogui.click(button='top')", "pyautogui.click(): argument 'button' must be one of 'left'"),
    ("pyautogui.mouseDown(button=4)", "argument 'button' must be one of"),
    ("pyautogui.click(clicks=101)", "argument 'clicks' must be an int from 0 to 100 (got 101)"),
    ("pyautogui.click(clicks=2.0)", "argument 'clicks' must be an int"),
    ("pyautogui.click(clicks=-1)", "argument 'clicks' must be an int"),
    ("pyautogui.click(interval=-1)", "argument 'interval' must be a number of seconds"),
    ("pyautogui.press('a', presses=101)", "argument 'presses' must be an int from 0 to 100"),
    (
        "pyautogui.press('nosuchkey')",
        "pyautogui.press(): argument 'keys': unknown key name 'nosuchkey'",
    ),
    ("pyautogui.press(['ctrl', 'nope'])", "unknown key name 'nope'"),
    ("pyautogui.press(1)", "argument 'keys' must be a key name or a list of key names"),
    ("pyautogui.keyDown('')", "unknown key name ''"),
    ("pyautogui.keyUp(None)", "argument 'key' must be a key name"),
    (
        "pyautogui.hotkey('ctrl', 'f25')",
        "pyautogui.hotkey(): argument 'keys': unknown key name 'f25'",
    ),
    ("pyautogui.hotkey(['ctrl', 'c'], 'v')", "not both"),
    ("pyautogui.hotkey('ctrl', 'c', foo=1)", "unexpected keyword argument 'foo'"),
    ("pyautogui.write(123)", "argument 'message' must be a string or a list of key names"),
    ("pyautogui.write(['a', 'nope'])", "unknown key name 'nope'"),
    ("pyautogui.write()", "pyautogui.write() is missing the required argument 'message'"),
    ("pyautogui.scroll()", "missing the required argument 'clicks'"),
    ("pyautogui.scroll('up')", "argument 'clicks' must be a number"),
    ("pyautogui.scroll(100000)", "argument 'clicks' must be a number from -10000 to 10000"),
    ("time.sleep(61)", "time.sleep(): argument 'seconds' must be a number of seconds from 0 to 60"),
    ("time.sleep(-1)", "argument 'seconds' must be a number of seconds"),
    ("time.sleep('1')", "argument 'seconds' must be a number of seconds"),
    ("time.sleep(seconds=1)", "time.sleep() takes no keyword arguments"),
    ("time.sleep()", "missing the required argument 'seconds'"),
    (
        "pyautogui.moveTo(1, 2, 0.5, pyautogui.easeInQuad)",
        "pyautogui.moveTo(): argument 'tween' is not supported",
    ),
    ("pyautogui.moveTo(1, 2, tween=pyautogui.linear)", "argument 'tween' is not supported"),
    ("pyautogui.dragTo(1, 2, duration=100)", "argument 'duration' must be a number of seconds"),
    ("pyautogui.click(_pause=1)", "argument '_pause' must be True or False"),
    ("pyautogui.dragTo(1, 2, mouseDownUp=None)", "argument 'mouseDownUp' must be True or False"),
]


@pytest.mark.parametrize(("code", "fragment"), ARGUMENT_ERRORS, ids=[c for c, _ in ARGUMENT_ERRORS])
def test_argument_errors(code: str, fragment: str) -> None:
    error = refused(code)
    assert fragment in str(error)
    assert str(error).startswith("line 1: ")
    assert error.construct == "argument"


def test_limits() -> None:
    too_long = "pass\n" * (MAX_CODE_CHARS // 5) + "#"
    assert refused(too_long).construct == "limit"
    assert parse("pass\n" * MAX_STATEMENTS) == []
    error = refused("pass\n" * (MAX_STATEMENTS + 1))
    assert error.construct == "limit" and str(MAX_STATEMENTS) in str(error)
    # write(n chars) is 2n events: the limit is inclusive
    assert len(events(f"pyautogui.write('{'a' * (MAX_EVENTS // 2)}')")) == MAX_EVENTS
    error = refused(f"pass\npyautogui.write('{'a' * (MAX_EVENTS // 2 + 1)}')")
    assert (error.construct, error.lineno) == ("limit", 2)
    assert "more than 20000 input events" in str(error)
    # counted lazily: a huge expansion is refused without being built
    assert refused(f"pyautogui.press({['a'] * 5000!r}, presses=100)").construct == "limit"
    assert refused("pyautogui.click(clicks=100)\n" * 101).construct == "limit"


@pytest.mark.parametrize(
    "code",
    [
        "-" * 50_000 + "1",
        "f" + "()" * 30_000,
        "a" + ".b" * 30_000,
        "pyautogui.click(" + "[" * 300 + "]" * 300 + ")",
        "1" * 5000,
        "pyautogui.click(" + "9" * 5000 + ")",
    ],
    ids=["unary", "calls", "attributes", "brackets", "huge-int", "huge-int-arg"],
)
def test_pathological_code_is_an_action_error(code: str) -> None:
    assert refused(code).construct in {"limit", "syntax", "operator", "call", "attribute"}


def test_non_string_action() -> None:
    error = refused(42)  # type: ignore[arg-type]
    assert error.construct == "type"


def test_validate_and_error_pickling() -> None:
    assert validate("pyautogui.click(1, 2)") is None
    with pytest.raises(ActionError) as info:
        validate("import os")
    copy = pickle.loads(pickle.dumps(info.value))
    assert (str(copy), copy.construct, copy.lineno) == (
        str(info.value),
        "import",
        1,
    )


# --- control words ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("DONE", "DONE"),
        ("  FAIL\n", "FAIL"),
        ("\tWAIT ", "WAIT"),
        ("done", None),
        ("DONE.", None),
        ("DONE DONE", None),
        ("pyautogui.click()", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_control(text: str, word: str | None) -> None:
    assert parse_control(text) == word


# --- never executed ---------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_parses_or_is_an_action_error(text: str) -> None:
    try:
        result = parse(text)
    except ActionError as error:
        assert error.construct in CONSTRUCTS
    else:
        assert isinstance(result, list)


_FRAGMENTS = [
    "pyautogui.",
    "time.",
    "click",
    "moveTo",
    "write",
    "press",
    "hotkey",
    "sleep",
    "scroll",
    "(",
    ")",
    "[",
    "]",
    ",",
    "=",
    "x",
    "y",
    "button",
    "'left'",
    "'enter'",
    "'a'",
    "1",
    "-2",
    "3.5",
    "1e999",
    "None",
    "True",
    ";",
    "\n",
    " ",
    "*",
    "**",
    "lambda",
    ":",
    "import ",
    "os",
    "f'{",
    "}'",
    "__import__",
    "open",
    ".",
    "interval",
    "clicks",
    "0.1",
    "(1, 2)",
    "'\\x00'",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=25).map("".join))
def test_code_like_text_parses_or_is_an_action_error(text: str) -> None:
    try:
        actions = parse(text)
    except ActionError as error:
        assert error.construct in CONSTRUCTS
    else:
        assert len(expand(actions)) <= MAX_EVENTS


def _hostile(target: Path) -> list[str]:
    path = str(target)
    ex = "ex" + "ec"  # keeps the literal call spelling out of the source tree
    return [
        f"import os\nos.system('touch {path}')",
        f"import subprocess; subprocess.run(['touch', {path!r}])",
        f"open({path!r}, 'w').write('pwned')",
        f"__import__('os').system('touch {path}')",
        f"pyautogui.write(open({path!r}, 'w').write('x'))",
        f"pyautogui.click(__import__('pathlib').Path({path!r}).touch())",
        f"{ex}(\"open({path!r}, 'w')\")",
        f"getattr(__builtins__, 'open')({path!r}, 'w')",
        f"[open({path!r}, 'w') for _ in range(1)]",
        f"pyautogui.write(f\"{{open({path!r}, 'w')}}\")",
        f"import pyautogui\npyautogui.click(1, 2)\nopen({path!r}, 'w')",
    ]


def test_hostile_code_is_never_executed(tmp_path: Path) -> None:
    target = tmp_path / "pwned"
    for code in _hostile(target):
        with pytest.raises(ActionError):
            parse(code)
        assert not target.exists(), code


def test_the_canary_is_live(tmp_path: Path) -> None:
    # the same kind of string does create the file when Python runs it
    target = tmp_path / "canary"
    subprocess.run([sys.executable, "-c", f"open({str(target)!r}, 'w').write('x')"], check=True)
    assert target.exists()


# --- the package itself -----------------------------------------------------------------------

_MODULES = ["action", "control", "errors", "events", "keys", "limits", "parser", "signatures"]


def test_the_action_package_never_evaluates_code() -> None:
    package = Path(importlib.import_module("drums_gym.actions").__file__).parent  # type: ignore[arg-type]
    for source in package.glob("*.py"):
        text = source.read_text(encoding="utf-8")
        for forbidden in ("ev" + "al(", "ex" + "ec(", "importlib", "compile("):
            assert forbidden not in text, f"{forbidden} in {source.name}"


@pytest.mark.parametrize("name", ["", *_MODULES])
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module("drums_gym.actions" + (f".{name}" if name else ""))
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_osworld_preamble_settings_are_accepted_as_no_ops():
    from drums_gym.actions import parse as parse_code

    code = "import pyautogui\npyautogui.FAILSAFE = False\npyautogui.PAUSE = 0.5\n"
    code += "pyautogui.click(1, 2)"
    assert [a.name for a in parse_code(code)] == ["click"]
    for bad in ("pyautogui.FAILSAFE = os", "pyautogui.click = 1", "pyautogui.PAUSE = 1e9",
                "x = 1"):
        with pytest.raises(ActionError):
            parse_code(bad)
