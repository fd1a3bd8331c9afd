"""The soak: 8 forks stepped for ``--soak-steps`` vector steps (default 2,000) under mixed
faults, with NEXT_STEP autoreset forking a new child whenever an episode ends.

Nothing may grow with the run: process memory (RSS), threads, live desktops and saved
states on the host, and what the client tracks. Skipped unless ``pytest --soak``::

    .venv/bin/pytest tests/reliability/test_soak.py --soak --soak-steps 2000
"""

from __future__ import annotations

import gc
import random
from collections import Counter

import numpy as np
import pytest
from reliability import assert_threads_back, client_threads, rss_mb

from drums_gym.client import connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.local.host import HostConfig
from drums_gym.wrappers import DrumsVectorEpisodeStatistics

pytestmark = [pytest.mark.soak, pytest.mark.timeout(3600)]

FORKS = 8
MAX_STEPS = 8
FAULTS = (
    "gate_fail=0.03,crash=0.02,oom=0.02,quarantine=0.02,fork_child_fail=0.05,"
    "overload=0.05,retry_after_ms=1"
)
#: RSS may wander (allocator, caches) but not grow with the number of steps
RSS_SLACK_MB = 96.0


def action(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.08:
        return "DONE"
    if roll < 0.12:
        return "pyautogui.click("  # a bad action is data
    if roll < 0.4:
        return f"pyautogui.click({rng.randrange(640)}, {rng.randrange(480)})"
    if roll < 0.5:
        return rng.choice(["pyautogui.press('f2')", "pyautogui.press('esc')",
                           "pyautogui.hotkey('ctrl', 'a')", "pyautogui.write('todo')"])
    return f"pyautogui.moveTo({rng.randrange(640)}, {rng.randrange(480)})"


def test_forks_soak_under_mixed_faults(make_host, soak_steps):
    server = make_host(HostConfig(gate_delay_s=0.01), faults=FAULTS, seed=7)
    threads_before = client_threads()
    rng = random.Random(0)
    samples: list[dict[str, float]] = []
    warmup = max(50, soak_steps // 10)
    every = max(10, soak_steps // 40)
    with connect(url=server.url, max_retries=30) as client:
        parent = DrumsDesktopEnv("e0df059f", client=client, max_steps=MAX_STEPS,
                                 screen=(640, 480), wait_s=0.0)
        parent.reset(seed=0)
        envs = DrumsVectorEpisodeStatistics(parent.fork_vector(FORKS), buffer_length=50)
        try:
            envs.reset(seed=0)
            for step in range(1, soak_steps + 1):
                envs.step([action(rng) for _ in range(FORKS)])
                if step % every == 0 or step == warmup:
                    gc.collect()
                    counts = server.model.counts()
                    owned_slots, owned_states = client._session.owned()
                    samples.append({
                        "step": step,
                        "rss": rss_mb(),
                        "threads": len(client_threads()),
                        "desktops": counts["live_desktops"],
                        "states": counts["saved_states"],
                        "owned_slots": len(owned_slots),
                        "owned_states": len(owned_states),
                    })
        finally:
            envs.close()
            parent.close()
    assert_threads_back(threads_before)

    after = [s for s in samples if s["step"] >= warmup]
    base = after[0]
    report = "\n".join(str(s) for s in after)
    assert envs.episode_count > soak_steps // MAX_STEPS, "episodes ended and were replaced"
    assert envs.invalid_count > 0 and envs.valid_count > 0, dict(envs.invalid_reasons)
    assert set(envs.invalid_reasons) <= {
        "gate_failed", "app_crash", "oom_killed", "quarantined", "fork_failed"}, Counter(
        envs.invalid_reasons)
    for sample in after:
        assert sample["desktops"] <= 1 + FORKS, report
        assert sample["states"] <= FORKS, report
        assert sample["owned_slots"] <= 1 + FORKS, report
        assert sample["owned_states"] <= FORKS, report
        assert sample["threads"] <= base["threads"], report
    growth = max(s["rss"] for s in after[len(after) // 2:]) - base["rss"]
    assert growth < RSS_SLACK_MB, f"RSS grew {growth:.0f} MiB over the run:\n{report}"
    # and the second half grows no faster than noise: a leak shows as a steady slope
    half = after[len(after) // 2:]
    slope = np.polyfit([s["step"] for s in half], [s["rss"] for s in half], 1)[0]
    assert slope * soak_steps < RSS_SLACK_MB, f"RSS climbs {slope * 1000:.2f} MiB/1000 steps"
