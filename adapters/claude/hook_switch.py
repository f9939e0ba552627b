"""The environment marker that turns every memactors hook command into a no-op, and the stage switches hooks read.

Standard library only (it is read on every hook's path). memactors sets the
marker for the `claude` sub-sessions it starts as an LLM (the claude-code
provider), so its own hooks never fire inside them and its prompts never
come back as memories; a user may set it too, to silence the hooks for a
while. The stage switches (surfacing, implicit capture) are Settings fields
too: `switched_off` reads them as pydantic reads a bool, so both agree.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

HOOKS_SWITCH = "MEMACTORS_HOOKS"
OFF = "off"
#: The variables of the surfacing stage's switch (Settings.surfacing_enabled), the documented name first.
SURFACING_SWITCH = ("MEMACTORS_SURFACING_ENABLED", "MEMACTORS_SURFACING")
#: The variable of the implicit capture stage's switch (Settings.implicit_capture_enabled).
IMPLICIT_CAPTURE_SWITCH = ("MEMACTORS_IMPLICIT_CAPTURE_ENABLED",)
#: What pydantic reads as false (case-insensitive); anything else leaves a stage on, so a hook never breaks.
FALSE_WORDS = frozenset({"0", "off", "f", "false", "n", "no"})


def hooks_off(environ: Mapping[str, str] | None = None) -> bool:
    value = (os.environ if environ is None else environ).get(HOOKS_SWITCH, "")
    return value.strip().lower() in (OFF, "0", "false", "no")


def switched_off(names: tuple[str, ...], environ: Mapping[str, str] | None = None) -> bool:
    """True when the first of `names` set in the environment says false (as Settings reads it)."""
    env = os.environ if environ is None else environ
    for name in names:
        if name in env:
            return env[name].strip().lower() in FALSE_WORDS
    return False
