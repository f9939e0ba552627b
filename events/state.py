"""The consolidation state a run starts from."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from memactors.events.edge import Edge
from memactors.events.metadata import MemoryMeta
from memactors.events.summary import Summary


class StateSnapshot(BaseModel):
    """Our refs as a run found them.

    `tips` maps each state ref to the commit it pointed at (None: absent);
    the persister compares against these to publish only on an unchanged
    store (compare-and-swap). `meta` is every metadata record, by memory key;
    `summaries` by summary id; `edges` by edge id; `*_commits` say which
    commit's note holds each record.
    """

    model_config = ConfigDict(frozen=True)

    tips: dict[str, str | None]
    meta: dict[str, MemoryMeta]
    summaries: dict[str, Summary] = {}
    summary_commits: dict[str, str] = {}
    edges: dict[str, Edge] = {}
    edge_commits: dict[str, str] = {}
