"""Long runs: streamed summaries equal to keeping every game, checkpoints that resume
bit-identically or are refused when damaged, and a dask cluster playing the same games."""

import numpy as np
import pytest

from yahtzee_sim import simulate, simulate_aggregate
from yahtzee_sim.cli import main
from yahtzee_sim.engine.aggregate import Aggregate
from yahtzee_sim.engine.checkpoint import CheckpointError
from yahtzee_sim.engine.results import Results
from yahtzee_sim.engine.simulate import RunInterrupted
from yahtzee_sim.strategies import Strategy
from yahtzee_sim.strategies.greedy import Greedy

from helpers import dask_cluster


# -------------------------------------------------------------- streaming
@pytest.mark.slow
def test_streaming_summary_equals_keeping_all_games():
    full = simulate("greedy", 30_001, seed=5, chunk_size=4096)
    streamed = simulate_aggregate("greedy", 30_001, seed=5, chunk_size=1000, n_jobs=2)
    assert isinstance(full, Results) and full.n_games == 30_001
    assert isinstance(streamed, Aggregate) and streamed.n_games == 30_001
    assert streamed.meta == {"strategy": "greedy", "seed": 5, "first_game": 0}
    a, b = full.summary(), streamed.summary(full.strategy, 5)
    assert a == b
    t = full.total.astype(np.float64)  # and the aggregate arithmetic is numpy's
    assert a["mean"] == pytest.approx(t.mean(), rel=1e-14)
    assert a["sd"] == pytest.approx(t.std(ddof=1), rel=1e-12)
    for q, v in a["percentiles"].items():
        assert v == np.percentile(t, int(q.removeprefix("p")))
    assert a["box_zero_rate"]["yahtzee"] == pytest.approx((full.box_scores[:, 11] == 0).mean())


def test_streaming_keeps_no_per_game_arrays():
    agg = simulate_aggregate("random", 50_000, seed=1, chunk_size=5000)
    held = sum(v.nbytes for v in vars(agg).values() if isinstance(v, np.ndarray))
    assert held < 50_000  # a histogram and a few per-box counters, not 50k games


# ------------------------------------------------------------- checkpoints
_STOP = {"at": None}


class InterruptOnce(Strategy):
    """Plays greedy; raises KeyboardInterrupt once, when game _STOP['at'] starts a block."""

    def __init__(self):
        self._g = Greedy()

    def keep(self, view):
        if _STOP["at"] is not None and view.turn == 0 and view.games[0] >= _STOP["at"]:
            _STOP["at"] = None
            raise KeyboardInterrupt
        return self._g.keep(view)

    def box(self, view):
        return self._g.box(view)


@pytest.mark.parametrize("play", [simulate, simulate_aggregate])
def test_interrupt_and_resume_is_bit_identical(tmp_path, play):
    ck = tmp_path / "run.ckpt"
    _STOP["at"] = 3000
    with pytest.raises(RunInterrupted, match="run the same command again to resume"):
        play(InterruptOnce(), 5000, seed=2, chunk_size=1000, checkpoint=ck)
    assert ck.exists()
    resumed = play(InterruptOnce(), 5000, seed=2, chunk_size=1000, checkpoint=ck)
    plain = play(Greedy(), 5000, seed=2, chunk_size=1000)
    if play is simulate:
        np.testing.assert_array_equal(resumed.total, plain.total)
        np.testing.assert_array_equal(resumed.filled_turn, plain.filled_turn)
    else:
        np.testing.assert_array_equal(resumed.histogram, plain.histogram)
        assert resumed.summary("greedy") == plain.summary("greedy")


def test_interrupt_without_checkpoint_says_nothing_saved():
    _STOP["at"] = 1000
    with pytest.raises(RunInterrupted, match="nothing was saved"):
        simulate(InterruptOnce(), 3000, seed=2, chunk_size=1000)


def test_corrupted_or_foreign_checkpoint_is_refused(tmp_path):
    ck = tmp_path / "run.ckpt"
    simulate_aggregate("greedy", 3000, seed=1, chunk_size=1000, checkpoint=ck)
    with pytest.raises(CheckpointError, match="different run .*seed: 1 there, 2 now"):
        simulate_aggregate("greedy", 3000, seed=2, chunk_size=1000, checkpoint=ck)
    with pytest.raises(CheckpointError, match="different run .*'aggregate' there, 'results' now"):
        simulate("greedy", 3000, seed=1, chunk_size=1000, checkpoint=ck)
    raw = bytearray(ck.read_bytes())
    raw[len(raw) // 3] ^= 0xFF
    ck.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match="corrupted"):
        simulate_aggregate("greedy", 3000, seed=1, chunk_size=1000, checkpoint=ck)
    ck.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="corrupted"):
        simulate_aggregate("greedy", 3000, seed=1, chunk_size=1000, checkpoint=ck)


def test_cli_checkpoint(tmp_path, capsys):
    ck = str(tmp_path / "c.ckpt")
    assert main(["simulate", "--games", "3000", "--checkpoint", ck, "--quiet", "--json"]) == 0
    first = capsys.readouterr().out
    assert main(["simulate", "--games", "3000", "--checkpoint", ck, "--quiet", "--json"]) == 0
    again = capsys.readouterr().out
    assert first == again  # resumed run prints the same bytes
    assert main(["simulate", "--games", "3000", "--seed", "9", "--checkpoint", ck]) == 2
    err = capsys.readouterr().err
    assert "different run" in err and len(err.strip().splitlines()) == 1


# -------------------------------------------------------------------- dask
@pytest.mark.slow
def test_dask_local_cluster_is_bit_identical():
    local = simulate("greedy", 20_000, seed=7, chunk_size=2500)
    with dask_cluster() as client:
        from dask.distributed import get_task_stream

        with get_task_stream(client) as tasks:
            remote = simulate("greedy", 20_000, seed=7, chunk_size=2500, n_jobs=-1)
        assert len(tasks.data) >= 8  # the 8 blocks ran on the cluster's workers
        streamed = simulate_aggregate("random", 20_000, seed=7, chunk_size=2500, n_jobs=-1)
    np.testing.assert_array_equal(local.total, remote.total)
    np.testing.assert_array_equal(local.box_scores, remote.box_scores)
    assert streamed.summary() == simulate("random", 20_000, seed=7).aggregate().summary()
