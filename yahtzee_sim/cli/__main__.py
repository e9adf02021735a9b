"""``python -m yahtzee_sim.cli`` = the ``yahtzee-sim`` command."""

import sys

from .main import main

sys.exit(main())
