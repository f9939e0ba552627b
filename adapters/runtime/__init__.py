"""Composing and running the actors: settings, clock, the consolidation pipeline, the daemon and its run gate,
the demo store, the per-user service unit, and how a process exits (model threads, Ctrl-C)."""
