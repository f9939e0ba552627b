"""The quality signal of a memory: a pure, explainable function of its own content, computed on read.

quality = auto_captured · (cut or narration) · unreadable · echo · (1 − markup_weight · markup_share) · information,
each factor in [0, 1] and 1 when it does not apply:
- auto_captured: the plugin's hooks wrote it (tag `auto-captured`);
- cut: it is a window cut from a transcript (summary and body start or end with `...`);
- narration: its prose only announces the agent's next step around guesses or courtesies ("The fix is likely to
  add X. Let me update the config:"): it settles nothing, so it weighs as a cut window (`cut` weight, once);
- unreadable: no complete sentence or statement anywhere (its title is the bare fragment);
- echo: it holds a copy of context a hook injected (memories of memories);
- markup_share: share of its text in code, tables, rules, block markers;
- information: distinct words left after stripping, over `min_words` (capped at 1);
- threat: 0 when the screen (events/threat.py) finds it trying to steer an agent at a blocking level (such a
  memory is also unreadable: no block, surfacing, summary lead or judgement uses it), else 1.
Never stored: no state schema holds it; the same memory always gets the same value.

Standard library only: the SessionStart hook judges memories captured since the last run with it, at the
default weights (`QualityWeights`); events/quality.py holds the configurable policy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from memactors.events.memory_text import (Title, display_title, is_cut, is_echo, markup_share, narrates_only,
                                          prose_lines)
from memactors.events.threat_screen import ThreatLevel, highest

AUTO_CAPTURED_TAG = "auto-captured"
#: Quality from which a memory is a whole, well-formed statement (a cut transcript window scores <= 0.30,
#: an explicit capture 1.0, a complete block the plugin auto-captured 0.85).
WELL_FORMED = 0.5
_WORDS = re.compile(r"[a-z][a-z'-]+")
_BLOCKING = frozenset(level.value for level in ThreatLevel if level.blocks)


class Weights(Protocol):
    """What `quality_score` reads: `QualityWeights`, or the configurable `QualityPolicy`."""

    auto_captured: float
    cut: float
    unreadable: float
    echo: float
    markup_weight: float
    min_words: int


class QualityWeights(NamedTuple):
    """The default weights of the quality signal (`QualityPolicy` takes its defaults from here)."""

    auto_captured: float = 0.85
    cut: float = 0.35
    unreadable: float = 0.3
    echo: float = 0.1
    markup_weight: float = 0.7
    min_words: int = 3


class ContentTraits(NamedTuple):
    """What the quality signal reads in a memory's content, independent of any weight: cacheable by key.
    A plain tuple, not a model: a run over 100,000 memories reads one per memory."""

    title: str
    readable: bool
    auto_captured: bool
    cut: bool
    echo: bool
    markup_share: float
    information_words: int
    threat: str = "none"
    narration: bool = False


class Quality(NamedTuple):
    """A memory's quality and the traits it came from (its title among them)."""

    score: float
    traits: ContentTraits

    @property
    def title(self) -> str:
        return self.traits.title

    @property
    def readable(self) -> bool:
        return self.traits.readable

    def as_json(self) -> dict[str, object]:
        """The score and every factor, as `show --json` prints them."""
        return {"score": self.score, **self.traits._asdict()}


def content_traits(*, summary: str, body: str, tags: Sequence[str] = ()) -> ContentTraits:
    """The factors of one memory's content (see the module docstring)."""
    body_lines = prose_lines(body)
    title: Title = display_title(summary, body, body_lines)
    cut = is_cut(summary) and (not body.strip() or is_cut(body))
    text = " ".join(line for line, _ in body_lines) + ("" if is_cut(summary) else f" {summary}")
    threat, _pattern = highest(summary, body)
    return ContentTraits(
        title=title.text, readable=title.readable and not threat.blocks, auto_captured=AUTO_CAPTURED_TAG in tags,
        cut=cut, threat=threat.value, narration=narrates_only(summary, body, body_lines),
        echo=is_echo(summary) or is_echo(body), markup_share=round(markup_share(body if body.strip() else summary), 3),
        information_words=len(set(_WORDS.findall(text.lower()))),
    )


def quality_score(policy: Weights, traits: ContentTraits) -> float:
    """The product of the factors under `policy`, in [0, 1]."""
    score = 1.0
    score *= policy.auto_captured if traits.auto_captured else 1.0
    score *= policy.cut if traits.cut or traits.narration else 1.0
    score *= 1.0 if traits.readable else policy.unreadable
    score *= policy.echo if traits.echo else 1.0
    score *= 1.0 - policy.markup_weight * traits.markup_share
    score *= min(1.0, traits.information_words / policy.min_words)
    score *= 0.0 if traits.threat in _BLOCKING else 1.0
    return round(max(0.0, min(1.0, score)), 4)


def asserts(score: float, readable: bool, summary: str) -> bool:
    """Whether a memory is a statement that can replace or be replaced: readable, whole (score >= WELL_FORMED)
    and not a question ("Should we switch to uv?" claims nothing)."""
    return readable and score >= WELL_FORMED and not summary.rstrip().endswith("?")


def with_score(policy: Weights, traits: ContentTraits) -> Quality:
    return Quality(quality_score(policy, traits), traits)


def assess(policy: Weights, *, summary: str, body: str, tags: Sequence[str] = ()) -> Quality:
    """The quality of one memory's content (see the module docstring)."""
    return with_score(policy, content_traits(summary=summary, body=body, tags=tags))
