"""fork_vector past one fork: groups of several branch calls on real local hosts with raised
limits (issue 13, item 1)."""

from __future__ import annotations

import threading

import gymnasium as gym
import numpy as np
import pytest

import drums_gym  # noqa: F401
from drums_gym.client import connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.local.host import HostConfig

#: the brief's raised host: 40 live desktops, a fork limit of 8, 8 saved states
RAISED = HostConfig(
    live_desktops=40, host_desktops=40, fork_limit=8, saved_states=8, gate_delay_s=0.05
)
SMALL = (640, 480)  # small screens: many children on a shared machine
MOVE = "pyautogui.moveTo(7, 7)"


class BranchCounter:
    """Counts the branch calls the host itself serves (the real method runs)."""

    def __init__(self, server, monkeypatch) -> None:
        self.calls: list[int] = []
        self._lock = threading.Lock()
        real = server.model.branch

        def branch(workspace, slot_id, body, idempotency_key=None):
            with self._lock:
                self.calls.append(body.n)
            return real(workspace, slot_id, body, idempotency_key)

        monkeypatch.setattr(server.model, "branch", branch)


@pytest.fixture
def raised(make_host, monkeypatch):
    """``make(faults=None, seed=0, **env_kwargs)``: a raised host, a reset parent on it, and
    a counter of the host's branch calls."""
    made = []

    def make(faults=None, seed=0, config=RAISED, **kwargs):
        server = make_host(config, faults=faults, seed=seed)
        client = connect(url=server.url)
        parent = DrumsDesktopEnv("e0df059f", client=client, screen=SMALL, **kwargs)
        made.append((parent, client))
        parent.reset()
        return parent, server, BranchCounter(server, monkeypatch)

    yield make
    for parent, client in made:
        parent.close()
        client.close()


def test_fork_vector_20_comes_from_three_branch_calls_and_steps(raised):
    parent, server, branches = raised()
    vec = parent.fork_vector(20, autoreset_mode="DISABLED")
    try:
        obs, infos = vec.reset(seed=0)
        assert obs.shape == (20, 480, 640, 3) and infos["valid"].all()
        assert sorted(branches.calls) == [4, 8, 8], "at most the fork limit per branch call"
        ids = list(infos["slot_id"])
        assert len(set(ids)) == 20 and parent.slot.id not in ids
        assert server.model.counts() == {"live_desktops": 21, "saved_states": 3}
        _, rewards, terms, truncs, infos = vec.step([MOVE] * 19 + ["pyautogui.click("])
        assert not terms.any() and not truncs.any() and infos["valid"].all()
        assert infos["_action_error"].tolist() == [False] * 19 + [True]
        _, rewards, terms, _, infos = vec.step(["DONE"] * 20)
        assert terms.all() and infos["valid"].all() and (rewards == 0.0).all()
    finally:
        vec.close()
    assert server.model.counts() == {"live_desktops": 1, "saved_states": 0}, "only the parent"


def test_fork_vector_32_autoresets_ended_children_in_batches(raised):
    parent, server, branches = raised()
    vec = parent.fork_vector(32)  # NEXT_STEP
    try:
        _, infos = vec.reset()
        assert infos["valid"].all() and len(branches.calls) == 4
        first = list(infos["slot_id"])
        ended = list(range(3, 15))  # 12 children end on the same step
        actions = ["DONE" if i in ended else MOVE for i in range(32)]
        _, _, terms, _, _ = vec.step(actions)
        assert np.flatnonzero(terms).tolist() == ended
        branches.calls.clear()
        _, rewards, terms, truncs, infos = vec.step([MOVE] * 32)
        assert sorted(branches.calls) == [4, 8], "12 replacements in two branch calls, not 12"
        assert np.flatnonzero(infos["_slot_id"]).tolist() == ended
        assert all(infos["slot_id"][i] != first[i] for i in ended)
        assert [s.id for i, s in enumerate(vec.slots) if i not in ended] == [
            first[i] for i in range(32) if i not in ended
        ], "the others kept their desktops and stepped"
        assert not terms.any() and not truncs.any() and infos["valid"].all()
        assert server.model.counts()["live_desktops"] == 33
        branches.calls.clear()
        vec.step([MOVE] * 32)
        assert branches.calls == [], "nothing ended: no branch call"
    finally:
        vec.close()
    assert server.model.counts() == {"live_desktops": 1, "saved_states": 0}


def test_failed_children_are_retried_then_flagged_and_the_batch_keeps_its_size(raised):
    parent, server, branches = raised(faults="fork_child_fail=1.0")
    vec = parent.fork_vector(20, fork_retries=1)
    try:
        obs, infos = vec.reset()
        assert obs.shape[0] == 20 and not infos["valid"].any()
        assert set(infos["invalid_reason"]) == {"fork_failed"}
        assert sorted(branches.calls) == [4, 4, 8, 8, 8, 8], "one retry round for all 20"
        _, rewards, terms, truncs, infos = vec.step(["DONE"] * 20)
        assert truncs.all() and not terms.any() and not infos["valid"].any()
        assert server.model.counts() == {"live_desktops": 1, "saved_states": 0}
    finally:
        vec.close()


def test_some_failed_children_are_replaced_by_the_retry(raised):
    parent, server, branches = raised(faults="fork_child_fail=0.3", seed=5)
    vec = parent.fork_vector(24, fork_retries=2, autoreset_mode="DISABLED")
    try:
        obs, infos = vec.reset()
        assert obs.shape[0] == 24 and len(infos["valid"]) == 24
        assert len(branches.calls) > 3, "seed 5 fails some children on the first round"
        flagged = ~infos["valid"]
        assert set(infos["invalid_reason"][flagged]) <= {"fork_failed"}
        assert infos["valid"].sum() > 20, "retries brought most of them up"
        live = server.model.counts()["live_desktops"]
        assert live == 1 + int(infos["valid"].sum())
        _, _, terms, truncs, infos = vec.step(["DONE"] * 24)
        assert terms[~flagged].all() and truncs[flagged].all()
    finally:
        vec.close()
    assert server.model.counts() == {"live_desktops": 1, "saved_states": 0}


def test_n_above_the_quota_is_refused_before_anything_is_created(raised):
    parent, server, branches = raised()
    with pytest.raises(ValueError) as caught:
        parent.fork_vector(40)  # the parent holds one of the 40
    message = str(caught.value)
    for named in ("n=40", "quota of 40", "--live-desktops", "DRUMS_LOCAL_LIVE_DESKTOPS"):
        assert named in message
    assert branches.calls == []
    assert server.model.counts() == {"live_desktops": 1, "saved_states": 0}
    vec = parent.fork_vector(39, autoreset_mode="DISABLED")  # exactly what is left fits
    try:
        _, infos = vec.reset()
        assert infos["valid"].all() and server.model.counts()["live_desktops"] == 40
    finally:
        vec.close()


def test_too_few_saved_states_is_refused_with_how_to_raise_it(raised):
    config = HostConfig(live_desktops=40, host_desktops=40, fork_limit=4, saved_states=3,
                        gate_delay_s=0.05)
    parent, server, branches = raised(config=config)
    with pytest.raises(ValueError, match=r"saved-state quota of 3.*DRUMS_LOCAL_SAVED_STATES"):
        parent.fork_vector(13)  # four branch calls of at most 4
    assert branches.calls == [] and server.model.counts()["saved_states"] == 0


def test_keep_state_keeps_every_state_until_close(raised):
    parent, server, branches = raised(max_steps=1)
    vec = parent.fork_vector(10, keep_state=True)
    try:
        vec.reset()
        assert server.model.counts() == {"live_desktops": 11, "saved_states": 2}
        vec.step([MOVE] * 10)  # every child reaches its step limit
        vec.step([MOVE] * 10)  # ...and is replaced: two more states, the old ones kept
        assert sorted(branches.calls) == [2, 2, 8, 8]
        assert server.model.counts() == {"live_desktops": 11, "saved_states": 4}
    finally:
        vec.close()
    assert server.model.counts() == {"live_desktops": 1, "saved_states": 0}


def test_make_vec_past_one_fork(make_host, monkeypatch):
    server = make_host(RAISED)
    monkeypatch.setenv("DRUMS_URL", server.url)
    vec = gym.make_vec("Drums/e0df059f", num_envs=16, max_steps=2, screen=SMALL)
    try:
        obs, infos = vec.reset(seed=0)
        assert obs.shape == (16, 480, 640, 3) and infos["valid"].all()
        assert server.model.counts()["live_desktops"] == 17
        for _ in range(2):
            _, _, terms, truncs, _ = vec.step([MOVE] * 16)
        assert truncs.all()
    finally:
        vec.close()
    assert server.model.counts() == {"live_desktops": 0, "saved_states": 0}


# -- observation batches: fresh to the caller, recycled only once released ------------------


def _moves(k: int, n: int) -> list[str]:
    return [f"pyautogui.moveTo({100 + 40 * k + 5 * i}, {100 + 30 * k})" for i in range(n)]


def _held_batches_stay_intact(vec, steps: int = 4) -> bool:
    """Keep every batch (whole, a row view, a memoryview) and check none changes later."""
    vec.reset()
    held = []
    for k in range(steps):
        obs = vec.step(_moves(k, 3))[0]
        held.append((obs, obs.copy()))
        held.append((obs[1], obs[1].copy()))
        held.append((np.asarray(memoryview(obs)), obs.copy()))
        del obs
    return all(np.array_equal(array, expected) for array, expected in held)


def test_observations_the_caller_holds_are_never_written_again(raised):
    parent, _, _ = raised()
    vec = parent.fork_vector(3, autoreset_mode="DISABLED")
    try:
        assert _held_batches_stay_intact(vec)
        # dropped batches are recycled: a loop that keeps nothing uses two batches' memory
        addresses = {vec.step(_moves(k, 3))[0].ctypes.data for k in range(6)}
        assert len(addresses) <= 2
        obs = vec.step(_moves(9, 3))[0]
        again = vec.step(_moves(10, 3))[0]
        assert not np.shares_memory(obs, again) and not np.array_equal(obs, again)
    finally:
        vec.close()


def _batches_show_the_screens(vec, steps: int = 5) -> bool:
    """Each step's batch is every child's screen as the host shows it (PNG), also when
    the batch is recycled memory the caller scribbled on before dropping it."""
    vec.reset()
    good = True
    for k in range(steps):
        obs = vec.step(_moves(k, 3))[0]
        shots = [slot.observe("png").array for slot in vec.slots]
        good = good and all(np.array_equal(obs[i], shot) for i, shot in enumerate(shots))
        obs[:] = 7  # the caller's own batch: it may write, then drop it
        del obs
    return good


def test_recycled_batches_show_the_screens(raised):
    parent, _, _ = raised()
    vec = parent.fork_vector(3, autoreset_mode="DISABLED")
    try:
        assert vec.unwrapped.parent.client.preferred_screenshot_format() == "raw"
        assert _batches_show_the_screens(vec)
    finally:
        vec.close()


def test_the_screen_check_catches_a_fill_that_copies_nothing(raised, monkeypatch):
    """A planted break: a row filled ahead must hold the child's last frame."""
    from drums_gym.client import Slot

    parent, _, _ = raised()
    monkeypatch.setattr(Slot, "copy_frame", lambda self, out: self._raw_base[0])
    vec = parent.fork_vector(3, autoreset_mode="DISABLED")
    try:
        assert not _batches_show_the_screens(vec)
    finally:
        vec.close()


def test_the_held_batch_check_catches_a_pool_that_ignores_references(raised, monkeypatch):
    """A planted break: a pool that reuses batches still referenced must be caught."""
    from drums_gym.envs import _frames

    parent, _, _ = raised()
    monkeypatch.setattr(_frames, "_ONLY_OURS", 10**6)  # every batch looks released
    vec = parent.fork_vector(3, autoreset_mode="DISABLED")
    try:
        assert not _held_batches_stay_intact(vec)
    finally:
        vec.close()


def test_the_batched_observation_space_needs_no_memory_per_child(raised):
    parent, _, _ = raised()
    vec = parent.fork_vector(20, autoreset_mode="DISABLED")
    try:
        space = vec.observation_space
        assert space == gym.vector.utils.batch_space(parent.observation_space, 20)
        assert space.shape == (20, 480, 640, 3) and space.dtype == np.uint8
        assert space.low.strides[0] == 0 and space.high.strides[0] == 0
        obs, _ = vec.reset()
        assert space.contains(obs) and not space.contains(obs[:3])
        assert space.sample().shape == space.shape
    finally:
        vec.close()


def test_make_vec_above_the_quota_names_it_and_leaves_nothing(make_host, monkeypatch):
    server = make_host(RAISED)
    monkeypatch.setenv("DRUMS_URL", server.url)
    with pytest.raises(ValueError, match="n=40") as caught:
        gym.make_vec("Drums/e0df059f", num_envs=40, screen=SMALL)
    assert "DRUMS_LOCAL_LIVE_DESKTOPS" in str(caught.value)
    assert server.model.counts() == {"live_desktops": 0, "saved_states": 0}, "parent closed"
