"""One pyautogui call given as values (not code): checked and normalised like parsed code.

The Python path (agent code run as Python, each pyautogui call sent to the desktop's owner)
and computer_13 actions both arrive as a function name with argument values; they are bound
with the same signatures as the parser's literal arguments, so every path accepts and refuses
the same arguments.

>>> call_action("pyautogui.click", [10, 20], {"button": "right"})
Action(name='click', args=(('x', 10), ('y', 20), ('clicks', 1), ('interval', 0.0), \
('button', 'right')), lineno=None)
>>> call_action("pyautogui.moveTo", [5, 6, 0.5, "<tween>"], {}, ignore_tween=True).name
'moveTo'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from drums_gym.actions.action import Action
from drums_gym.actions.errors import ActionError
from drums_gym.actions.signatures import SIGNATURES, ArgumentProblem, LiteralValue

__all__ = ["call_action", "literal"]


def literal(value: object, where: str = "argument") -> LiteralValue:
    """``value`` as the parser's literal reader would give it (lists become tuples)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(literal(item, where) for item in value)
    raise ActionError(
        f"{where}: a {type(value).__name__} is not an accepted value "
        "(int, float, str, bool, None, or a list of them)",
        "argument",
    )


def call_action(
    public: str,
    positional: Sequence[object],
    keywords: Mapping[str, object],
    lineno: int | None = None,
    *,
    ignore_tween: bool = False,
) -> Action:
    """The `Action` of calling ``public`` (``"pyautogui.click"``) with these values.

    Raises `ActionError` (``call`` for a function outside the allowlist, ``argument`` for a
    wrong argument). With ``ignore_tween`` a ``tween`` argument is dropped (moves are instant;
    the Python path passes tween functions by name, computer_13 names one too).
    """
    signature = SIGNATURES.get(public)
    if signature is None:
        raise ActionError(f"call to {public}() is not supported here", "call", lineno)
    args = list(positional)
    kwargs = dict(keywords)
    if ignore_tween and "tween" in signature.params:
        kwargs.pop("tween", None)
        at = signature.params.index("tween")
        if len(args) > at:
            for name, value in zip(signature.params[at + 1 :], args[at + 1 :], strict=False):
                kwargs[name] = value
            args = args[:at]
    try:
        signature.check_names(len(args), list(kwargs))
        values = [literal(value, public + "()") for value in args]
        named = {name: literal(value, public + "()") for name, value in kwargs.items()}
        name, bound = signature.bind(values, named)
    except ArgumentProblem as problem:
        prefix = f"line {lineno}: " if lineno is not None else ""
        raise ActionError(prefix + str(problem), "argument", lineno) from None
    return Action(name, bound, lineno)
