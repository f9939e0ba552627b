"""How closely a memory holds what a question asks: the question's words in one passage, or spread over many.

A note that covers many topics (a research summary, an overview, a session's
report) holds many of a question's words, each in another paragraph; the
memory about the question's subject holds them together. `focus` is the
IDF weight of the question's words the text's best block holds over the
weight its whole holds (blocks as recall's excerpts cut them:
actors/algorithms/passage.py), so 1.0 for a text that holds them in one
block, lower the more they are spread. `distinctive_weights` weighs the
question's words by how few of the best candidates hold them: a word most of
them hold names the topic they share, one few hold tells which answers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from memactors.actors.algorithms.passage import blocks, question_stems, stem, tidy

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9']*")
#: A file path or URL points elsewhere: its parts are no words of this text (as recall's passages read them).
_PATH = re.compile(r"\S*(?:://|[/\\]\S*[/\\.])\S*")


def stem_weights(weights: Mapping[str, float]) -> dict[str, float]:
    """The question's words' weights (word -> IDF) by their stem, as `focus` reads them (the larger of two words
    with one stem)."""
    out: dict[str, float] = {}
    for word, weight in weights.items():
        for s in question_stems([word]):
            out[s] = max(out.get(s, 0.0), weight)
    return out


def _held(text: str, wanted: Mapping[str, float]) -> set[str]:
    """The stems of `wanted` `text`'s words hold, a path's or URL's parts left out."""
    if "/" in text or "\\" in text:
        text = " ".join(t for t in text.split() if not (("/" in t or "\\" in t) and _PATH.fullmatch(t)))
    return {found for word in set(_WORD.findall(text)) if len(word) > 1 and (found := stem(word)) in wanted}


def focus(text: str, weights: Mapping[str, float]) -> float:
    """The weight of the question's stems (`weights`: stem -> IDF) `text`'s best block holds over the weight the
    whole text holds; 1.0 when it holds none, or is one block."""
    return read_focus(text, weights)[0]


def read_focus(text: str, weights: Mapping[str, float]) -> tuple[float, set[str]]:
    """(`focus`, `held_stems`) of `text`, tidied once."""
    body = tidy(text)
    stems = _held(body, weights)
    spans = blocks(body)
    if len(spans) <= 1:
        return 1.0, stems
    held = [_held(body[a:b], weights) for a, b in spans]
    whole = sum(weights[s] for s in set().union(*held))
    if whole <= 0:
        return 1.0, stems
    return max(sum(weights[s] for s in found) for found in held) / whole, stems


def held_together(text: str, weights: Mapping[str, float]) -> tuple[int, float]:
    """How many of the question's stems (`weights`: stem -> IDF) `text`'s best block holds as words of its own (no
    prefix match), and their weight over all the question's stems' weight."""
    whole = sum(weights.values())
    body = tidy(text)
    if whole <= 0 or not body:
        return 0, 0.0
    best = max((_held(body[a:b], weights) for a, b in blocks(body)), key=lambda found: sum(weights[s] for s in found),
               default=set())
    return len(best), sum(weights[s] for s in best) / whole


def held_stems(text: str, weights: Mapping[str, float]) -> set[str]:
    """The question's stems (`weights`: stem -> IDF) `text` holds as words of its own, a path's or URL's parts left
    out."""
    return _held(tidy(text), weights)


def distinctive_weights(held: Sequence[set[str]], weights: Mapping[str, float]) -> dict[str, float]:
    """Each of the question's stems (`weights`: stem -> IDF) weighted by how few of the candidates (`held`: the stems
    each holds) hold it, IDF times log((n + 1) / (holding + 0.5)), the weights summing to 1 (empty when there is
    nothing to weigh): a word most of the candidates hold is their shared topic and tells none from another."""
    n = len(held)
    spread = {s: w * math.log((n + 1) / (sum(s in h for h in held) + 0.5)) for s, w in weights.items()}
    whole = sum(spread.values())
    return {s: w / whole for s, w in spread.items()} if n and whole > 0 else {}
