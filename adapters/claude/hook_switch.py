"""The environment marker that turns every memactors hook command into a no-op.

Standard library only (it is read on every hook's path). memactors sets it
for the `claude` sub-sessions it starts as an LLM (the claude-code
provider), so its own hooks never fire inside them and its prompts never
come back as memories; a user may set it too, to silence the hooks for a
while.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

HOOKS_SWITCH = "MEMACTORS_HOOKS"
OFF = "off"


def hooks_off(environ: Mapping[str, str] | None = None) -> bool:
    value = (os.environ if environ is None else environ).get(HOOKS_SWITCH, "")
    return value.strip().lower() in (OFF, "0", "false", "no")
