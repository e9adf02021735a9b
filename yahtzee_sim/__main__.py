"""``python -m yahtzee_sim`` = the ``yahtzee-sim`` command."""

import sys

from .cli import main

sys.exit(main())
