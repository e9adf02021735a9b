"""Learning agents: Gymnasium environments on the engine's own kernels (extra ``rl``)."""
