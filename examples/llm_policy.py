"""A language-model policy: screenshot + instruction in, pyautogui code out.

Each step the policy

  1. downscales the screenshot and encodes it as a base64 PNG,
  2. builds a chat prompt (OpenAI-style messages) with the instruction, the image and
     the last few replies,
  3. calls the model,
  4. parses the reply by OSWorld's rule, the one `OpenAIPolicy` uses
     (``drums_gym.integrations.models.parse_reply``): the whole reply is DONE, FAIL or
     WAIT; else each fenced block is code, a control word (```DONE```), or code with a
     control word on its last line. Its actions run one per step (code, then DONE);
     a reply with none is WAIT.

The model here is a stand-in with canned replies (no network): on the first turn it
renames the folder (click the icon, F2, type the new name, Enter), then it says ```DONE```.
Swap ``stand_in_model`` for a function that calls your model; the rest stays.

Run it (no DRUMS_URL: the embedded local host)::

    python examples/llm_policy.py --steps 5
"""

from __future__ import annotations

import argparse
import base64
import io
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from PIL import Image

import drums_gym  # noqa: F401  (registers the Drums/<task> ids)
from drums_gym.integrations.models import parse_reply

#: a chat model: OpenAI-style messages in, the reply's text out
Model = Callable[[list[dict[str, Any]]], str]

SYSTEM_PROMPT = """You control an Ubuntu desktop with pyautogui.
Answer with one ```python code block of pyautogui calls, or with a block of one word:
```DONE``` when the task is complete, ```FAIL``` when it cannot be done, ```WAIT``` to let
the screen settle.
Coordinates are pixels of the full {width}x{height} screen (the image is downscaled)."""



def downscale(obs: np.ndarray, max_width: int = 960) -> Image.Image:
    """The screenshot as an image at most ``max_width`` pixels wide (what the model sees)."""
    image = Image.fromarray(obs)
    if image.width > max_width:
        height = round(image.height * max_width / image.width)
        image = image.resize((max_width, height), Image.Resampling.LANCZOS)
    return image


def encode_screenshot(obs: np.ndarray, max_width: int = 960) -> str:
    """The screenshot downscaled to at most ``max_width`` pixels wide, as base64 PNG."""
    image = downscale(obs, max_width)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def build_prompt(instruction: str, obs: np.ndarray, history: list[str],
                 max_width: int = 960) -> list[dict[str, Any]]:
    """Chat messages: the system prompt, earlier replies, and this step's image + task."""
    height, width = obs.shape[:2]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT.format(width=width, height=height)},
    ]
    for reply in history:
        messages.append({"role": "assistant", "content": reply})
    messages.append({
        "role": "user",
        "content": [
            {"type": "text", "text": f"Task: {instruction}"},
            {"type": "image_url", "image_url": {
                "url": "data:image/png;base64," + encode_screenshot(obs, max_width)}},
        ],
    })
    return messages


def stand_in_model(messages: list[dict[str, Any]]) -> str:
    """Canned replies in place of a model call: rename the folder, then DONE.

    A real model reads the screenshot; this one only looks at whether it already
    answered in this conversation."""
    if any(m["role"] == "assistant" for m in messages):
        return "The folder is now named todo_list_Jan_2.\n```DONE```"
    return (
        "The folder todo_list_Jan_1 is at the top left of the desktop. I will select it, "
        "press F2 and type the new name.\n"
        "```python\n"
        "pyautogui.click(142, 98)\n"
        "pyautogui.press('f2')\n"
        "pyautogui.hotkey('ctrl', 'a')\n"
        "pyautogui.write('todo_list_Jan_2')\n"
        "pyautogui.press('enter')\n"
        "```"
    )


class LLMPolicy:
    """``policy(observation, instruction) -> action`` backed by a chat model.

    Keeps the last ``history`` replies of the current episode in the prompt; call
    :meth:`reset` when an episode starts. A reply's further actions (the ```DONE``` after
    its code) are answered at the next calls, without asking the model again.
    """

    def __init__(self, model: Model = stand_in_model, max_width: int = 960,
                 history: int = 4) -> None:
        self.model = model
        self.max_width = max_width
        self.history_size = history
        self.history: list[str] = []
        self.pending: list[str] = []
        self.last_reply: str | None = ""

    def reset(self) -> None:
        self.history = []
        self.pending = []

    def step_extras(self) -> dict[str, Any]:
        """What an evaluation records with the step (``drums-gym eval --record``)."""
        return {"reply": self.last_reply}

    def __call__(self, observation: np.ndarray, instruction: str) -> str:
        if self.pending:  # the rest of the last reply
            self.last_reply = None
            return self.pending.pop(0)
        messages = build_prompt(instruction, observation, self.history, self.max_width)
        self.last_reply = self.model(messages)
        self.history = [*self.history, self.last_reply][-self.history_size:]
        actions, _problem = parse_reply(self.last_reply)
        self.pending = actions[1:]
        return actions[0] if actions else "WAIT"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="e0df059f")
    parser.add_argument("--steps", type=int, default=5, help="step budget of the episode")
    parser.add_argument("--max-width", type=int, default=960, help="width of the prompt image")
    args = parser.parse_args()

    policy = LLMPolicy(max_width=args.max_width)
    env = gym.make(f"Drums/{args.task}", max_episode_steps=args.steps)
    try:
        obs, info = env.reset(seed=0)
        instruction = info["instruction"]  # reset's info carries the task's instruction
        policy.reset()
        print(f"task: {instruction}")
        prompt = build_prompt(instruction, obs, [], args.max_width)
        image_url = prompt[-1]["content"][1]["image_url"]["url"]
        sent = downscale(obs, args.max_width)
        print(f"prompt: {len(prompt)} messages, screenshot {obs.shape[1]}x{obs.shape[0]} "
              f"sent as a {sent.width}x{sent.height} PNG ({len(image_url) // 1024} KiB "
              "base64)")
        for step in range(1, args.steps + 1):
            action = policy(obs, instruction)
            said = ("(the rest of the last reply)" if policy.last_reply is None
                    else repr(policy.last_reply.splitlines()[0]))
            print(f"step {step}: model said {said}")
            print("  action: " + action.replace("\n", "\n          "))
            obs, reward, terminated, truncated, info = env.step(action)
            if info.get("action_error"):
                print(f"  action error: {info['action_error']}")
            if terminated or truncated:
                break
        print(f"episode ended after {step} steps: score {float(reward):.1f}, "
              f"valid {info['valid']}"
              + ("" if info["valid"] else f" ({info['invalid_reason']})"))
    finally:
        env.close()


if __name__ == "__main__":
    main()
