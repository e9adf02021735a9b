"""Output files of the commands: checks before any work, atomic writes, figures."""

from __future__ import annotations

from pathlib import Path

from yahtzee_sim.cli.missing_extras import require
from yahtzee_sim.cli.options import CliError
from yahtzee_sim.engine.atomic import atomic_path

FRAME_SUFFIXES = (".parquet", ".csv")
PLOT_SUFFIXES = (".png", ".pdf", ".svg")


def _alternatives(suffixes: tuple[str, ...]) -> str:
    """``.a``, ``.a or .b``, ``.a, .b or .c``."""
    return ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if len(suffixes) > 1 else suffixes[0]


def check_file(option: str, path: Path | None, suffixes: tuple[str, ...] | None = None) -> None:
    """Fail early (CliError) if ``path`` has a wrong suffix or its folder does not exist.

    Parameters
    ----------
    option : str
        The option that named the file, for the message (``"--out"``).
    path : Path or None
        The file; None (option not given) passes.
    suffixes : tuple of str, optional
        The allowed suffixes; None allows any.
    """
    if path is None:
        return
    if path.is_dir():
        raise CliError(f"{option} must name a file, got the folder {str(path)!r}")
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise CliError(f"{option} must end in {_alternatives(suffixes)}, got {str(path)!r}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise CliError(f"{option}: directory {str(parent)!r} does not exist")


def check_frame_file(option: str, path: Path | None) -> None:
    """:func:`check_file` for a table (``.parquet`` or ``.csv``); parquet needs pyarrow."""
    check_file(option, path, FRAME_SUFFIXES)
    if path is not None and path.suffix == ".parquet":
        require("pyarrow", f"{option} FILE.parquet")


def write_frame(frame, path: Path) -> None:
    """Write a DataFrame to ``.parquet`` or ``.csv`` atomically
    (:func:`~yahtzee_sim.engine.atomic.atomic_path`)."""
    with atomic_path(path) as tmp:
        if path.suffix == ".parquet":
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False)


def print_result(as_json: bool, data: dict, text: str, plot: Path | None = None) -> int:
    """Print ``data`` as one JSON object (``--json``: no wall time, so the same command
    prints the same bytes), else ``text`` and where the plot was written; return 0."""
    import json

    if as_json:
        print(json.dumps(data))
    else:
        print(text if plot is None else f"{text}\nplot written to {plot}")
    return 0


def save_plot(path: Path, draw, figsize: tuple[float, float], ncols: int = 1) -> None:
    """Draw a figure off-screen in the paper style
    (:func:`~yahtzee_sim.analysis.style.figure_style`: fonts of 8 points at 7 inches,
    constrained layout) and save it to ``path``, byte-identical run to run
    (:func:`~yahtzee_sim.analysis.style.save_figure`), atomically
    (:func:`~yahtzee_sim.engine.atomic.atomic_path`).

    Parameters
    ----------
    path : Path
        ``.png`` (200 dpi), ``.pdf`` or ``.svg``.
    draw : callable
        ``draw(ax)`` (or ``draw(axes)`` with ``ncols > 1``) draws the plot.
    figsize : tuple of float
        Width and height in inches (:data:`~yahtzee_sim.analysis.style.FULL_WIDTH` wide,
        or :data:`~yahtzee_sim.analysis.style.COLUMN_WIDTH`).
    ncols : int
        Side-by-side axes.
    """
    # matplotlib is imported here, not at the top: `yahtzee-sim --help` must stay fast.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from yahtzee_sim.analysis import style

    with style.figure_style():
        fig, ax = plt.subplots(1, ncols, figsize=figsize, layout="constrained")
        try:
            draw(ax)
            with atomic_path(path) as tmp:
                style.save_figure(fig, tmp)
        finally:
            plt.close(fig)
