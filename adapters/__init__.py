"""Adapters: everything that touches git, files, HTTP, subprocesses, the clock or the user.

Its packages stand on floors, the lowest first; a package imports only its own floor and those below it.
"""

#: The adapter packages from the ground floor up (one floor each; tests/test_imports.py holds the house to it).
FLOORS = ("system", "git", "reading", "claude", "models", "runtime", "operations", "viewer", "mcp", "cli")
