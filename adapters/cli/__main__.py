"""`python -m memactors.adapters.cli`: what hooks installed by earlier versions run."""

from memactors.adapters.cli import entry

entry()
