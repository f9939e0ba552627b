"""The quality signal's configurable policy (`MEMACTORS_QUALITY_*`); the signal itself is in
events/content_quality.py (standard library only), re-exported here.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from memactors.events.content_quality import (
    AUTO_CAPTURED_TAG,
    WELL_FORMED,
    ContentTraits,
    Quality,
    QualityWeights,
    assess,
    asserts,
    content_traits,
    quality_score,
    with_score,
)

_DEFAULT = QualityWeights()


class QualityPolicy(BaseModel):
    """Every weight of the quality signal (`MEMACTORS_QUALITY_*`)."""

    model_config = ConfigDict(frozen=True)

    auto_captured: float = Field(_DEFAULT.auto_captured, ge=0, le=1)
    cut: float = Field(_DEFAULT.cut, ge=0, le=1)
    unreadable: float = Field(_DEFAULT.unreadable, ge=0, le=1)
    echo: float = Field(_DEFAULT.echo, ge=0, le=1)
    markup_weight: float = Field(_DEFAULT.markup_weight, ge=0, le=1)
    min_words: int = Field(_DEFAULT.min_words, ge=1)


__all__ = ["AUTO_CAPTURED_TAG", "WELL_FORMED", "ContentTraits", "Quality", "QualityPolicy", "QualityWeights", "assess",
           "asserts", "content_traits", "quality_score", "with_score"]
