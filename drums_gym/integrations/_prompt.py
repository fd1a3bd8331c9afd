"""OSWorld's pyautogui prompt convention: the system prompt, each step's message, the reply.

The model gets a system prompt (what it controls, how to answer, the task), the last few
turns, and the current observation; it answers Python in a fenced block, or one of the words
``DONE``, ``FAIL``, ``WAIT`` (OSWorld's ``mm_agents`` "pyautogui" action space, reworded).
Nothing here does I/O: `system_prompt`, `user_message` and `parse_reply` are pure.

>>> parse_reply("I will click the folder.\\n```python\\npyautogui.click(10, 20)\\n```")
(['pyautogui.click(10, 20)'], None)
>>> parse_reply("The task is finished.\\n```DONE```")
(['DONE'], None)
>>> parse_reply("hmm")[0]
[]
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

import numpy as np
from PIL import Image

from ..accessibility import to_xml

__all__ = [
    "CONTROL_WORDS",
    "OBSERVATIONS",
    "Observation",
    "linearize",
    "parse_reply",
    "png_data_url",
    "system_prompt",
    "user_message",
]

Observation = Literal["screenshot", "screenshot_a11y_tree", "a11y_tree"]
#: OSWorld's observation types this policy speaks
OBSERVATIONS: tuple[str, ...] = ("screenshot", "screenshot_a11y_tree", "a11y_tree")
CONTROL_WORDS: tuple[str, ...] = ("DONE", "FAIL", "WAIT")

_SEES = {
    "screenshot": "a screenshot of the computer's screen",
    "screenshot_a11y_tree": "a screenshot of the computer's screen and its accessibility tree "
    "(one row per element on screen: role, name, text, description, the top-left corner and "
    "the size in pixels)",
    "a11y_tree": "the accessibility tree of the computer's screen (one row per element on "
    "screen: role, name, text, description, the top-left corner and the size in pixels)",
}

_SYSTEM = """\
You are an agent that does tasks on a desktop computer for me, following my instructions. \
You know computers well, and the code you write runs on that computer, where it controls \
the mouse and the keyboard. At each step you get {sees}, and you decide the next action \
from it.

Act with the Python library `pyautogui`. Do not call `pyautogui.locateCenterOnScreen` \
(there are no reference images of elements) and do not call `pyautogui.screenshot()`. Read \
the coordinates you need from the observation yourself, and make sure they are right. The \
screen is {width} pixels wide and {height} pixels high; (0, 0) is its top-left corner.

Each answer is one self-contained piece of code: nothing carries over from earlier steps. \
Only `import pyautogui`, `import time`, calls of `pyautogui` functions and `time.sleep(...)` \
with literal arguments run: no variables, loops, conditions or other modules. When an \
action needs time to take effect, put `time.sleep(0.5)` after it.

Return the code in a fenced block, like this:
```python
# your code here
```
Instead of code you may return one of these special codes, in a fenced block of its own:
- ```WAIT``` when you have to wait for something to finish;
- ```FAIL``` when the task cannot be done (try hard before you decide that);
- ```DONE``` when the task is complete.
{password}
First reflect briefly on the current screen and on what has been done so far, then give \
the code or the special code. Never give anything else as the action.

The task you are asked to complete: {instruction}"""

_ASK = {
    "screenshot": "Here is the screenshot. What is the next step to do the task?",
    "screenshot_a11y_tree": "Here are the screenshot and the accessibility tree:\n{tree}\n"
    "What is the next step to do the task?",
    "a11y_tree": "Here is the accessibility tree:\n{tree}\nWhat is the next step to do the task?",
}

_TABLE_HEAD = "role\tname\ttext\tdescription\tposition (top-left x, y)\tsize (w, h)"


def system_prompt(
    instruction: str, observation: Observation, width: int, height: int,
    password: str | None = "password",
) -> str:
    """The system message: what the model controls, the answer format, the task."""
    said = (f"\nThe computer's password is '{password}'; use it when sudo asks for one.\n"
            if password else "")
    return _SYSTEM.format(sees=_SEES[observation], width=width, height=height,
                          password=said, instruction=instruction)


def _visible(node: Mapping[str, Any]) -> bool:
    states = node.get("states", ())
    return "showing" in states and "visible" in states


def _rows(node: Mapping[str, Any]) -> Iterator[str]:
    if _visible(node) and (node.get("name") or node.get("text")):
        (x, y), (w, h) = node.get("position", (0, 0)), node.get("size", (0, 0))
        cells = [str(node.get("role", "")), str(node.get("name", "")),
                 str(node.get("text") or ""), str(node.get("description") or ""),
                 f"({x}, {y})", f"({w}, {h})"]
        yield "\t".join(c.replace("\t", " ").replace("\n", "\\n") for c in cells)
    for child in node.get("children", ()):
        yield from _rows(child)


def linearize(tree: Mapping[str, Any], fmt: Literal["table", "xml"] = "table",
              max_chars: int = 40_000) -> str:
    """The tree as text for the model: OSWorld's table (one tab-separated row per visible
    element with a name or text) or its XML (`drums_gym.accessibility.to_xml`), cut at
    ``max_chars`` with a note saying so."""
    text = to_xml(tree) if fmt == "xml" else "\n".join([_TABLE_HEAD, *_rows(tree)])
    if len(text) > max_chars:
        text = text[:max_chars] + "\n[... accessibility tree cut here: too long ...]"
    return text


def png_data_url(observation: np.ndarray) -> str:
    """The screenshot as a ``data:image/png;base64,...`` URL."""
    buf = io.BytesIO()
    Image.fromarray(observation).save(buf, format="PNG", compress_level=3)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def user_message(
    observation: Observation,
    screenshot: np.ndarray | None,
    tree_text: str | None,
    previous_error: str | None = None,
) -> dict[str, Any]:
    """This step's user message: the question, the tree as text, the screenshot as an
    ``image_url`` content block (OpenAI's chat format), and the previous action's error."""
    text = _ASK[observation].format(tree=tree_text or "")
    if previous_error:
        text = f"Your previous action was not run: {previous_error}\n\n{text}"
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if screenshot is not None:
        content.append({"type": "image_url",
                        "image_url": {"url": png_data_url(screenshot), "detail": "high"}})
    return {"role": "user", "content": content}


_FENCE = re.compile(r"```(.*?)```", re.DOTALL)
_LANGS = ("python", "python3", "py")
#: the words that end an episode: nothing after them in a reply is run
_ENDING = ("DONE", "FAIL")


def _word(text: str) -> str | None:
    """``text`` as a control word (OSWorld compares it exactly, after stripping), else None."""
    word = text.strip()
    return word if word in CONTROL_WORDS else None


def _block_body(block: str) -> str:
    """A fenced block's content without its language tag."""
    first, sep, rest = block.partition("\n")
    if sep and first.strip().lower() in (*_LANGS, ""):
        return rest.strip()
    tag, _, tail = first.strip().partition(" ")
    if not sep and tag.lower() in _LANGS:
        return tail.strip()  # ```python pyautogui.click(1, 2)```
    return block.strip()


def _block_actions(body: str) -> list[str]:
    """One fenced block's actions, by OSWorld's rule: the block is a control word; or its
    last line (or the last ``;``-separated statement of it) is one, after the code
    before it; or it is code."""
    word = _word(body)
    if word:
        return [word]
    lines = body.split("\n")
    code, sep, last = lines[-1].rpartition(";")
    word = _word(last)
    if word:
        before = "\n".join([*lines[:-1], code] if sep else lines[:-1]).strip()
        return [before, word] if before else [word]
    return [body]


def parse_reply(reply: str) -> tuple[list[str], str | None]:
    """``(actions, problem)`` for a model's reply, by OSWorld's rule (``mm_agents/agent.py``,
    ``parse_code_from_string``): the whole reply is ``DONE``, ``FAIL`` or ``WAIT``; else
    each fenced block, in order, is a control word, or code followed by a control word
    on its last line, or code. Text outside the blocks is never an action: a reply that
    ends in a bare "DONE" after its reasoning has none (the prompt asks for ```DONE```).

    The actions are run one per step, in order: adjacent code is joined into one action,
    and nothing after ``DONE`` or ``FAIL`` is kept (the episode ends there). A reply
    with no action answers ``([], problem)``.

    >>> parse_reply("Renamed.\\n```python\\npyautogui.press('enter')\\nDONE\\n```")
    (["pyautogui.press('enter')", 'DONE'], None)
    >>> parse_reply("The folder is renamed. DONE")[0]
    []
    """
    if not isinstance(reply, str) or not reply.strip():
        return [], "the model's reply is empty"
    word = _word(reply)
    if word:
        return [word], None
    actions: list[str] = []
    for block in _FENCE.findall(reply):
        body = _block_body(block)
        if not body:
            continue
        for action in _block_actions(body):
            if actions and action not in CONTROL_WORDS and actions[-1] not in CONTROL_WORDS:
                actions[-1] += "\n" + action  # one piece of code, as OSWorld runs it
            else:
                actions.append(action)
            if action in _ENDING:
                return actions, None
    if actions:
        return actions, None
    return [], ("the model's reply holds no fenced code block and is not DONE, FAIL or "
                "WAIT (a control word after text must be fenced: ```DONE```)")
