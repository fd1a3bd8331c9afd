"""A model-policy evaluation's output folder, for the tests of what reaches the report.

`model_eval(folder, host_url, suite=...)` runs the real CLI, ``drums-gym eval --policy
openai:MODEL --record --out DIR``, against a loopback stand-in of an OpenAI-compatible
server (`openai_server.StandIn`) that answers the rename of e0df059f in two replies: the
first a fenced block of code, the second the word ```DONE```. The replies are `REPLIES`;
`TOKENS` their (prompt, completion) token counts.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path
from typing import Any

from openai_server import Reply, StandIn

from drums_gym.cli import main

__all__ = ["INSTRUCTION_START", "MODEL", "REPLIES", "TASK", "TOKENS", "model_eval"]

TASK = "e0df059f"
MODEL = "standin-vlm"
INSTRUCTION_START = 'I have a directory named "todo_list_Jan_1"'
REPLIES = [
    "The folder is at the top left: select it, press F2 and type the name.\n```python\n"
    "pyautogui.click(142, 98)\npyautogui.press('f2')\npyautogui.hotkey('ctrl', 'a')\n"
    "pyautogui.write('todo_list_Jan_2')\npyautogui.press('enter')\n```",
    "The folder <b>todo_list_Jan_2</b> is there now.\n```DONE```",
]
TOKENS = [(1234, 56), (1300, 9)]
KEY_ENV = "DRUMS_MODEL_RUN_KEY"


def model_eval(folder: Path, host_url: str, *, suite: bool) -> dict[str, Any]:
    """Run the evaluation into ``folder`` (``--tasks`` when ``suite``, else ``--task``);
    returns its ``--json`` summary."""
    replies = [Reply.text(r, *t) for r, t in zip(REPLIES, TOKENS, strict=True)]
    where = ["--tasks", TASK] if suite else ["--task", TASK, "--episodes", "1"]
    out = io.StringIO()
    os.environ[KEY_ENV] = "sk-model-run-test"
    try:
        with StandIn(replies) as server, contextlib.redirect_stdout(out):
            code = main([
                "eval", *where, "--num-envs", "1", "--steps", "4",
                "--policy", f"openai:{MODEL}", "--base-url", server.url,
                "--api-key-env", KEY_ENV, "--record", "--out", str(folder),
                "--url", host_url, "--json", "--no-progress",
            ])
    finally:
        os.environ.pop(KEY_ENV, None)
    if code != 0:
        raise RuntimeError(f"drums-gym eval exited {code}: {out.getvalue()}")
    return json.loads(out.getvalue().split("\nreport ")[0])
