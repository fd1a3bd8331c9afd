"""GRPO-style group rollouts with fork, in Gymnasium terms.

The loop of the Drums guide "GRPO-style group rollouts with fork":

  1. Make one desktop for the task and reset it (its episode's gates pass).
  2. Run prefix actions to reach the state to branch from.
  3. ``parent.fork_vector(n)``: a vector env of n children forked from that state.
  4. Step the policy in every child; the children step concurrently.
  5. Keep only valid rewards (an invalid episode says nothing about the policy).
  6. Advantages within the group of valid rewards. Closing the envs deletes the children.

Run it (no DRUMS_URL: the embedded local host)::

    python examples/group_rollouts.py --n 4 --groups 2 --steps 3
"""

from __future__ import annotations

import argparse

import numpy as np

import drums_gym  # registers Drums/<task> ids
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.grpo import group_advantages

#: the action of a child whose episode already ended while the others go on: ignored
IDLE = "WAIT"


def policy(obs: np.ndarray, rng: np.random.Generator) -> str:
    """Stand-in for your model: one pyautogui action from a screenshot.

    Replace with a model call (see examples/llm_policy.py)."""
    height, width = obs.shape[:2]
    x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
    return f"pyautogui.moveTo({x}, {y})"


def run_group(group: drums_gym.DrumsForkVectorEnv, rng: np.random.Generator
              ) -> tuple[list[float], list[bool], list[str | None]]:
    """Roll the policy out in every child until each child's episode has ended.

    Returns each child's final reward, validity and invalid reason. With
    ``autoreset_mode="DISABLED"`` a child whose episode ended sits out the remaining steps
    (its action is ignored), so each child contributes exactly one episode.
    """
    n = group.num_envs
    obs, infos = group.reset()  # n fresh children forked from the parent's current state
    done = np.zeros(n, dtype=bool)
    rewards = [0.0] * n
    valid = [False] * n
    reasons: list[str | None] = [None] * n
    while not done.all():
        actions = [IDLE if done[i] else policy(obs[i], rng) for i in range(n)]
        obs, reward, terminated, truncated, infos = group.step(actions)
        for i in np.flatnonzero((terminated | truncated) & ~done):
            done[i] = True
            rewards[i] = float(reward[i])
            # Gymnasium's vector info convention: infos[key][i] is set where infos["_" + key][i]
            valid[i] = bool(infos["valid"][i])
            reasons[i] = infos["invalid_reason"][i] if not valid[i] else None
    return rewards, valid, reasons


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="e0df059f", help="task id (OSWorld: rename a folder)")
    parser.add_argument("--n", type=int, default=2, help="children per group (host limit: 8)")
    parser.add_argument("--groups", type=int, default=2, help="groups from the same state")
    parser.add_argument("--steps", type=int, default=3, help="steps per child's episode")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    # the parent desktop; closing it deletes it (and anything left on the host)
    parent = DrumsDesktopEnv(args.task, max_steps=args.steps)
    try:
        parent.reset(seed=args.seed)  # creates the desktop, waits until its gates pass
        parent.step("pyautogui.moveTo(960, 540)")  # prefix: shared by every copy
        group = parent.fork_vector(args.n, autoreset_mode="DISABLED")
        try:
            for g in range(args.groups):
                # group.reset() starts a new group from the same fork point
                rewards, valid, reasons = run_group(group, rng)
                advantages = group_advantages(rewards, valid)
                print(f"group {g + 1}: {sum(valid)} valid of {len(valid)} rollouts")
                for i, (r, ok, why) in enumerate(zip(rewards, valid, reasons, strict=True)):
                    if ok:
                        print(f"  child {i}: score {r:.2f}  advantage {advantages[i]:+.3f}")
                    else:
                        print(f"  child {i}: invalid ({why}), left out")
        finally:
            group.close()  # deletes the children and their saved state
    finally:
        parent.close()


if __name__ == "__main__":
    main()
