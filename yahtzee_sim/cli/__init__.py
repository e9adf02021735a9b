"""Command line: ``yahtzee-sim COMMAND [options]``.

Every bad argument gives one line on stderr and exit code 2; so does a command that
needs an optional extra that is not installed (the line says which extra and how to
install it).

Layout
------
- :mod:`.main` -- the top-level parser, :func:`main` (the console script
  ``yahtzee_sim.cli:main``) and :data:`~.main.COMMANDS`, every command declared once:
  its name, its ``--help`` line and its two functions, in the order ``--help`` lists them.
- :mod:`.options` -- :class:`Command`, the argument types and every option that
  several commands share (``--rules``, ``--games``, ``--seed``, ``--jobs``,
  ``--json``, ``--quiet`` ...), declared once.
- :mod:`.files` -- output-file checks (before any work), atomic table writes, figures.
- :mod:`.missing_extras` -- optional extras: which extra a missing package belongs to and the
  install hint (``pip install -e ".[web]"`` in a source checkout, else
  ``pip install 'yahtzee-sim[web]'``).
- one module per command group: :mod:`.simulate`; :mod:`.solve` (solve, advise,
  exact); :mod:`.objectives` (target, win, risk); :mod:`.tournament` (tournament,
  winprob); :mod:`.report` (report, reproduce); :mod:`.play` (play, serve, analyze);
  :mod:`.learn` (select, dataset); :mod:`.rank`; :mod:`.regret` (regret, check);
  :mod:`.distill`; :mod:`.duel`; :mod:`.catalog` (strategies, rules).

Each command is ``add_arguments(parser)``, a ``run(args) -> int`` that calls one
documented API function, and ``format_*`` functions that turn its result into text
(``--json`` prints the result itself).

Adding a command
----------------
Write one module, e.g. ``yahtzee_sim/cli/regret.py``::

    from . import options as opt

    def add_arguments(p):
        opt.add_game_options(p, 10_000)
        opt.add_output(p)

    def run(args):
        ...  # call the API, print json.dumps(result) or a format_* text
        return 0

and declare it with one entry in :data:`.main.COMMANDS`, ``Command("regret", "one line
for --help", regret.add_arguments, regret.run)``, with ``regret`` added to the
``from . import ...`` line; then its handbook page in ``COMMAND_PAGES``
(``tools/doc_tables.py``) and ``python tools/doc_tables.py``. Heavy modules (the solver
and the analysis, pandas, matplotlib, every strategy) are imported inside ``run``:
``yahtzee-sim --help`` builds every command's parser and must stay fast.
"""

from yahtzee_sim.cli.main import COMMANDS, build_parser, main
from yahtzee_sim.cli.options import CliError, Command

__all__ = ["COMMANDS", "CliError", "Command", "build_parser", "main"]
