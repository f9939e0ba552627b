"""The floor every adapter stands on: the process (how it exits) and the clock."""
