"""The outside world: git, files, the clock, the command line."""
