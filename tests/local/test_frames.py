"""Screenshot formats: PNG, raw, and raw deltas rebuild exactly the screen the host shows."""

from __future__ import annotations

import numpy as np
import pytest

from drums_gym.client import connect


@pytest.fixture
def slot(local_host):
    with connect(url=local_host.url) as client:
        slot = client.create(task="e0df059f")
        slot.wait_valid()
        yield slot
        slot.delete()


def test_raw_deltas_rebuild_the_exact_screen(slot):
    first = slot.observe(format="raw")
    assert first.array.shape == (1080, 1920, 3) and len(first.data) == 1920 * 1080 * 3
    first.array[:] = 0  # a caller scribbling on its array must not corrupt the next frame
    for x, y in ((300, 400), (310, 405), (1500, 900), (1500, 900)):
        slot.step(f"pyautogui.moveTo({x}, {y})")
        raw = slot.observe(format="raw")
        png = slot.observe(format="png")
        assert raw.frame == png.frame
        np.testing.assert_array_equal(raw.array, png.array)
        assert len(raw.data) < 200_000, "only the changed rectangle travels"
    again = slot.observe(format="raw")
    assert again.data == b"" and not np.shares_memory(again.array, raw.array)
    np.testing.assert_array_equal(again.array, raw.array)


def test_deltas_stay_exact_across_a_reset(slot):
    slot.observe(format="raw")
    slot.step("pyautogui.moveTo(1200, 700)")
    slot.observe(format="raw")
    slot.reset()  # a new desktop whose frame counter starts again
    slot.wait_valid()
    frame = slot.observe(format="raw")
    np.testing.assert_array_equal(frame.array, slot.observe(format="png").array)


def test_a_pointer_move_is_two_small_rectangles(slot):
    slot.observe(format="raw")
    slot.step("pyautogui.moveTo(100, 1000)")  # far from where the pointer was
    frame = slot.observe(format="raw")
    assert 0 < len(frame.data) < 20_000


def test_preferred_format_is_raw_on_loopback(local_host):
    with connect(url=local_host.url) as client:
        assert client.preferred_screenshot_format() == "raw"


@pytest.mark.parametrize("fmt", ["raw", "png"])
def test_observe_into_a_batch_row(slot, fmt):
    batch = np.zeros((2, 1080, 1920, 3), dtype=np.uint8)
    frame = slot.observe(format=fmt, out=batch[1])
    assert np.shares_memory(frame.array, batch) and batch[1].any() and not batch[0].any()
    np.testing.assert_array_equal(batch[1], slot.observe(format="png").array)
    with pytest.raises(ValueError, match="out"):
        slot.observe(format=fmt, out=np.zeros((10, 10, 3), np.uint8))
