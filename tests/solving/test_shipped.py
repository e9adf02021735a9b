"""The value table that ships with the package: bit for bit a fresh solve, read where a
solve would run (then cached), refused when its digest fails, never used by a forced
solve."""

import json
import lzma

import numpy as np
import pytest

from yahtzee_sim.cli import main
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving import shipped
from yahtzee_sim.solving.cache import cache_path
from yahtzee_sim.solving.solver import TABLES, solve, table_stored, value_table


def test_every_shipped_table_is_a_fresh_solve_bit_for_bit():
    for name in shipped.SHIPPED_RULES:
        rules = get_rules(name)
        assert shipped.ships(rules), f"{name}: no table ships for its fingerprint"
        assert np.array_equal(shipped.shipped_values(rules), solve(rules).values), name


@pytest.fixture
def empty_cache(monkeypatch, tmp_path):
    """An empty table cache, and ``yahtzee`` out of memory (put back afterwards)."""
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path / "cache"))
    key = TABLES.key(get_rules("yahtzee"))
    TABLES.forget(key)
    yield tmp_path
    TABLES.forget(key)


def test_a_first_value_table_reads_the_shipped_one_and_caches_it(empty_cache):
    rules = get_rules("yahtzee")
    assert table_stored(rules)  # no file in the cache, but it ships
    first = value_table(rules)
    assert first.meta["source"] == "shipped"
    assert cache_path("values", TABLES.key(rules)).exists()
    TABLES.forget(TABLES.key(rules))
    again = value_table(rules)
    assert again.meta["source"] == "cache"
    assert np.array_equal(again.values, first.values)
    assert value_table(rules, use_cache=False).meta["source"] == "solved"


def test_solve_says_where_the_table_came_from(empty_cache, capsys):
    assert main(["solve"]) == 0
    assert "loaded from the package" in capsys.readouterr().out
    assert main(["solve", "--json", "--force"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == "solved"


def test_a_shipped_file_that_fails_its_digest_is_not_used(empty_cache, monkeypatch):
    folder = empty_cache / "tables"
    manifest = shipped.write_shipped({"yahtzee": solve("yahtzee").values}, folder)
    assert manifest == json.loads((shipped.tables_folder() / "manifest.json").read_text())
    monkeypatch.setattr(shipped, "tables_folder", lambda: folder)
    rules = get_rules("yahtzee")
    assert shipped.shipped_values(rules) is not None
    entry = manifest[rules.fingerprint()]
    data = bytearray(lzma.decompress((folder / entry["file"]).read_bytes()))
    data[-1] ^= 0x01
    (folder / entry["file"]).write_bytes(lzma.compress(bytes(data)))
    assert shipped.shipped_values(rules) is None
    assert value_table(rules).meta["source"] == "solved"
    (folder / entry["file"]).write_bytes(b"not xz")
    assert shipped.shipped_values(rules) is None


def test_other_rules_ship_nothing():
    assert not shipped.ships(get_rules("yatzy"))
    assert shipped.shipped_values(get_rules("yatzy")) is None


def test_writing_again_keeps_unchanged_files_and_drops_stale_ones(tmp_path):
    values = {"yahtzee": solve("yahtzee").values}
    shipped.write_shipped(values, tmp_path)
    (table,) = tmp_path.glob("values-*.f64.xz")
    table.write_bytes(lzma.compress(lzma.decompress(table.read_bytes()), preset=1))
    kept = table.read_bytes()  # the same values, compressed otherwise: not rewritten
    (tmp_path / "values-0000000000000000.f64.xz").write_bytes(b"an old table")
    shipped.write_shipped(values, tmp_path)
    assert table.read_bytes() == kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json", table.name]


@pytest.mark.parametrize("manifest", ["not json", "[1, 2]", '{"b241ad645c4c1905": {}}'])
def test_an_unreadable_manifest_ships_nothing(monkeypatch, tmp_path, manifest):
    (tmp_path / "manifest.json").write_text(manifest)
    monkeypatch.setattr(shipped, "tables_folder", lambda: tmp_path)
    assert shipped.shipped_values(get_rules("yahtzee")) is None
