"""The screen every proposed (or synced-in) memory passes: does it try to steer the agent that will read it?

A memory is read back into an agent's context at every session start, so a
memory that carries instructions is a prompt injection with a long fuse. The
screen looks for what a fact has no reason to hold: overriding instructions,
fake role or system tags, authority claims, requests to send data elsewhere,
instructions to hide things from the user, and text a reader cannot see
(zero-width or direction-changing characters, HTML comments). It answers the
highest level any pattern reaches, with the pattern's name; high and critical
block. Pure: the levels and patterns are in events/threat_screen.py (standard
library only: the SessionStart hook screens with them), the model is here.
Ordinary project rules ("always run ruff before committing") are not threats:
they are what decisions look like.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from memactors.events.threat_screen import ThreatLevel, highest


class Threat(BaseModel):
    """What the screen found: the level and the pattern that set it ("" when none matched)."""

    model_config = ConfigDict(frozen=True)

    level: ThreatLevel = ThreatLevel.NONE
    pattern: str = ""


def screen(*texts: str) -> Threat:
    """The highest threat any of `texts` carries, with the first pattern that reached it."""
    level, pattern = highest(*texts)
    return Threat(level=level, pattern=pattern)


__all__ = ["Threat", "ThreatLevel", "screen"]
