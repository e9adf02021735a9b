"""The bundles the compiled core's kernels take, built in Python: the rules in kernel form
(:mod:`.scoring`: :class:`~.scoring.KernelRules`), a widget run's lanes (:mod:`.lanes`), the
win values' constants (:mod:`.win_values`) and big arrays on huge pages (:mod:`.memory`).
Internal: the public API builds and passes them."""
