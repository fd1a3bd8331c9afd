"""`DrumsTaskset`: the Drums host's tasks as a verifiers (v1) taskset."""

from __future__ import annotations

from collections.abc import Iterator

import verifiers.v1 as vf
from pydantic import Field

from ...client import connect

__all__ = ["SYSTEM_PROMPT", "DrumsData", "DrumsTask", "DrumsTaskset", "DrumsTasksetConfig"]

SYSTEM_PROMPT = (
    "You operate an Ubuntu desktop to do the user's task. Each turn you see the screen "
    "(a screenshot, and its accessibility tree as a table of elements with their "
    "positions). Answer with exactly ONE action: pyautogui code in a ```python block "
    "(pyautogui.click(x, y), pyautogui.doubleClick(x, y), pyautogui.write('text'), "
    "pyautogui.press('enter'), pyautogui.hotkey('ctrl', 'alt', 't'), pyautogui.scroll(-3), "
    "...), or one word: DONE when the task is complete, FAIL if it cannot be done, WAIT "
    "to let the screen settle."
)


class DrumsTasksetConfig(vf.TasksetConfig):
    """Which Drums tasks, from which host (``--env.taskset.tasks``, ``--env.taskset.url``)."""

    tasks: list[str] = Field(default_factory=list)
    """Task ids (full or their first 8 characters); empty: every task the host serves."""
    url: str | None = None
    """The Drums host; None: ``DRUMS_URL``, else the embedded local host. The token is
    read from ``DRUMS_TOKEN`` only, so it never lands in a saved config or trace."""


class DrumsData(vf.TaskData):
    """A task row: the Drums task id beside verifiers' fields."""

    drums_task: str
    """The Drums task id (full)."""


class DrumsTask(vf.Task[DrumsData, vf.State, vf.TaskConfig]):
    """A Drums task; :class:`DrumsEnv` plays it on a desktop and records its score."""


class DrumsTaskset(vf.Taskset[DrumsTask, DrumsTasksetConfig]):
    """One row per Drums task: its instruction is the prompt, its id the ``drums_task``."""

    def load(self) -> Iterator[DrumsTask]:
        with connect(url=self.config.url) as client:
            infos = client.tasks()
        wanted = [t.strip().lower() for t in self.config.tasks]
        by_id = {t.id: t for t in infos}
        if wanted:
            chosen = []
            for want in wanted:
                match = [t for t in infos if t.id == want or t.short_id == want[:8]]
                if not match:
                    known = ", ".join(sorted(t.short_id for t in infos))
                    raise ValueError(f"task {want!r} is not on the Drums host; it has {known}")
                chosen.append(match[0].id)
        else:
            chosen = [t.id for t in infos]
        for task_id in chosen:
            info = by_id[task_id]
            yield DrumsTask(
                DrumsData(
                    id=info.id,
                    name=info.short_id,
                    description=info.instruction,
                    prompt=info.instruction,
                    system_prompt=SYSTEM_PROMPT,
                    drums_task=info.id,
                ),
                self.config.task,
            )
