"""Groups of memories that say the same thing, or about the same thing."""

from __future__ import annotations

import hashlib
from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class ClusterKind(StrEnum):
    """`duplicates`: identical after normalisation, found before any model runs.
    `semantic`: three or more memories close in embedding space (summarized and judged).
    `pair`: two close memories (judged, not summarized)."""

    DUPLICATES = "duplicates"
    SEMANTIC = "semantic"
    PAIR = "pair"


def cluster_id(member_keys: tuple[str, ...] | list[str]) -> str:
    """Identity by membership: the same members give the same cluster, run after run."""
    return hashlib.sha256("\n".join(sorted(member_keys)).encode()).hexdigest()[:16]


class Cluster(BaseModel):
    """Members by stable key, oldest first; `similarity[i][j]` is their cosine.

    `centrality[i]` is member i's cosine to the cluster centroid. `touched`
    says the cluster is new or changed since the last run, so it needs a
    summary and verdicts; untouched clusters keep what they have.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    kind: ClusterKind
    members: tuple[str, ...]
    similarity: tuple[tuple[float, ...], ...] = ()
    centrality: tuple[float, ...] = ()
    touched: bool = True
