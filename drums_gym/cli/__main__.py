"""``python -m drums_gym.cli``: the same as the ``drums-gym`` console script."""

import sys

from . import main

sys.exit(main())
