"""The fast pixel packing matches Pillow's own tobytes, on whichever Pillow is installed."""

from __future__ import annotations

import numpy as np
from PIL import Image

from drums_gym._rgb import pack_rgb, rgb_array


def test_pack_rgb_is_tobytes():
    rng = np.random.default_rng(0)
    for width, height in ((1920, 1080), (641, 480), (7, 3)):
        pixels = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
        image = Image.fromarray(pixels)
        assert pack_rgb(image) == image.tobytes()
        array = rgb_array(image)
        np.testing.assert_array_equal(array, pixels)
        assert array.flags.writeable and array.flags.c_contiguous
        assert pack_rgb(image.convert("RGBA")) == image.tobytes()
