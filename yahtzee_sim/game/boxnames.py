"""Box names as people type and read them: one label per box and the matching of what a
player types (the terminal game, the web API) to a box of the rules.

A box's label is :attr:`Box.label <yahtzee_sim.game.scoring.Box.label>`
(``"three_of_a_kind"`` → ``"Three of a kind"``). :func:`match_box` takes, case-insensitively
and with spaces, underscores and hyphens alike:

* the exact name (``three_of_a_kind``, ``Three of a kind``, ``three-of-a-kind``);
* a common abbreviation (:func:`aliases`): ``1s`` … ``6s``; ``3k``/``3x``/``toak``/
  ``three`` (three of a kind), ``4k``/``4x``/``foak``/``four``; ``fh``/``full``;
  ``ss``/``sm``/``small``, ``ls``/``lg``/``large``; ``y``/``yahtzee``/``yatzy``;
  ``ch``/``chance``; Yatzy's ``1p``/``pair`` (one pair) and ``2p``/``tp`` (two pairs);
* a prefix of the name, word by word (``small st``, ``sm str``, ``fu``, ``th``): it must
  fit one open box, else the error lists the candidates.

Matching looks among the open boxes (those that may take the roll); naming a filled
box gets "already filled".

Examples
--------
>>> from yahtzee_sim.game.rules import get_rules
>>> rules = get_rules("yahtzee")
>>> match_box(rules, "SS"), match_box(rules, "3k"), match_box(rules, "full")
('small_straight', 'three_of_a_kind', 'full_house')
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from yahtzee_sim.errors import BoxNameError
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.scoring import Box

_NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def kind_box_plural(rules: RuleSet) -> str:
    """The n-of-a-kind box named as the rules name it, in the plural: ``Yahtzees`` on
    Yahtzee, ``Yatzys`` on Yatzy, ``Yachts`` on Yacht; ``n-of-a-kinds`` on rules without one.

    Examples
    --------
    >>> from yahtzee_sim.game.rules import get_rules
    >>> kind_box_plural(get_rules("yatzy")), kind_box_plural(get_rules("yahtzee"))
    ('Yatzys', 'Yahtzees')
    """
    labels = [box.label for box in rules.boxes if box.kind == "yahtzee"]
    return f"{labels[0]}s" if labels else "n-of-a-kinds"


def normalize(text: str) -> str:
    """``text`` lower-cased, with runs of spaces, underscores and hyphens as one ``_``
    (``" Small-Straight "`` → ``"small_straight"``)."""
    return re.sub(r"[\s_\-]+", "_", str(text).strip().lower()).strip("_")


def aliases(box: Box) -> tuple[str, ...]:
    """The abbreviations of a box (normalized), by what the box scores."""
    kind, p, name = box.kind, box.param, box.name
    word = _NUMBERS.get(p, str(p))
    if kind == "upper":
        return (f"{p}s", f"{p}'s", f"{word}s")
    if kind in ("n_kind", "n_equal"):
        if p == 2:
            return ("1p", "pair", "op", "one_pair", "2k", "2x")
        own = (f"{p}k", f"{p}x", f"{p}oak", f"{word[0]}oak", word, f"{p}_of_a_kind")
        return own + {3: ("trips",), 4: ("quads",)}.get(p, ())
    if kind == "two_pairs":
        return ("2p", "tp", "2_pairs", "two_pair", "pairs")
    if kind == "full_house":
        return ("fh", "full", "house")
    if kind == "straight" and "small" in name:
        return ("ss", "sm", "small", "sst", "s_st")
    if kind == "straight" and "large" in name:
        return ("ls", "lg", "large", "lst", "l_st", "big")
    if kind == "yahtzee":
        return ("y", "yahtzee", "yatzy", "yacht", "5k", "5oak")
    if kind == "chance":
        return ("ch", "c", "chance")
    return ()


def _word_prefix(text: str, name: str) -> bool:
    """Whether each ``_``-separated word of ``text`` starts the word of ``name`` at its
    place (``"sm_st"`` fits ``"small_straight"``)."""
    words, full = text.split("_"), name.split("_")
    if len(words) > len(full):
        return False
    return all(f.startswith(w) for w, f in zip(words, full[: len(words)], strict=True))


def _candidates(rules: RuleSet, key: str) -> list[str]:
    """The boxes ``key`` (normalized) names: an exact name, else an abbreviation, else a
    word-by-word prefix (in card order)."""
    names = rules.box_names
    if key in names:
        return [key]
    by_alias = [c.name for c in rules.boxes if key in aliases(c)]
    if by_alias:
        return by_alias
    return [n for n in names if _word_prefix(key, n)]


def _listing(names: list[str], labels: dict[str, str]) -> str:
    return ", ".join(labels[n] for n in names) or "none"


def match_box(
    rules: RuleSet,
    text: str,
    open_boxes: Iterable[str] | None = None,
    filled: Iterable[str] = (),
) -> str:
    """The box of ``rules`` that ``text`` names (see the module docstring).

    Parameters
    ----------
    rules : RuleSet
    text : str
        What the player typed.
    open_boxes : iterable of str, optional
        The boxes that may take the roll (default: every box).
    filled : iterable of str
        The boxes already filled (named in the error when ``text`` names one).

    Returns
    -------
    str
        The box's name (``rules.box_names``).

    Raises
    ------
    BoxNameError
        No open box fits (the message lists the open boxes, and says why a box named
        is not among them), or several do (the message lists them).
    """
    names = rules.box_names
    allowed = names if open_boxes is None else [n for n in names if n in set(open_boxes)]
    labels = dict(zip(names, rules.box_labels, strict=True))
    key = normalize(text)
    found = _candidates(rules, key) if key else []
    hits = [n for n in found if n in allowed]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise BoxNameError(
            f"{str(text).strip()!r} fits {_listing(hits, labels)}: type more of the name"
        )
    listing = f"open: {_listing(allowed, labels)}"
    if found:
        done = set(filled)
        why = "already filled" if all(n in done for n in found) else "not open to this roll"
        raise BoxNameError(f"{_listing(found, labels)}: {why}; {listing}")
    shown = str(text).strip()[:40] or "nothing"
    raise BoxNameError(
        f"{shown!r} names no open box; {listing} "
        "(prefixes and abbreviations such as ss, 3k, fh work)"
    )
