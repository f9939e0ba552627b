"""The user's word on a memory's tier: pin it (hot whatever its retention) or archive it, and undo either.

Stored in the memory's metadata (`refs/notes/mem-meta`) like a resolution: written at once, compare-and-swap
with a run in progress, kept by every run, carried between clones by `sync` (the latest word wins).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.memories import RESOLVE_ATTEMPTS, commit_user_decision, open_view
from memactors.adapters.operations.outcome import Outcome

Word = Literal["pinned", "archived"]
_VERB = {"pinned": "pin", "archived": "archive"}


def set_pin(repo: Path, memory_id: str, word: Word, *, undo: bool = False) -> Outcome:
    """Pin or archive the memory (`undo`: take that word back; its tier then follows its retention again)."""
    from memactors.actors.ports import StateConflict
    from memactors.adapters.system.clock import SystemClock
    from memactors.events.tier import Tier

    store, view = open_view(repo)
    found = view.find(memory_id.strip())
    if found is None:
        raise UsageError(f"no memory {memory_id!r} (see `memactors recall` or `memactors tiers`)")
    key, name = found.memory.key, found.memory.id
    for attempt in range(1, RESOLVE_ATTEMPTS + 1):
        try:
            state = store.load_state()
            meta = state.meta.get(key)
            if meta is None:
                raise UsageError(f"{name} has no tier yet: run `memactors consolidate` first")
            if undo and meta.pin != word:
                return Outcome({"id": name, "pin": meta.pin, "changed": False},
                               f"{name} is not {word}; nothing changed")
            if not undo and meta.pin == word:
                return Outcome({"id": name, "pin": meta.pin, "changed": False},
                               f"{name} is already {word}; nothing changed")
            now = SystemClock().now()
            update: dict[str, object] = {"pin": None if undo else word, "pinned_at": now}
            if not undo:
                update["tier"] = Tier.HOT if word == "pinned" else Tier.ARCHIVED
            commit_user_decision(store, state, {}, {key: meta.model_copy(update=update)}, trigger=_VERB[word],
                                 fallback_commit=found.memory.commit)
            break
        except StateConflict as exc:
            if attempt == RESOLVE_ATTEMPTS:
                raise UsageError(f"the state kept changing ({exc}); try again") from None
    if undo:
        text = (f"{name} is no longer {word}: the next run gives it the tier its retention earns "
                f"(`memactors {_VERB[word]} {name}` again to redo)")
    else:
        tier = "hot" if word == "pinned" else "archived"
        text = (f"{name} {word}: it stays {tier} through every run, on every clone after `sync` "
                f"(`memactors {_VERB[word]} --undo {name}` takes it back)")
    return Outcome({"id": name, "pin": None if undo else word, "changed": True}, text)
