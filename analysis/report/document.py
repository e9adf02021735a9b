"""A tiny document model rendered to Markdown and to HTML with the same content, and the
folder it is written to with its figures and data files."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from yahtzee_sim.analysis.report.latex import NOT_APPLICABLE, whole_columns
from yahtzee_sim.engine.atomic import atomic_path, write_atomic


@dataclass
class Document:
    """Blocks of a report: headings, paragraphs, tables, figures and code."""

    title: str
    blocks: list = field(default_factory=list)

    def heading(self, text: str, level: int = 2) -> None:
        self.blocks.append(("heading", level, text))

    def paragraph(self, text: str) -> None:
        self.blocks.append(("paragraph", text))

    def table(
        self,
        frame: pd.DataFrame,
        floatfmt: str = ".2f",
        index: bool = True,
        formats: dict[str, str] | None = None,
    ) -> None:
        """A table of ``frame``: floats with ``floatfmt``, or the format ``formats`` gives
        their column; a float column of whole numbers as integers, NaN as an en dash."""
        self.blocks.append(("table", frame, floatfmt, index, dict(formats or {})))

    def figure(self, path: str, caption: str) -> None:
        self.blocks.append(("figure", path, caption))

    def code(self, text: str) -> None:
        self.blocks.append(("code", text))

    # ---------------------------------------------------------------- rendering
    @staticmethod
    def _cells(frame: pd.DataFrame, floatfmt: str, index: bool, formats: dict):
        """Header and rows of text; each value keeps its column's type (an integer
        column, and a float column of whole numbers, print as integers), a float prints
        with its column's format, NaN (a cell that does not apply) as an en dash."""
        head = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
        fmts = [formats.get(c, floatfmt) for c in frame.columns]
        for c in whole_columns(frame):
            fmts[frame.columns.get_loc(c)] = ".0f"
        rows = []
        for idx, *values in frame.itertuples(name=None):
            cells = [str(idx)] if index else []
            for i, v in enumerate(values):
                if isinstance(v, float):
                    cells.append(NOT_APPLICABLE if v != v else format(v, fmts[i]))
                else:
                    cells.append(str(v))
            rows.append(cells)
        return head, rows

    def to_markdown(self) -> str:
        out = [f"# {self.title}", ""]
        for block in self.blocks:
            kind = block[0]
            if kind == "heading":
                out += ["#" * block[1] + " " + block[2], ""]
            elif kind == "paragraph":
                out += [block[1], ""]
            elif kind == "table":
                head, rows = self._cells(*block[1:])
                out.append("| " + " | ".join(head) + " |")
                out.append("|" + "---|" * len(head))
                out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
                out.append("")
            elif kind == "figure":
                out += [f"![{block[2]}]({block[1]})", "", f"*{block[2]}*", ""]
            elif kind == "code":
                out += ["```", block[1].rstrip("\n"), "```", ""]
        return "\n".join(out)

    def to_html(self) -> str:
        e = html.escape
        out = [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{e(self.title)}</title>",
            "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;"
            "padding:0 1em;line-height:1.45}table{border-collapse:collapse;font-size:.85em;"
            "margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}"
            "th{background:#f3f3f3}img{max-width:100%}figcaption{font-style:italic}"
            "pre{background:#f6f6f6;padding:.8em;overflow-x:auto}</style></head><body>",
            f"<h1>{e(self.title)}</h1>",
        ]
        for block in self.blocks:
            kind = block[0]
            if kind == "heading":
                out.append(f"<h{block[1]}>{e(block[2])}</h{block[1]}>")
            elif kind == "paragraph":
                out.append(f"<p>{_inline(block[1])}</p>")
            elif kind == "table":
                head, rows = self._cells(*block[1:])
                out.append(
                    "<table><thead><tr>"
                    + "".join(f"<th>{e(h)}</th>" for h in head)
                    + "</tr></thead><tbody>"
                )
                for r in rows:
                    out.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>")
                out.append("</tbody></table>")
            elif kind == "figure":
                out.append(
                    f'<figure><img src="{e(block[1])}" alt="{e(block[2])}">'
                    f"<figcaption>{e(block[2])}</figcaption></figure>"
                )
            elif kind == "code":
                out.append(f"<pre><code>{e(block[1])}</code></pre>")
        out.append("</body></html>")
        return "\n".join(out)


class DocumentFolder:
    """A folder being written: figures, CSV files and one :class:`Document`, each file
    atomically (:mod:`yahtzee_sim.engine.atomic`: a process killed while writing leaves
    every file whole, old or new).

    Parameters
    ----------
    out : Path
        The folder (it exists).
    title : str
        The document's title.
    figure_formats : tuple of str
        The formats every figure is written in (``png``, ``pdf``, ``svg``).
    """

    def __init__(self, out: Path, title: str, figure_formats: tuple[str, ...] = ("png",)):
        self.out, self.files, self.doc = out, [], Document(title)
        self.figure_formats = tuple(figure_formats)

    def figure(self, fig, name: str, caption: str, data: str | None = None) -> None:
        """Save ``fig`` as ``name`` in every format of the folder (``kn_trace.png`` →
        ``kn_trace.png``, ``kn_trace.pdf``...), close it and show it in the document (the
        PNG where written) with ``caption`` and the CSV file of what it draws (``data``).

        The files are byte-identical run to run
        (:func:`~yahtzee_sim.analysis.style.save_figure`); a figure without a layout
        engine gets constrained layout.
        """
        import matplotlib.pyplot as plt

        from yahtzee_sim.analysis.style import save_figure

        stem = Path(name).stem
        names = [f"{stem}.{fmt}" for fmt in self.figure_formats]
        if fig.get_layout_engine() is None:
            fig.set_layout_engine("constrained")
        try:
            for file in names:
                with atomic_path(self.out / file) as tmp:
                    save_figure(fig, tmp)
        finally:
            plt.close(fig)
        self.files += names
        shown = f"{stem}.png" if "png" in self.figure_formats else names[0]
        self.doc.figure(shown, caption + (f" Data: {data}." if data else ""))

    def csv(self, frame: pd.DataFrame, name: str, index: bool = True, float_format=None) -> None:
        """Write ``frame`` as ``name`` (``float_format``: as :meth:`pandas.DataFrame.to_csv`)."""
        with atomic_path(self.out / name) as tmp:
            frame.to_csv(tmp, index=index, float_format=float_format)
        self.files.append(name)

    def text(self, content: str, name: str) -> None:
        """Write the text file ``name`` (UTF-8)."""
        write_atomic(self.out / name, content)
        self.files.append(name)

    def finish(self) -> list[str]:
        """Write ``report.md`` and ``report.html``; every file written, documents first."""
        write_atomic(self.out / "report.md", self.doc.to_markdown())
        write_atomic(self.out / "report.html", self.doc.to_html())
        return ["report.md", "report.html", *self.files]


def _inline(text: str) -> str:
    """Markdown ``code`` and **bold** spans to HTML (everything else escaped)."""
    import re

    t = html.escape(text)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", t)
