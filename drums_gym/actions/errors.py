"""`ActionError`: why a pyautogui code string was refused.

``construct`` is a short machine-readable name for what was refused; ``str(error)`` is the
message for people (and for policies, which see it in ``info["action_error"]``).

================  ==========================================================================
construct         refused
================  ==========================================================================
``syntax``        code that is not valid Python (``lineno`` and column in the message)
``limit``         code, statement count or event count above the limits, too deep nesting
``type``          an action that is not a ``str``
``statement``     a statement other than a call, ``import pyautogui``/``time`` or ``pass``
``import``        imports of other modules, ``from`` imports, aliases
``name``          a bare name (``os``, ``x``)
``attribute``     an attribute chain other than ``pyautogui.<function>``/``time.sleep``
``call``          a call to anything but an allowed function (``open()``, ``__import__()``)
``lambda``        a lambda
``comprehension`` list/set/dict comprehensions, generator expressions
``f-string``      an f-string with expressions
``walrus``        an assignment expression (``:=``)
``subscript``     indexing or slicing
``operator``      arithmetic, comparisons, boolean operators (arguments must be literals)
``starred``       ``*args`` / ``**kwargs`` unpacking
``literal``       literals of other types (bytes, complex, ``...``)
``expression``    any other expression (dict/set displays, conditional expressions, ...)
``argument``      a wrong argument: unknown keyword, too many, wrong type or value, a tween
``computer_13``   a computer_13 action OSWorld's controller refuses (unknown type, parameters)
================  ==========================================================================
"""

from __future__ import annotations

__all__ = ["CONSTRUCTS", "ActionError"]

CONSTRUCTS: tuple[str, ...] = (
    "syntax",
    "limit",
    "type",
    "statement",
    "import",
    "name",
    "attribute",
    "call",
    "lambda",
    "comprehension",
    "f-string",
    "walrus",
    "subscript",
    "operator",
    "starred",
    "literal",
    "expression",
    "argument",
    "computer_13",
)
"""Every value ``ActionError.construct`` takes."""


class ActionError(ValueError):
    """A pyautogui code string the action language refuses.

    >>> err = ActionError("line 1: call to open() is not allowed", "call", 1)
    >>> err.construct, err.lineno
    ('call', 1)
    """

    construct: str
    lineno: int | None

    def __init__(self, message: str, construct: str, lineno: int | None = None) -> None:
        super().__init__(message)
        self.construct = construct
        self.lineno = lineno

    def __reduce__(self) -> tuple[type[ActionError], tuple[str, str, int | None]]:
        # keeps construct and lineno across pickling (errors cross process boundaries)
        return (type(self), (str(self), self.construct, self.lineno))
