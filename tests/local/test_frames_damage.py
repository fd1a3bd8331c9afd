"""Raw frames from the desktop's layers (packed scene plus the pointer's pixels) are the
bytes of its render, and their deltas, diffed on the pointer boxes only, are the deltas of
a full diff: on a real desktop over real actions (moves, hovers, edges, drags, menus)."""

from __future__ import annotations

import pytest

from drums_gym._rgb import pack_rgb
from drums_gym.actions.events import KeyDown, MouseDown, MouseMove, MouseUp
from drums_gym.local import frames
from drums_gym.local.desktop.desktop import Desktop
from drums_gym.local.frames import FrameCache


def _script(desk: Desktop) -> list[list[object]]:
    x, y = desk.icon_center("todo")
    far = (desk.width - 1, desk.height - 1)
    return [
        [MouseMove(300, 400)], [MouseMove(337, 400)], [MouseMove(340, 402)],
        [MouseMove(1500, 900)], [MouseMove(1500, 900)], [MouseMove(1510, 880)],
        [MouseMove(x, y)], [MouseMove(x + 3, y + 2)],  # hover: the scene changes
        [MouseMove(0, 0)], [MouseMove(1, 5)], [MouseMove(*far)], [MouseMove(far[0] - 4, 2)],
        [MouseMove(x, y), MouseDown("left")], [MouseMove(x + 60, y + 80)],  # a drag
        [MouseMove(x + 200, y + 300)], [MouseUp("left")], [MouseMove(900, 500)],
        [MouseMove(900, 520), MouseDown("right"), MouseUp("right")], [MouseMove(930, 540)],
        [KeyDown("escape")], [MouseMove(600, 300)], [MouseMove(640, 330)],
    ]


def _mismatches() -> tuple[list[str], int]:
    """Where the layered cache's answers differ from a full render and diff; and how many
    frames it composed from the scene (so the check cannot pass by never composing)."""
    desk = Desktop(seed=0)
    desk.fs.mkdir("~/Desktop/todo")
    layered, plain = FrameCache(), FrameCache()
    size = (desk.width, desk.height)
    bad: list[str] = []
    composed = 0
    token = None
    for i, events in enumerate([[], *_script(desk)]):
        desk.apply(events)
        frame, new = desk.frame, f"1.{desk.frame}"
        a = layered.shot(desk.render, frame, new, "raw", size, "valid", token, desk.layers)
        b = plain.shot(desk.render, frame, new, "raw", size, "valid", token)
        raw = layered._raw[1] if layered._raw else None
        composed += raw is not None and raw.scene is not None
        if (a.boxes, a.data, a.delta_base) != (b.boxes, b.data, b.delta_base):
            bad.append(f"step {i} {events}: delta {a.boxes} != full diff {b.boxes}")
        whole = layered.shot(desk.render, frame, new, "raw", size, "valid", None, desk.layers)
        if whole.data != pack_rgb(desk.render()):
            bad.append(f"step {i} {events}: whole frame differs from the render")
        token = new
    return bad, composed


def test_layered_frames_and_deltas_equal_full_render_and_diff():
    bad, composed = _mismatches()
    assert bad == []
    assert composed >= 12, "pointer-only frames are composed from the packed scene"


def test_a_damage_box_missing_the_old_pointer_is_caught(monkeypatch):
    monkeypatch.setattr(frames, "union", lambda old, new: new)  # planted break
    bad, _ = _mismatches()
    assert bad and all("delta" in b for b in bad)


def test_layers_are_what_render_composes():
    desk = Desktop(seed=0)
    desk.apply([MouseMove(500, 500)])
    scene, at, overlay = desk.layers()
    assert at == (500, 500) and overlay is None
    desk.apply([MouseMove(520, 510)])
    assert desk.layers()[0] is scene, "a pointer move keeps the scene object"


@pytest.mark.parametrize("at", [(0, 0), (1919, 1079), (-5, -5), (3000, 40)])
def test_pointer_at_the_edges(at):
    from drums_gym.local.composed import compose
    from drums_gym.local.desktop.render import pointer_overlay

    desk = Desktop(seed=0)
    scene = desk.layers()[0]
    raw = compose(scene, at, pack_rgb(scene))
    assert raw.data() == pack_rgb(pointer_overlay(scene, at))
