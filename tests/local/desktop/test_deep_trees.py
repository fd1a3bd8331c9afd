"""Deep trees: a desktop whose filesystem nests as deep as Linux allows still forks.

`mkdir -p` of 200 nested directories made `branch` answer 500 (RecursionError from
``copy.deepcopy``; 150 levels worked). Every traversal of the simulated filesystem (walk,
copy, the whole-desktop copy a fork makes) is iterative now, up to PATH_MAX (4096 bytes)
and beyond.
"""

from __future__ import annotations

import copy
import os
import random
from pathlib import Path

import httpx
import pytest

from drums_gym.actions.events import KeyDown
from drums_gym.local.desktop import Desktop, FileSystem

HOME = "/home/user"


def deep_path(depth: int, name: str = "a") -> str:
    return HOME + "/" + "/".join([name] * depth)


def full_length_depth() -> int:
    """The depth of a/a/a/... under the home whose path is 4095 bytes (PATH_MAX - 1)."""
    return (4095 - len(HOME)) // 2


@pytest.mark.parametrize("depth", [200, 2000, full_length_depth()])
def test_a_deep_tree_forks_and_the_fork_is_independent(depth: int) -> None:
    desk = Desktop()
    leaf = deep_path(depth)
    assert len(leaf) < 4096
    desk.fs.mkdir(leaf, parents=True)
    desk.fs.write_file(leaf + "/leaf.txt", "bottom")
    desk.open_terminal(leaf)
    desk.render()
    twin = desk.clone()
    assert twin.fs.read_file(leaf + "/leaf.txt") == b"bottom"
    assert [p for p, _, _ in twin.fs.walk("~/a")] == [p for p, _, _ in desk.fs.walk("~/a")]
    twin.fs.write_file(leaf + "/leaf.txt", "changed in the fork")
    twin.fs.remove(deep_path(depth // 2))
    assert desk.fs.read_file(leaf + "/leaf.txt") == b"bottom"
    assert desk.fs.is_dir(leaf) and not twin.fs.exists(leaf)
    twin.apply([KeyDown(c) for c in "echo hi > ~/from-fork"] + [KeyDown("enter")])
    assert twin.fs.exists("~/from-fork") and not desk.fs.exists("~/from-fork"), \
        "the fork's terminal works on the fork's files"
    assert twin.render().size == (1920, 1080)


@pytest.mark.parametrize("depth", [200, 2000])
def test_deep_trees_walk_copy_and_deepcopy(depth: int) -> None:
    fs = FileSystem()
    fs.mkdir(deep_path(depth), parents=True)
    fs.write_file(deep_path(depth) + "/x", "1")
    walked = list(fs.walk("~/a"))
    assert len(walked) == depth
    assert walked[-1] == (deep_path(depth), [], ["x"])
    fs.copy("~/a", "~/b")
    assert fs.read_file(deep_path(depth, "a").replace("/home/user/a", "/home/user/b", 1)
                        + "/x") == b"1"
    dup = copy.deepcopy(fs)
    assert dup.read_file(deep_path(depth) + "/x") == b"1"
    assert dup.stat(deep_path(depth)).st_mtime == fs.stat(deep_path(depth)).st_mtime
    fs.remove("~/a")
    fs.remove("~/b")
    assert not fs.exists("~/a") and dup.exists(deep_path(depth))


def random_tree(rng: random.Random, fs: FileSystem, real: Path) -> None:
    """The same random tree in the simulated filesystem and on disk."""
    dirs = [""]
    for i in range(120):
        parent = rng.choice(dirs)
        name = f"{rng.choice('abcXY')}{i}"
        rel = f"{parent}/{name}" if parent else name
        if rng.random() < 0.4:
            fs.mkdir(f"~/t/{rel}", parents=True)
            (real / rel).mkdir(parents=True)
            dirs.append(rel)
        else:
            fs.write_file(f"~/t/{rel}", str(i))
            (real / rel).write_text(str(i))


def test_walk_matches_os_walk_including_pruning(tmp_path: Path) -> None:
    fs = FileSystem()
    fs.mkdir("~/t")
    real = tmp_path / "t"
    real.mkdir()
    random_tree(random.Random(7), fs, real)

    def sim(prune: bool) -> list[tuple[str, list[str], list[str]]]:
        out = []
        for path, dirs, files in fs.walk("~/t"):
            out.append((path[len(HOME + "/t"):], list(dirs), sorted(files)))
            if prune:
                dirs[:] = [d for d in dirs if not d.startswith("a")]
        return out

    def disk(prune: bool) -> list[tuple[str, list[str], list[str]]]:
        out = []
        for path, dirs, files in os.walk(real):
            dirs.sort()
            out.append((path[len(str(real)):], list(dirs), sorted(files)))
            if prune:
                dirs[:] = [d for d in dirs if not d.startswith("a")]
        return out

    assert sim(False) == disk(False)
    assert sim(True) == disk(True)
    assert len(sim(True)) < len(sim(False)), "the pruning removed something"


def test_a_terminal_made_deep_tree_branches_over_http(local_host) -> None:
    """The issue's case through the real host: mkdir -p in the Terminal, then branch."""
    depth = 2000
    rel = "/".join(["a"] * depth)
    with httpx.Client(base_url=local_host.url, timeout=60) as http:
        r = http.post("/v1/slots", json={"task": "e0df059f"})
        assert r.status_code == 201, r.text
        parent = r.json()["id"]
        children: list[str] = []
        try:
            code = ("pyautogui.hotkey('ctrl', 'alt', 't')\n"
                    f"pyautogui.write({'mkdir -p ' + rel + chr(10)!r})")
            assert http.post(f"/v1/slots/{parent}/actions", json={"code": code}).status_code \
                == 200
            r = http.post(f"/v1/slots/{parent}/branch",
                          json={"n": 2, "delete_state_with_children": True})
            assert r.status_code == 200, r.text
            children = [c["id"] for c in r.json()["children"]]
            check = f"pyautogui.write({'[ -d ' + rel + ' ] && echo deep-ok' + chr(10)!r})"
            for child in children:
                assert http.post(f"/v1/slots/{child}/actions",
                                 json={"code": check}).status_code == 200
                tree = http.get(f"/v1/slots/{child}/accessibility").json()["tree"]
                assert "deep-ok" in str(tree)
                assert http.get(f"/v1/slots/{child}/screenshot").status_code == 200
        finally:
            for slot in [*children, parent]:
                http.delete(f"/v1/slots/{slot}")
