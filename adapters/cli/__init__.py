"""The `memactors` command line: one module per command group, the parser built from them (`main`)."""

from memactors.adapters.cli.main import main

__all__ = ["main"]
