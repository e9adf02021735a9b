"""``python -m yahtzee_sim.cli`` = the ``yahtzee-sim`` command."""

import sys

from yahtzee_sim.cli.main import main

sys.exit(main())
