"""The methods paragraph of a report, in Markdown and in LaTeX, and the BibTeX file of
the works it cites.

The paragraph states the games, the seed, common random numbers, which strategies were
evaluated exactly, which means the ranking takes, the ranking procedure with its α and its
guarantee (the sentence the terminal, ``report.md`` and ``ranking.tex`` print) and the
Kim–Nelson selection with its δ; :data:`BIBTEX` holds the entries its ``\\cite`` keys
name.
"""

from __future__ import annotations

import re

from yahtzee_sim.analysis.report.latex import escape

#: The works the methods paragraph cites, as BibTeX (facts from docs/references.md).
BIBTEX = r"""@techreport{Glenn2006,
  author      = {Glenn, James},
  title       = {An Optimal Strategy for {Yahtzee}},
  institution = {Loyola College in Maryland},
  number      = {CS-TR-0002},
  year        = {2006}
}

@article{KimNelson2001,
  author  = {Kim, Seong-Hee and Nelson, Barry L.},
  title   = {A Fully Sequential Procedure for Indifference-Zone Selection in Simulation},
  journal = {ACM Transactions on Modeling and Computer Simulation},
  volume  = {11},
  number  = {3},
  pages   = {251--273},
  year    = {2001}
}

@book{Hsu1996,
  author    = {Hsu, Jason C.},
  title     = {Multiple Comparisons: Theory and Methods},
  publisher = {Chapman \& Hall},
  address   = {London},
  year      = {1996}
}

@article{Piepho2004,
  author  = {Piepho, Hans-Peter},
  title   = {An Algorithm for a Letter-Based Representation of All-Pairwise Comparisons},
  journal = {Journal of Computational and Graphical Statistics},
  volume  = {13},
  number  = {2},
  pages   = {456--466},
  year    = {2004}
}
"""


def _cite(key: str, latex: bool) -> str:
    """A citation: ``\\citep{key}``-like in LaTeX, "(Author Year)" in Markdown."""
    names = {
        "Glenn2006": "Glenn 2006",
        "KimNelson2001": "Kim & Nelson 2001",
        "Hsu1996": "Hsu 1996",
        "Piepho2004": "Piepho 2004",
    }
    return r"~\cite{" + key + "}" if latex else f" ({names[key]})"


def methods_paragraph(report, latex: bool = False) -> str:
    """The methods paragraph of ``report`` (a
    :class:`~yahtzee_sim.analysis.report.build.Report`), in Markdown or LaTeX."""

    def code(text: str) -> str:
        return r"\texttt{" + escape(text) + "}" if latex else f"`{text}`"

    def names(ids) -> str:
        return ", ".join(code(s) for s in ids) or "none"

    ranking = report.ranking
    table = ranking.table
    evaluated = [s for s in table.index if s in report.exact]
    exact = [s for s in table.index if table.loc[s, "exact"]]
    played = [s for s in table.index if not table.loc[s, "exact"]]
    parts = [
        f"Each of the {len(report.ids)} strategies played {report.games:,} games of the "
        f"{code(report.rules.name)} rules from master seed {report.seed}, with common random "
        "numbers: game g of every strategy was played with the same dice.",
        f"The deterministic strategies ({names(evaluated)}) were also evaluated exactly by a "
        "forward pass over the game's states" + _cite("Glenn2006", latex) + ", which gives "
        "their exact mean.",
        _ranked_by(exact, played, evaluated, names),
        _comparisons(ranking, latex),
        ranking.guarantee,
    ]
    kn = report.kn
    if kn is not None:
        p = kn.parameters
        unit = "point" if p.get("delta", 1.0) == 1 else "points"
        parts.append(
            "The best strategy was selected by procedure KN"
            + _cite("KimNelson2001", latex)
            + f", with an indifference zone of delta = {p.get('delta', 1.0):g} {unit}, "
            f"error alpha = {p.get('alpha', 0.05):g}, a first stage of n0 = {p.get('n0')} "
            f"observations and one observation the mean of {p.get('batch')} games; multiple "
            "comparisons with the best" + _cite("Hsu1996", latex) + " on the observations "
            "every strategy took accompany it."
        )
    text = " ".join(parts)
    if latex:
        text = re.sub(r"(alpha|delta) = ([0-9]+(?:\.[0-9]+)?)", r"$\\\1 = \2$", text)
        text = re.sub(r"n0 = (\d+)", r"$n_0 = \1$", text)
        text = text.replace("game g", "game $g$")
        return text.replace(f"{report.games:,}", _thousands(report.games))
    text = text.replace("alpha =", "α =").replace("delta =", "δ =")
    return text.replace("n0 =", "n₀ =")


def _ranked_by(exact: list, played: list, evaluated: list, names) -> str:
    """Which means the ranking takes: exact ones (``exact``), simulated games (``played``);
    ``evaluated``: the strategies evaluated exactly, ``names`` formats a list of ids."""
    if not exact:
        return "The ranking takes every strategy's simulated games."
    if exact == evaluated:
        return (
            "The ranking takes their exact means and the simulated games of the others "
            f"({names(played)})."
        )
    return (
        f"The ranking takes the exact means of {names(exact)} and the simulated games of "
        f"{names(played)}."
    )


def _comparisons(ranking, latex: bool) -> str:
    """How the ranking compares the pairs: the t intervals, Bonferroni's level, the
    decisions read off the intervals, the letters."""
    m = ranking.tested_pairs
    letters = (
        "strategies that cannot be told apart share a letter of a compact letter display"
        + _cite("Piepho2004", latex)
        + "."
    )
    if m == 0:
        return "Every pair was compared by its exact difference (no uncertainty); " + letters
    minus = "$-$" if latex else "−"
    return (
        "Every pair of strategies was compared by the t interval of the difference of their "
        "means: two ranked by their games by the paired interval on their common games, one "
        "ranked by its games and one by its exact mean by the one-sample interval of the "
        "former's games, two with exact means by their exact difference (no uncertainty). "
        f"The {m} intervals with uncertainty are simultaneous by Bonferroni, each at "
        f"confidence 1 {minus} {ranking.alpha:g}/{m}, at family-wise error alpha = "
        f"{ranking.alpha:g}; a pair is declared different exactly when its interval excludes "
        "0, and " + letters
    )


def _thousands(n: int) -> str:
    """An integer with LaTeX thousands separators (``100{,}000``)."""
    return f"{n:,}".replace(",", "{,}")
