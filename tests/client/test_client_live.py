"""The client against the real local host over loopback: the seed's loops, ported.

Every test leaves its host with no live desktops and no saved states (the `make_host`
fixture checks it at teardown).
"""

from __future__ import annotations

import logging
import random
import statistics
import threading
import time

import numpy as np
import pytest
from a11y import center, find

from drums_gym import client as drums
from drums_gym.local.host import HostConfig

TASK = "e0df059f"  # OSWorld: rename a folder on the Desktop
N = 2
STEPS = 3
RENAME = ("pyautogui.click({x}, {y})\npyautogui.press('f2')\npyautogui.hotkey('ctrl', 'a')\n"
          "pyautogui.write('{name}')\npyautogui.press('enter')")


def solve(slot: drums.Slot, name: str = "todo_list_Jan_2") -> drums.StepResult:
    x, y = center(find(slot.accessibility()["tree"], "todo_list_Jan_1"))
    return slot.step(RENAME.format(x=x, y=y, name=name))


def counts(server) -> dict[str, int]:
    return server.model.counts()


# -- the seed's group-rollout loop, ported by changing the import -----------------------------


def policy(obs: drums.Observation, rng: random.Random) -> str:
    """Stand-in for a model: one pyautogui action from a screenshot."""
    x, y = rng.randrange(0, obs.width), rng.randrange(0, obs.height)
    return f"pyautogui.moveTo({x}, {y})"


def rollout(child: drums.Slot, seed: int) -> drums.Reward:
    rng = random.Random(seed)
    child.wait_valid()  # each child is a new episode: let its gates resolve
    for _ in range(STEPS):
        child.step(policy(child.observe(), rng))
    if seed == 0:
        solve(child)  # one rollout of the group succeeds, so the advantages differ
    return child.verify(strict=False)


def test_group_rollouts_with_fork(local_host):
    with drums.connect(local_host.url) as client, client.create(task=TASK, ttl=900) as parent:
        parent.wait_valid()
        parent.step("pyautogui.moveTo(960, 540)")  # prefix: shared by every copy
        with parent.fork(N, keep_state=False) as group:
            assert counts(local_host) == {"live_desktops": 3, "saved_states": 1}
            assert [c.parent for c in group] == [parent.id] * N
            pairs = list(zip(group, range(N), strict=True))
            rewards = client.map(lambda pair: rollout(*pair), pairs, workers=N)
        assert counts(local_host) == {"live_desktops": 1, "saved_states": 0}
    failed = [r for r in rewards if isinstance(r, Exception)]
    assert failed == []
    valid = [r for r in rewards if isinstance(r, drums.Reward) and r.valid]
    assert len(valid) == N
    scores = [float(r.score) for r in valid]
    mean, std = statistics.fmean(scores), statistics.pstdev(scores)
    advantages = [(s - mean) / (std + 1e-6) for s in scores]
    assert scores == [1.0, 0.0]
    assert advantages[0] == pytest.approx(1.0, abs=1e-4)
    assert advantages[1] == pytest.approx(-1.0, abs=1e-4)


def test_several_groups_from_one_desktop(local_host):
    with drums.connect(local_host.url) as client, client.create(task=TASK, ttl=900) as parent:
        numbers = []
        for _ in range(2):
            numbers.append(parent.wait_valid().number)
            with parent.fork(2, keep_state=False) as group:
                rewards = client.map(lambda k: k.verify(strict=False), group)
            # a child verified before its gates resolve is not valid (reason "pending")
            assert all(isinstance(r, drums.Reward) for r in rewards), rewards
            assert all(r.score == 0.0 if r.valid else r.reason == "pending" for r in rewards)
            episode = parent.reset()
            assert episode.pending
        assert numbers == [1, 2]


def test_invalid_rollouts_are_dropped_not_scored(make_host):
    server = make_host(faults="gate_fail=0.5", seed=3)
    with drums.connect(server.url) as client, client.create(TASK) as parent:
        try:
            parent.wait_valid()
        except drums.InvalidEpisode:
            parent.reset()
            parent.wait_episode()
        with parent.fork(6, keep_state=False) as group:
            rewards = client.map(lambda k: (k.wait_episode(), k.verify(strict=False))[1], group)
    assert all(isinstance(r, drums.Reward) for r in rewards)
    reasons = {r.reason for r in rewards if not r.valid}
    assert reasons <= {"gate_failed"}
    valid = [r for r in rewards if r.valid]
    assert 0 < len(valid) < len(rewards), "seed 3 should mix valid and invalid children"


# -- one desktop: step, observe, verify -----------------------------------------------------


def test_step_observe_verify_solve(local_host):
    with drums.connect(local_host.url) as client:
        [task] = [t for t in client.tasks() if t.short_id == TASK]
        assert "todo_list_Jan_2" in task.instruction
        assert client.task(TASK) == task and client.task(task.id) == task
        host = client.host()
        assert host.limits.fork_limit == 8 and "raw" in host.screenshot_formats
        with client.create(TASK, ttl=300) as slot:
            assert slot.task == task.id and slot.screen == drums.Screen(1920, 1080)
            assert client.host().usage.live_desktops == 1
            assert [s.id for s in client.slots()] == [slot.id]
            assert slot.episode().pending or slot.episode().valid
            episode = slot.wait_valid(timeout=30)
            assert episode.valid and all(g.status == "passed" for g in episode.gates)

            with pytest.raises(drums.ActionError) as bad:
                slot.step("pyautogui.click(1, 2")  # no path runs a syntax error
            assert bad.value.status == 422 and bad.value.code == "invalid_action"
            assert slot.episode().valid, "a bad action is data: the episode goes on"

            png, raw = slot.observe(), slot.observe("raw")
            assert png.array.shape == raw.array.shape == (1080, 1920, 3)
            assert png.array.dtype == np.uint8 and png.frame == raw.frame
            np.testing.assert_array_equal(png.array, raw.array)
            assert png.array is not raw.array
            assert slot.verify(strict=True).score == 0.0

            result = solve(slot)
            assert result.applied == 5 and result.episode.actions >= 1
            after = slot.observe()
            assert after.frame != png.frame and not np.array_equal(after.array, png.array)
            reward = slot.verify(strict=True)
            assert reward == drums.Reward(True, 1.0, None, episode.id, reward.gates)

            before = time.time()
            info = slot.extend(600)
            after = time.time()
            assert info.expires_at == slot.expires_at
            assert before + 600 - 1 <= info.expires_at <= after + 600 + 1
            again = client.slot(slot.id)
            assert again.id == slot.id and again.info().episode.id == episode.id
        assert counts(local_host) == {"live_desktops": 0, "saved_states": 0}
        gone = client.slot(slot.id)  # a deleted slot still answers for a while...
        assert gone.info().state == "deleted"
        with pytest.raises(drums.Conflict):  # ...but refuses work
            gone.step("pyautogui.moveTo(1, 1)")
        assert slot.delete() is False and gone.delete() is False
        with pytest.raises(drums.NotFound):
            client.slot("slot_000000000000")


def test_invalid_episodes_raise_and_conflict(make_host):
    server = make_host(faults="gate_fail=1.0")
    with drums.connect(server.url) as client, client.create(TASK) as slot:
        with pytest.raises(drums.InvalidEpisode) as info:
            slot.wait_valid(timeout=30)
        assert info.value.reason == "gate_failed" and info.value.episode.invalid
        assert slot.wait_episode().invalid_reason == "gate_failed"
        with pytest.raises(drums.Conflict):
            slot.verify()  # strict by default
        reward = slot.verify(strict=False)
        assert reward.valid is False and reward.reason == "gate_failed"
        with pytest.raises(drums.Conflict) as conflict:
            slot.step("pyautogui.moveTo(1, 1)")
        assert conflict.value.details["episode"]["invalid_reason"] == "gate_failed"


def test_wait_valid_times_out_while_gates_are_pending(make_host):
    server = make_host(HostConfig(gate_delay_s=30))
    with drums.connect(server.url) as client, client.create(TASK) as slot, \
            pytest.raises(drums.DrumsTimeout):
        slot.wait_valid(timeout=0.3)  # how soon: benchmarks/timing.py


# -- fork: strict errors, limits, quotas ---------------------------------------------------


def test_fork_strict_raises_when_children_fail(make_host):
    server = make_host(faults="fork_child_fail=1.0")
    with drums.connect(server.url) as client, client.create(TASK) as parent:
        parent.wait_valid()
        with pytest.raises(drums.ForkError) as info:
            parent.fork(3)
        e = info.value
        assert len(e.ok) == 0 and len(e.failed) == 3 and e.state.startswith("st_")
        assert all(err["code"] == "child_failed" for _, err in e.failed)
        with e.ok:
            pass  # the host already dropped the state with no child: a 404 is fine
        assert counts(server) == {"live_desktops": 1, "saved_states": 0}

        with pytest.raises(drums.ForkError) as kept:
            parent.fork(2, keep_state=True)
        assert counts(server)["saved_states"] == 1
        kept.value.ok.close()
        assert counts(server)["saved_states"] == 1, "keep_state: the state stays"
        assert client.delete_state(kept.value.state) is True
        assert client.delete_state(kept.value.state) is False

        group = parent.fork(2, strict=False)
        assert len(group) == 0 and [e["code"] for _, e in group.failed] == ["child_failed"] * 2
        group.close()
    assert counts(server) == {"live_desktops": 0, "saved_states": 0}


def test_fork_partial_failure_keeps_usable_children(make_host):
    server = make_host(faults="fork_child_fail=0.5", seed=1)
    with drums.connect(server.url) as client, client.create(TASK) as parent:
        parent.wait_valid()
        try:
            group = parent.fork(8)
        except drums.ForkError as e:
            group = e.ok
            assert 0 < len(e.failed) <= 8
        with group:
            assert len(group) + len(group.failed) == 8
            assert counts(server)["live_desktops"] == 1 + len(group)
            assert all(ep.valid for ep in client.map(lambda k: k.wait_valid(), group))


def test_fork_limit_is_an_invalid_request(local_host):
    with drums.connect(local_host.url) as client, client.create(TASK) as parent:
        with pytest.raises(drums.InvalidRequest) as info:
            parent.fork(9)
        assert info.value.status == 422 and info.value.details["field"] == "n"
        assert counts(local_host) == {"live_desktops": 1, "saved_states": 0}


def test_quotas_answer_403_and_are_not_retried(make_host, caplog):
    server = make_host(HostConfig(gate_delay_s=0.05, live_desktops=2, saved_states=1))
    with caplog.at_level(logging.INFO, logger="drums_gym.client"), \
            drums.connect(server.url) as client:
        a = client.create(TASK)
        with pytest.raises(drums.QuotaExceeded) as info:
            a.fork(2)
        assert info.value.details["limit"] == 2
        b = client.create(TASK)
        with pytest.raises(drums.QuotaExceeded):
            client.create(TASK)
        b.delete()
        with a.fork(1, keep_state=True) as group:
            assert len(group) == 1
        with pytest.raises(drums.QuotaExceeded) as states:
            a.fork(1)
        assert "saved state" in states.value.message
    assert "retry" not in caplog.text
    assert counts(server) == {"live_desktops": 0, "saved_states": 0}


# -- overload: 429s are retried --------------------------------------------------------------


def test_injected_overload_is_retried(make_host, caplog):
    server = make_host(faults="overload=0.3,retry_after_ms=5", seed=11)
    with caplog.at_level(logging.INFO, logger="drums_gym.client"), \
            drums.connect(server.url, max_retries=10) as client, client.create(TASK) as parent:
        parent.wait_valid()
        with parent.fork(3) as group:
            rewards = client.map(lambda k: (k.wait_valid(), k.verify())[1], group)
        assert all(isinstance(r, drums.Reward) and r.valid for r in rewards), rewards
    assert "429 overloaded; retry" in caplog.text
    assert counts(server) == {"live_desktops": 0, "saved_states": 0}


def test_full_host_is_retried_until_a_desktop_frees(make_host):
    config = HostConfig(gate_delay_s=0.05, host_desktops=2, capacity_retry_after_s=0.2)
    server = make_host(config)
    with drums.connect(server.url, token="alice") as alice, \
            drums.connect(server.url, token="bob") as bob:
        first = alice.create(TASK)
        bob.create(TASK)
        with pytest.raises(drums.Overloaded) as info, \
                drums.connect(server.url, token="carol", retry_budget=0.1) as carol:
            carol.create(TASK)
        assert info.value.retry_after == pytest.approx(0.2)
        threading.Timer(0.3, first.delete).start()
        third = alice.create(TASK)  # 429 with retry_after_ms=200, retried until it fits
        assert third.id != first.id
    assert counts(server) == {"live_desktops": 0, "saved_states": 0}


# -- auth, cleanup, embedded ------------------------------------------------------------------


def test_tokens_and_workspaces(make_host, caplog):
    server = make_host(tokens=["tok-alice-123456", "tok-bob-654321"])
    with caplog.at_level(logging.DEBUG):
        with drums.connect(server.url, token="tok-wrong-000000") as client:
            with pytest.raises(drums.Unauthorized) as info:
                client.tasks()
            assert "tok-wrong" not in str(info.value) + repr(client)
        with drums.connect(server.url, token="tok-alice-123456") as alice, \
                drums.connect(server.url, token="tok-bob-654321") as bob:
            slot = alice.create(TASK)
            with pytest.raises(drums.NotFound):
                bob.slot(slot.id)  # another workspace's slot
            assert bob.slots() == [] and [s.id for s in alice.slots()] == [slot.id]
    for token in ("tok-wrong-000000", "tok-alice-123456", "tok-bob-654321"):
        assert token not in caplog.text


def test_client_close_deletes_everything_it_created(local_host):
    client = drums.connect(local_host.url)
    parent = client.create(TASK)
    parent.wait_valid()
    parent.fork(2, keep_state=True)
    parent.fork(1, keep_state=False)
    other = client.create(TASK)
    assert counts(local_host) == {"live_desktops": 5, "saved_states": 2}
    other.delete()
    client.close()
    assert counts(local_host) == {"live_desktops": 0, "saved_states": 0}
    client.close()


def test_concurrent_rollouts_share_one_client(local_host):
    with drums.connect(local_host.url) as client, client.create(TASK) as parent:
        parent.wait_valid()
        with parent.fork(8) as group:
            def work(k: drums.Slot) -> tuple[int, int]:
                k.wait_valid()
                frames = set()
                for i in range(3):
                    k.step(f"pyautogui.moveTo({100 + i}, 100)")
                    frames.add(k.observe("raw").frame)
                return len(frames), k.verify().score

            results = client.map(work, group)
        assert all(isinstance(r, tuple) for r in results), results


def test_connect_without_url_uses_the_embedded_host(monkeypatch):
    monkeypatch.delenv("DRUMS_URL", raising=False)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    with drums.connect() as client, client.create(TASK) as slot:
        assert client.url.startswith("http://127.0.0.1:")
        assert slot.wait_valid(timeout=30).valid
