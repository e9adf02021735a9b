"""MkDocs hooks of the handbook (``hooks:`` in mkdocs.yml).

The docstrings use Sphinx roles (``:func:`~yahtzee_sim.exact.laws.evaluate```), which
mkdocstrings renders as text: drop the role and the ``~`` so that only the code remains.
"""

import re

_ROLE = re.compile(r":(?:mod|func|class|data|meth|attr|obj|exc|const):(<code>)~?")


def on_page_content(html: str, **kwargs) -> str:
    """Remove Sphinx role prefixes from a rendered page."""
    return _ROLE.sub(r"\1", html)
