"""The wire protocol as the client speaks it: the names of :mod:`drums_gym.protocol`.

Kept so the client's modules keep importing ``_wire as W``; the vocabulary itself lives
in :mod:`drums_gym.protocol`, shared with the host.
"""

from __future__ import annotations

from ..protocol import *  # noqa: F403
from ..protocol import __all__ as __all__
