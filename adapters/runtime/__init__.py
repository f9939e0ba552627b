"""Composing and running the actors: settings, clock, the consolidation pipeline, the daemon and the demo store."""
