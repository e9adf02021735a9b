"""``python -m yahtzee_sim`` = the ``yahtzee-sim`` command."""

import sys

from yahtzee_sim.cli import main

sys.exit(main())
