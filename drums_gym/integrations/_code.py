"""Reading the action out of a model's reply: pyautogui code, or DONE/FAIL/WAIT."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["completion_code"]

_FENCE = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.DOTALL)


def completion_code(completion: Any) -> str:
    """The code of a completion: its first fenced block if it has one, else its text.

    A conversational completion (a list of messages) is read from its last message.

    >>> completion_code("Sure:\\n```python\\npyautogui.click(5, 5)\\n```\\nDone.")
    'pyautogui.click(5, 5)'
    >>> completion_code([{"role": "assistant", "content": "DONE"}])
    'DONE'
    """
    if isinstance(completion, list):
        completion = completion[-1].get("content", "") if completion else ""
        if isinstance(completion, list):  # content blocks
            completion = "".join(p.get("text", "") for p in completion if isinstance(p, dict))
    text = completion if isinstance(completion, str) else ""
    match = _FENCE.search(text)
    return (match.group(1) if match else text).strip()
