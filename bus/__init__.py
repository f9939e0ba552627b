"""The in-process bus: typed routing, the actor base class, supervision, shutdown."""
