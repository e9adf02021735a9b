"""Analysis of simulation results (statistics, selection, tournaments, plots)."""
