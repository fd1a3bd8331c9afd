"""Seeds that mean something, opt-in: ``reset(seed=k, options={"randomize": True})`` (or
``randomize=True``) varies what no checker reads, the same seed gives the same desktop, and
without the option every episode is the original one."""

from __future__ import annotations

import doctest
import re
from datetime import datetime, timezone

import gymnasium as gym
import httpx
import numpy as np
import pytest

import drums_gym  # noqa: F401
from drums_gym import client as drums
from drums_gym import protocol as P
from drums_gym.local.desktop import Desktop, variation
from drums_gym.local.desktop.art import WALLPAPERS
from drums_gym.local.desktop.variation import rng_for, vary
from drums_gym.local.host import Host, HostConfig
from drums_gym.local.tasks import CATALOG
from drums_gym.solvers import SOLVERS, get_solver
from drums_gym.solvers.a11y import windows

pytestmark = pytest.mark.timeout(300)

#: a task whose setup puts two icons on the desktop (cpjpg, photos)
ICONS_TASK = "23393935"
#: a task whose setup opens a Terminal window and puts icons on the desktop
WINDOW_TASK = "4783cc41"
SEEDS = (1, 2)


def _icons(tree: dict) -> dict[str, tuple[int, int]]:
    """Desktop icon name -> position, read from the accessibility tree."""
    pane = next(n for n in windows(tree) if n["name"] == "Desktop Icons")
    return {n["name"]: tuple(n["position"]) for n in pane["children"]}


def _frames(tree: dict) -> dict[str, tuple[int, int]]:
    return {n["name"]: tuple(n["position"]) for n in windows(tree) if n["role"] == "frame"}


def _first_png(client: drums.Client, task: str, seed: int | None) -> tuple[bytes, dict]:
    with client.create(task=task, randomize=seed) as slot:
        slot.wait_valid()
        return slot.observe(format="png").data, slot.accessibility()["tree"]


@pytest.fixture
def client(local_host):
    with drums.connect(url=local_host.url) as c:
        yield c


def test_the_same_seed_gives_the_same_png_bytes(client):
    png_a, tree_a = _first_png(client, ICONS_TASK, 7)
    png_b, tree_b = _first_png(client, ICONS_TASK, 7)
    assert png_a == png_b
    assert tree_a == tree_b


def test_two_seeds_give_different_screenshots_and_icon_positions(client):
    png_a, tree_a = _first_png(client, ICONS_TASK, SEEDS[0])
    png_b, tree_b = _first_png(client, ICONS_TASK, SEEDS[1])
    assert png_a != png_b
    icons_a, icons_b = _icons(tree_a), _icons(tree_b)
    assert set(icons_a) == set(icons_b) == {"cpjpg", "photos"}  # the setup's icons, all there
    assert icons_a != icons_b
    original = _icons(_first_png(client, ICONS_TASK, None)[1])
    assert icons_a != original or icons_b != original


def test_window_positions_and_clock_vary_with_the_seed(client):
    trees = [_first_png(client, WINDOW_TASK, seed)[1] for seed in (None, *SEEDS)]
    frames = [_frames(t) for t in trees]
    assert all(len(f) == 1 for f in frames)  # the setup's Terminal, in every variant
    assert len({tuple(f.values()) for f in frames}) == 3
    clocks = [next(n for n in windows(t) if n["role"] == "panel")["children"][1]["name"]
              for t in trees]
    assert len(set(clocks)) == 3


def test_off_by_default_every_way_of_saying_so_is_the_original(client, local_host):
    original, tree = _first_png(client, ICONS_TASK, None)
    plain = Desktop()  # the original layout: names in order from the top-left, 09:00-ish
    for name in ("photos", "cpjpg"):
        plain.fs.mkdir(f"~/Desktop/{name}")
    assert _icons(tree) == _icons(plain.accessibility())
    assert _icons(tree)["cpjpg"] < _icons(tree)["photos"]
    clock = next(n for n in windows(tree) if n["role"] == "panel")["children"][1]["name"]
    assert clock == plain.clock_text()
    http = httpx.Client(base_url=local_host.url, timeout=30)
    with http:
        reply = http.post("/v1/slots", json={"task": ICONS_TASK, "randomize": None})
        assert reply.status_code == 201, reply.text
        slot = client.slot(reply.json()["id"])
        try:
            slot.wait_valid()
            assert slot.observe(format="png").data == original
            slot.reset(randomize=3)  # a randomized episode, then the original again
            slot.wait_valid()
            assert slot.observe(format="png").data != original
            slot.reset()
            slot.wait_valid()
            assert slot.observe(format="png").data == original
        finally:
            slot.delete()
    shots = []
    for kwargs, options in (({}, None), ({}, {"randomize": False}),
                            ({"randomize": True}, {"randomize": False})):
        env = gym.make(f"Drums/{ICONS_TASK}", client=client, screenshot_format="png", **kwargs)
        try:
            obs, _ = env.reset(seed=5, options=options)
            shots.append(obs)
        finally:
            env.close()
    for obs in shots:
        np.testing.assert_array_equal(obs, shots[0])
    with client.create(task=ICONS_TASK) as slot:
        slot.wait_valid()
        np.testing.assert_array_equal(slot.observe(format="png").array, shots[0])


def test_env_seeds_its_resets_and_the_flag_is_a_default(client):
    def episode_frames(**kwargs):
        env = gym.make(f"Drums/{ICONS_TASK}", client=client, **kwargs)
        try:
            first, _ = env.reset(seed=11, options={"randomize": True})
            again, _ = env.reset(seed=11, options={"randomize": True})  # reset of the slot
            other, _ = env.reset(seed=12, options={"randomize": True})
            follow, _ = env.reset(options={"randomize": True})  # drawn from np_random
            return first, again, other, follow
        finally:
            env.close()

    first, again, other, follow = episode_frames()
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)
    assert not np.array_equal(follow, other)
    first2, _, _, follow2 = episode_frames()
    np.testing.assert_array_equal(first, first2)
    np.testing.assert_array_equal(follow, follow2)  # seed 12, then the env's own stream
    env = gym.make(f"Drums/{ICONS_TASK}", client=client, randomize=True)
    try:
        flagged, _ = env.reset(seed=11)
    finally:
        env.close()
    np.testing.assert_array_equal(flagged, first)


def test_a_fork_child_inherits_the_randomized_desktop(client):
    with client.create(task=ICONS_TASK, randomize=9) as slot:
        slot.wait_valid()
        parent = slot.observe(format="png").data
        with slot.fork(1) as group:
            child = group[0]
            child.wait_valid()
            assert child.observe(format="png").data == parent


def test_fork_vector_children_start_from_the_parents_randomized_desktop(client):
    env = gym.make(f"Drums/{ICONS_TASK}", client=client, randomize=True)
    try:
        parent, _ = env.reset(seed=3)
        vec = env.unwrapped.fork_vector(2)
        try:
            batch, _ = vec.reset()
        finally:
            vec.close()
    finally:
        env.close()
    for frame in batch:
        np.testing.assert_array_equal(frame, parent)


def test_the_variation_modules_example_runs():
    result = doctest.testmod(variation)
    assert result.attempted > 0 and result.failed == 0


ROUTES = pytest.mark.parametrize(
    ("task", "route"), sorted(SOLVERS), ids=[f"{t}-{r}" for t, r in sorted(SOLVERS)]
)


def solve_randomized(url: str, task: str, route: str, seed: int) -> None:
    with drums.connect(url=url) as c:
        solver = get_solver(task, route=route)
        env = gym.make(f"Drums/{task}", client=c, accessibility=True, randomize=True,
                       wait_s=0.0, max_steps=max(15, type(solver).steps))
        try:
            obs, info = env.reset(seed=seed)
            while True:
                obs, reward, terminated, truncated, info = env.step(solver(obs, "", info))
                if terminated or truncated:
                    break
        finally:
            env.close()
        assert info["valid"] and reward == 1.0, (task, route, seed)


@ROUTES
def test_every_solver_still_scores_one_on_randomized_desktops(local_host, task, route):
    """The solvers read positions from the tree, so moved icons and windows do not matter;
    and nothing a checker reads was varied."""
    solve_randomized(local_host.url, task, route, SEEDS[0])


@ROUTES
def test_every_solver_scores_one_on_a_second_randomized_desktop(local_host, task, route):
    """The same on a second seed's desktop (the slow set: 40 more episodes)."""
    solve_randomized(local_host.url, task, route, SEEDS[1])


@pytest.mark.parametrize("task", sorted(t.short_id for t in CATALOG.values()))
def test_a_no_op_still_scores_zero_on_randomized_desktops(client, task):
    env = gym.make(f"Drums/{task}", client=client, randomize=True, wait_s=0.0)
    try:
        env.reset(seed=SEEDS[0])
        _, reward, terminated, _, info = env.step("DONE")
    finally:
        env.close()
    assert terminated and info["valid"] and reward == 0.0


def _ages(data: bytes, now: float) -> bytes:
    """A Trash info file's DeletionDate as its age (the setup wrote it from the clock)."""
    def age(m: re.Match[bytes]) -> bytes:
        when = datetime.fromisoformat(m.group(1).decode()).replace(tzinfo=timezone.utc)
        return b"DeletionDate=-%ds" % round(now - when.timestamp())

    return re.sub(rb"DeletionDate=(\S+)", age, data)


def test_the_setup_makes_the_same_files_on_a_randomized_desktop():
    """Variation happens before the setup: what the setup makes is exactly as on the
    original desktop (names, contents, modes, owners), its times as far from the clock
    (the clock itself moved)."""
    host = Host(HostConfig(gate_delay_s=0, shell="simulated"))  # the in-memory tree, walked whole

    def tree(task: str, randomize: dict | None) -> dict[str, tuple]:
        seed = None if randomize is None else P.Randomize(**randomize)
        slot_id = host.create_slot("default", P.CreateSlotBody(task=task, randomize=seed)).id
        try:
            desk = host.inspect_desktop("default", slot_id)
            now = desk.fs.clock.now()
            out: dict[str, tuple] = {}
            for top, dirs, files in desk.fs.walk("/"):
                for name in dirs:
                    path = f"{top.rstrip('/')}/{name}"
                    out[path] = (desk.fs.stat(path).st_mode, desk.fs.owner(path))
                for name in files:
                    path = f"{top.rstrip('/')}/{name}"
                    st = desk.fs.stat(path)
                    out[path] = (_ages(desk.fs.read_file(path), now), st.st_mode,
                                 desk.fs.owner(path), round(now - st.st_mtime))
            return out
        finally:
            host.delete_slot("default", slot_id)

    made = 0
    for task in sorted(t.short_id for t in CATALOG.values()):
        original = tree(task, None)
        made += len(original)
        assert tree(task, {"seed": 4}) == original, task
    assert made > 25 * 10  # the setups make files: the comparison compared something


def test_bad_seeds_are_refused_naming_the_field(client, local_host):
    with httpx.Client(base_url=local_host.url, timeout=30) as http:
        for bad in ({"seed": -1}, {"seed": "7"}, {"seed": 2**64}, {}, 7):
            reply = http.post("/v1/slots", json={"task": ICONS_TASK, "randomize": bad})
            assert reply.status_code == 422, (bad, reply.text)
            assert reply.json()["error"]["details"]["field"].startswith("randomize"), reply.text
        with client.create(task=ICONS_TASK) as slot:
            reply = http.post(f"/v1/slots/{slot.id}/reset", json={"randomize": {"seed": 1.5}})
            assert reply.status_code == 422
            assert reply.json()["error"]["details"]["field"] == "randomize.seed"
            with pytest.raises(ValueError, match="randomize must be a seed"):
                slot.reset(randomize=-3)
    with pytest.raises(ValueError, match="randomize must be a seed"):
        client.create(task=ICONS_TASK, randomize=True)
    with pytest.raises(ValueError, match="randomize must be True or False"):
        gym.make(f"Drums/{ICONS_TASK}", client=client, randomize="yes")
    env = gym.make(f"Drums/{ICONS_TASK}", client=client)
    try:
        with pytest.raises(ValueError, match=r"options\['randomize'\] must be True or False"):
            env.reset(seed=1, options={"randomize": 1})
    finally:
        env.close()


# -- the variation itself, on a desktop --------------------------------------------------


def test_vary_is_a_function_of_the_seed_and_changes_each_thing():
    seen = {"clock": set(), "wallpaper": set(), "offset": set(), "order": set()}
    for seed in range(12):
        a, b = Desktop(), Desktop()
        vary(a, rng_for(seed))
        vary(b, rng_for(seed))
        assert a.render().tobytes() == b.render().tobytes()
        assert (a.clock_text(), a.wallpaper, a.window_offset, a.grid.order) == (
            b.clock_text(), b.wallpaper, b.window_offset, b.grid.order)
        seen["clock"].add(a.clock_text())
        seen["wallpaper"].add(a.wallpaper)
        seen["offset"].add(a.window_offset)
        seen["order"].add(a.grid.order)
        for path in ("/home/user", "/home/user/Documents", "/tmp"):
            assert a.fs.stat(path).st_mtime < a.fs.clock.now()
    assert seen["wallpaper"] == set(range(len(WALLPAPERS)))
    assert all(len(v) >= 8 for k, v in seen.items() if k != "wallpaper"), seen
    plain = Desktop()
    assert (plain.wallpaper, plain.window_offset, plain.grid.order) == (0, (0, 0), None)


@pytest.mark.parametrize("offset", [(-160, -96), (160, 96), (160, -96)])
def test_offset_windows_stay_in_the_work_area(offset):
    desk = Desktop(width=640, height=480)
    desk.window_offset = offset
    x0, y0, x1, y1 = desk.work_area()
    for k in range(6):
        desk.fs.mkdir(f"/tmp/{k}")
        desk.open_folder(f"/tmp/{k}")
        desk.open_terminal()
    for w in desk.windows:
        bx0, by0, bx1, by1 = w.rect
        assert x0 <= bx0 and y0 <= by0 and bx1 <= x1 and by1 <= y1, (offset, w.rect)


def test_the_icon_order_must_cover_the_screen():
    desk = Desktop()
    with pytest.raises(ValueError, match="permutation of the screen's"):
        desk.grid.arrange([0, 1, 2])



def test_a_randomized_desktop_on_the_sandbox_backend_dates_the_users_files(make_host):
    """The sandbox's tree holds the machine's read-only system folders: a randomized desktop
    dates the user's files there as the simulated bash's (it once answered 500: it dated
    ``/``), and a randomized slot on a sandbox host becomes valid."""
    from dataclasses import replace

    from conftest import FAST

    from drums_gym.local.sandbox import available, unavailable_reason

    if not available():
        pytest.skip(f"no sandbox: {unavailable_reason()}")
    for shell in ("simulated", "sandbox"):
        desk = Desktop(640, 480, shell=shell)
        try:
            vary(desk, rng_for(7))
            now = desk.fs.clock.now()
            for path in ("/home/user/Desktop", "/tmp"):
                age_days = (now - desk.fs.stat(path).st_mtime) / 86400
                assert 0 <= age_days <= variation.FILE_AGE_DAYS[1], (shell, path, age_days)
        finally:
            desk.close()
    host = make_host(config=replace(FAST, shell="sandbox"))
    with drums.connect(url=host.url) as c, c.create(task=ICONS_TASK, randomize=7) as slot:
        assert slot.wait_valid().status == "valid"
        assert slot.step("pyautogui.moveTo(5, 5)").shell == "sandbox"
