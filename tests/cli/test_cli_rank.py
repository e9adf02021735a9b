"""``yahtzee-sim rank``: the full ranking on the command line, its JSON, its errors, and
the per-game scores it ranks (the same for any number of jobs)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from yahtzee_sim.analysis import rank_strategies
from yahtzee_sim.analysis.ranking.paired_games import simulate_scores
from yahtzee_sim.cli import main
from yahtzee_sim.engine.simulate import simulate_aggregate

TOY = ["--rules", "2-yatzy", "--games", "400", "--seed", "3"]


def test_rank_json(capsys):
    code = main(["rank", "--strategies", "greedy,random,optimal", *TOY, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [row["strategy"] for row in data["table"]] == ["optimal", "greedy", "random"]
    assert [row["exact"] for row in data["table"]] == [True, True, False]
    assert data["games"] == 400 and isinstance(data["games"], int)
    assert all(isinstance(row["games"], int) for row in data["table"])
    assert data["alpha"] == 0.05 and "Bonferroni" in data["procedure"]
    assert len(data["pairs"]) == 3 and sum(p["exact"] for p in data["pairs"]) == 1
    exact_pair = next(p for p in data["pairs"] if p["exact"])
    assert exact_pair["low"] == exact_pair["difference"] == exact_pair["high"]
    assert data["guarantee"].startswith("With probability at least 0.95")


def test_rank_text_says_which_means_are_exact(capsys):
    code = main(["rank", "--strategies", "greedy,random", *TOY, "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("full ranking on 2-yatzy: 400 games per random strategy, seed 3")
    assert "behind the best" in lines[1]
    greedy = next(line for line in lines if line.startswith("greedy"))
    assert greedy.split()[-1] == "exact" and "[" not in greedy  # the best: nothing behind
    random = next(line for line in lines if line.startswith("random"))
    assert "[" in random and random.split()[-1] == "400"
    assert "pairs tested: 1, compared by exact means: 0" in out


def test_rank_simulate_all_uses_no_exact_mean(capsys):
    code = main(["rank", "--strategies", "greedy,optimal", *TOY, "--simulate-all", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and not any(row["exact"] for row in data["table"])


def test_two_deterministic_strategies_are_ordered_without_error(capsys):
    code = main(["rank", "--strategies", "greedy,optimal", *TOY, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["pairs"][0]["exact"] and data["pairs"][0]["significant"]
    assert data["pairs"][0]["difference"] == pytest.approx(5.0 - 4.71875)
    assert data["guarantee"].startswith("Every strategy is deterministic")
    assert [row["tier"] for row in data["table"]] == ["a", "b"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--strategies", "greedy,nope"], "unknown strategy 'nope'"),
        (["--strategies", "greedy,gredy"], "unknown strategy 'gredy' (did you mean 'greedy'?)"),
        (["--strategies", "greedy"], "at least 2"),
        (["--strategies", "greedy,greedy"], "distinct"),
        (["--strategies", "greedy,random", "--alpha", "1.5"], "--alpha must be"),
        (["--strategies", "greedy,random", "--games", "0"], "--games"),
        (
            ["--strategies", "greedy,random", "--games", "1"],
            "--games: expected a whole number >= 2",
        ),
        (["--strategies", "greedy,random", "--jobs", "0"], "jobs"),
    ],
)
def test_rank_errors(capsys, args, needle):
    with pytest.raises(SystemExit) as info:
        raise SystemExit(main(["rank", "--rules", "2-yatzy", "--quiet", *args]))
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1, err


def test_scores_and_aggregate_are_the_same_for_any_jobs():
    one = simulate_scores("random", 3000, seed=5, rules="2-yatzy", n_jobs=1)
    two = simulate_scores("random", 3000, seed=5, rules="2-yatzy", n_jobs=2)
    np.testing.assert_array_equal(one.scores, two.scores)
    streamed = simulate_aggregate("random", 3000, seed=5, rules="2-yatzy")
    for agg in (one.aggregate, two.aggregate):
        assert agg.summary() == streamed.summary()
    assert one.scores.dtype == np.int16 and one.scores.sum() == streamed.histogram @ np.arange(
        len(streamed.histogram)
    )


def test_rank_strategies_is_bit_identical_for_any_jobs():
    args = dict(n_games=2000, seed=2, rules="2-yatzy", exact=False, progress=False)
    one = rank_strategies(["greedy", "random"], n_jobs=1, **args)
    two = rank_strategies(["greedy", "random"], n_jobs=2, **args)
    assert one.table.equals(two.table) and one.pairs.equals(two.pairs)


def test_rank_out_writes_the_ranking_files(tmp_path, capsys):
    folder = tmp_path / "ranking"
    assert (
        main(["rank", "--strategies", "greedy,random", *TOY, "--quiet", "--out", str(folder)]) == 0
    )
    out = capsys.readouterr().out
    assert f"ranking.csv, ranking_pairs.csv, ranking.tex written to {folder}" in out
    tex = (folder / "ranking.tex").read_text()
    assert r"\begin{table*}" in tex and "With probability at least 0.95" in tex
    assert " & 0 \\\\" not in tex  # no "games 0" for the exact mean
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit) as info:
        raise SystemExit(main(["rank", *TOY, "--quiet", "--out", str(tmp_path / "file")]))
    assert info.value.code == 2 and "--out" in capsys.readouterr().err


def test_no_progress_bar_when_stderr_is_not_a_terminal(capsys):
    args = ["rank", "--strategies", "random,greedy", *TOY]
    assert main(args) == 0  # capsys: stderr is not a terminal
    assert "rank" not in capsys.readouterr().err
    assert main([*args, "--progress"]) == 0  # asked for: drawn anyway
    assert "rank:" in capsys.readouterr().err
