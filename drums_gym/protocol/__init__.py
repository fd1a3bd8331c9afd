"""The Drums v1 wire protocol, shared by both sides: dependency-free (stdlib only).

- :mod:`.vocabulary`: paths, headers, query parameters, limits, error codes, enumerations.
- :mod:`.shapes`: every JSON object (request bodies, replies, errors) as a frozen dataclass
  whose field names are the wire's; the host declares them as its ``response_model``.
- :mod:`.codec`: `decode` (JSON to a shape, naming the field that is wrong) and `encode`.

The client (:mod:`drums_gym.client`) and the local host (:mod:`drums_gym.local`) spell the
protocol only through these (docs/http-api.md).
"""

from __future__ import annotations

from .codec import *  # noqa: F403
from .codec import __all__ as _codec
from .shapes import *  # noqa: F403
from .shapes import __all__ as _shapes
from .vocabulary import *  # noqa: F403
from .vocabulary import __all__ as _vocabulary

__all__ = [*_vocabulary, *_shapes, *_codec]
