"""The command line as a whole: `simulate` output formats, one-line errors with exit 2,
every command's help, listings, extras hints and renamed options kept as aliases."""

import json
import sys

import pandas as pd
import pytest

from yahtzee_sim.cli import main
from yahtzee_sim.engine.summary import SIMULATION_KEYS, SUMMARY_KEYS


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json(capsys):
    code, out, _err = run(capsys, "simulate", "--games", "2000", "--seed", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert {*SUMMARY_KEYS, *SIMULATION_KEYS} <= set(data)
    assert set(data["percentiles"]) == {"p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"}
    assert data["strategy"] == "greedy" and data["games"] == 2000 and data["rules"] == "yahtzee"


def test_simulate_text_and_csv(capsys, tmp_path):
    out_file = tmp_path / "games.csv"
    code, out, _ = run(
        capsys,
        "simulate",
        "--strategy",
        "random",
        "--games",
        "500",
        "--out",
        str(out_file),
        "--quiet",
    )
    assert code == 0 and "mean ± sd" in out
    df = pd.read_csv(out_file)
    assert len(df) == 500 and "score_chance" in df


@pytest.mark.parametrize(
    ("rules", "name"), [("yahtzee", "Yahtzees"), ("yatzy", "Yatzys"), ("2-yatzy", "n-of-a-kinds")]
)
def test_simulate_names_the_n_of_a_kind_box_as_the_rules_do(capsys, rules, name):
    args = ["simulate", "--strategy", "random", "--rules", rules, "--games", "200", "--quiet"]
    code, out, _ = run(capsys, *args)
    line = next(line for line in out.splitlines() if "per game" in line)
    assert code == 0 and line.split()[0] == name.split()[0], line
    assert ("Yahtzees" in out) == (rules == "yahtzee")


def test_an_api_keyword_in_a_message_is_named_by_its_option():
    import argparse

    from yahtzee_sim.cli.options import flag_message

    args = argparse.Namespace(games=1, jobs=1, top=3, alpha=0.5, out=None)
    assert flag_message("n_games must be an integer >= 2, got 1", args) == (
        "--games must be an integer >= 2, got 1"
    )
    assert flag_message("n_jobs must be a non-zero integer", args).startswith("--jobs must")
    assert flag_message("regret_top must be an integer >= 0", args).startswith("--top must")
    assert flag_message("out: 'x' exists and is not a folder", args).startswith("--out: 'x'")
    assert flag_message("delta must be > 0", args) == "delta must be > 0"  # not an option here
    assert flag_message("unknown strategy 'x'", args) == "unknown strategy 'x'"


def test_progress_is_drawn_on_a_terminal_or_when_asked(monkeypatch):
    import argparse

    from yahtzee_sim.cli import options as opt

    def args(**kw):
        return argparse.Namespace(**({"quiet": False, "json": False, "progress": False} | kw))

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert not opt.progress(args()) and opt.progress(args(progress=True))
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert opt.progress(args()) and not opt.progress(args(quiet=True))
    assert not opt.progress(args(json=True)) and opt.progress(args(quiet=True, progress=True))


def test_simulate_parquet(capsys, tmp_path):
    pytest.importorskip("pyarrow")
    out_file = tmp_path / "games.parquet"
    code, _, _ = run(capsys, "simulate", "--games", "300", "--out", str(out_file), "--quiet")
    assert code == 0 and len(pd.read_parquet(out_file)) == 300


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["simulate", "--rules", "nope"], "unknown rules 'nope'"),
        (["simulate", "--strategy", "nope"], "unknown strategy 'nope'"),
        (["simulate", "--games", "0"], "--games"),
        (["simulate", "--games", "ten"], "--games"),
        (["simulate", "--seed", "-4"], "--seed"),
        (["simulate", "--jobs", "0"], "--jobs"),
        (["simulate", "--out", "x.txt"], "--out must end in .parquet or .csv"),
        (["simulate", "--out", "/no/such/dir/x.csv"], "does not exist"),
        (["frobnicate"], "invalid choice"),
        (["simulate", "--strategy", "optimall"], "(did you mean 'optimal'?)"),
        # the limit as enforced, with the flag's name
        (["report", "--games", "-5"], "argument --games: expected a whole number >= 100"),
        (["report", "--games", "99"], "argument --games: expected a whole number >= 100"),
        (["reproduce", "--games", "50"], "argument --games: expected a whole number >= 100"),
        (["report", "--rules", "2-yatzy", "--jobs", "-1", "--top", "-1"], "--top must be >= 0"),
    ],
)
def test_bad_arguments_one_line_exit_2(capsys, args, needle):
    with pytest.raises(SystemExit) as info:
        code = main(args)
        raise SystemExit(code)
    assert info.value.code == 2
    _, err = capsys.readouterr()
    assert needle in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_bad_output_dir_fails_before_simulating(capsys, tmp_path):
    code, out, _err = run(
        capsys, "simulate", "--games", "100000000", "--out", str(tmp_path / "missing" / "g.csv")
    )
    assert code == 2 and out == ""


def test_strategies_and_rules_listing(capsys):
    code, out, _ = run(capsys, "strategies", "--json")
    assert code == 0
    rows = {row["id"]: row for row in json.loads(out)}
    assert {"greedy", "random", "tiered-random"} <= set(rows)
    assert "yatzy" in rows["greedy"]["rules"] and "yatzy" not in rows["defensive"]["rules"]
    assert rows["target"]["in_all"] is False and rows["greedy"]["version"] == 1
    assert rows["greedy"]["references"][0]["mean"] == 214.37
    # the capabilities each family declares
    assert (rows["optimal"]["solved_table"], rows["greedy"]["solved_table"]) == (True, False)
    assert (rows["win-aware"]["uses_total"], rows["random"]["deterministic"]) == (True, False)
    assert rows["target"]["requires"] == "games without saved rolls"
    assert "maxi-yatzy" in rows["optimal"]["rules"] and "maxi-yatzy" not in rows["target"]["rules"]
    code, out, _ = run(capsys, "rules", "--json")
    assert code == 0
    assert "yatzy" in json.loads(out)
    _code, out, _ = run(capsys, "rules", "yatzy", "--json")
    assert json.loads(out)["upper_bonus"] == 50


def test_rolls_per_turn_option(capsys):
    _code, out, _ = run(capsys, "simulate", "--games", "500", "--rolls-per-turn", "4", "--json")
    assert json.loads(out)["rules"] == "yahtzee@4"


def _commands():
    from yahtzee_sim.cli import COMMANDS

    return [c.name for c in COMMANDS]


@pytest.mark.parametrize("command", _commands())
def test_every_command_help(capsys, command):
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"usage: yahtzee-sim {command}") and err == ""


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert all(f"    {name}" in out for name in _commands())


def test_extras_hint_both_forms(tmp_path):
    from yahtzee_sim.cli.missing_extras import install_hint, source_checkout

    assert install_hint("web", checkout=True) == 'pip install -e ".[web]"'
    assert install_hint("web", checkout=False) == "pip install 'yahtzee-sim[web]'"
    package = tmp_path / "src" / "yahtzee_sim"
    package.mkdir(parents=True)
    assert not source_checkout(package)
    (tmp_path / "src" / "pyproject.toml").write_text("[project]\n")
    assert source_checkout(package)


@pytest.mark.parametrize("checkout", [True, False])
def test_missing_extra_one_line_exit_2(capsys, monkeypatch, checkout):
    import yahtzee_sim.cli.missing_extras as extras

    monkeypatch.setattr(extras, "source_checkout", lambda: checkout)
    monkeypatch.setitem(sys.modules, "flask", None)  # import flask -> ModuleNotFoundError
    code, out, err = run(capsys, "serve", "--port", "0")
    hint = 'pip install -e ".[web]"' if checkout else "pip install 'yahtzee-sim[web]'"
    assert code == 2 and out == ""
    assert (
        err.strip()
        == f"yahtzee-sim serve: error: serve needs Flask (the optional extra 'web'): {hint}"
    )


def test_missing_extra_raised_inside_a_command(capsys, monkeypatch):
    """An ImportError of an optional package deep inside a command gets the same one line."""
    import yahtzee_sim.cli.missing_extras as extras
    from yahtzee_sim.cli import catalog

    def needs_gymnasium():
        missing = ModuleNotFoundError("No module named 'gymnasium'", name="gymnasium")
        raise ImportError("yahtzee_sim.learning.env needs gymnasium") from missing

    monkeypatch.setattr(extras, "source_checkout", lambda: False)
    monkeypatch.setattr(catalog, "strategy_rows", needs_gymnasium)
    code, _, err = run(capsys, "strategies")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "gymnasium (the optional extra 'rl'): pip install 'yahtzee-sim[rl]'" in err


def test_parquet_without_pyarrow_names_the_extra(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    code, out, err = run(capsys, "simulate", "--games", "10", "--out", str(tmp_path / "g.parquet"))
    assert code == 2 and out == ""
    assert "needs pyarrow (the optional extra 'parquet')" in err and "Traceback" not in err


def test_advise_yahtzee_bonus_keeps_its_older_spelling(capsys):
    """``--yahtzee-bonus`` (the player's word) and ``--flag`` (its older spelling) both
    say the Yahtzee box holds 50: an extra Yahtzee earns the bonus."""
    base = ["advise", "--dice", "6,6,6,6,6", "--rolls-left", "0", "--used", "yahtzee"]
    base += ["--json"]
    outs = []
    for extra in ([], ["--yahtzee-bonus"], ["--flag"]):
        assert main(base + extra) == 0
        outs.append(json.loads(capsys.readouterr().out)["options"])
    assert outs[1] == outs[2] != outs[0]
    assert outs[1][0]["value"] > outs[0][0]["value"] + 50  # the bonus, and more to come
