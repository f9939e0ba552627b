"""Benchmark: capture from sessions where a mentor sets coding conventions, written as Claude Code transcripts.

Run by hand on a copy of the MemoryCode data set (github.com/miguel-faria/MemoryCode, Apache-2.0):

    python bench/memorycode_capture_bench.py PATH/dataset PATH/topics.json [--part tuning|held-out|all] [--show]

Only the even-numbered dialogues are read (the odd-numbered ones are kept for checking by others and never
opened); every third even dialogue is the held-out part, as in bench/memorycode_bench.py. Each session of a
dialogue becomes one transcript in Claude Code's format: the mentor is the user, the mentee the assistant. Each is
read as `memactors extract --dry-run` reads it (offline, an empty repository), and a proposal counts when its
confidence reaches the review queue's bar. Scored, with the data set's own labels of which instruction each
session gives (the mentor's sentence stating it, chosen as bench/memorycode_bench.py chooses it):
- instructions proposed: the share of instructions some proposal from their session states (most of the words
  of the mentor's sentence, or of the data set's own text of the instruction);
- proposals that are instructions: the share of proposals that state an instruction of their session.
Both are printed twice: by the word share above ("words"), and by it or the instruction's value and kind
("value"): the value the data set's text of the instruction names (its first quoted token, a name, a count)
and half of its other key words, the kind of thing it governs (its words less the rule's verbs and fillers;
all of them when it names no value: "always end attribute names with '_at'" -> '_at' + attribute; "use Zoom
for video calls" -> Zoom + video, call), in any of their forms (endings folded: "committing" is "commit"), said
with the same polarity (never / avoid / don't ... or not); a quoted value said with its kind left unsaid
("Always use the '_at' suffix") counts too. A mentor often says an instruction in other words than the data set's ("Always opt for our
TPUs" is not credited: it names one value without the other and the kind; "I want you to avoid using virtual
environments" is).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import pygit2
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from bench.memorycode_bench import Dialogue, Instruction, even_dialogues, load_dialogue  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.session_capture import Routing, SessionCapture  # noqa: E402
from tests.session_transcripts import SessionWriter  # noqa: E402

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=timezone.utc)
_WORD = re.compile(r"[A-Za-z0-9_@']+")
_STOP = frozenset("a an the to of and in for with as is are be you your i we our it that this on".split())
#: Share of an instruction sentence's words a proposal must hold to state it.
SHARE = 0.6
_TOTALS = ("instructions", "proposed", "proposed_value", "proposals", "instruction_proposals",
           "instruction_proposals_value")


def _words(text: str) -> set[str]:
    return {w.lower().strip("'") for w in _WORD.findall(text)} - _STOP


def _turns(text: str, mentor: str) -> list[tuple[str, str]]:
    """(role, text) of a session: the mentor's paragraphs are the user's turns, the others the assistant's."""
    turns: list[tuple[str, str]] = []
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        if not block:
            continue
        speaker = re.match(r"^([\w\-' ]{1,40}):\s*", block)
        if speaker:
            turns.append(("user" if speaker[1] == mentor else "assistant", block[speaker.end():]))
        elif turns:
            turns[-1] = (turns[-1][0], f"{turns[-1][1]}\n\n{block}")
        else:
            turns.append(("user", block))
    return turns


def states(proposal: dict[str, Any], instruction: Instruction) -> bool:
    """Whether a proposal states an instruction: most of the words of the mentor's sentence chosen for it, or of
    the data set's own text of the instruction (a mentor often says it twice, in other words)."""
    said = _words(f"{proposal['summary']} {proposal['content']}")
    for text in (instruction.summary, instruction.text):
        wanted = _words(text)
        if wanted and len(wanted & said) >= SHARE * len(wanted):
            return True
    return False


#: The rule's verbs and fillers of the data set's instruction texts: what is left names the value and its kind.
_RULE_FILLER = _STOP | frozenset("""always never use include start end add take go do not but only instead even if
used string main preferred when writing working all from at least most per set up their more or names""".split())
_NEGATED = re.compile(r"\b(?:never(?!\s+forget)|avoid\w*|stop\s+using|no\s+longer|refrain\w*|steer\s+clear|forget\s+about|"
                      r"(?:don'?t|do\s+not|not)\s+(?!forget\b|only\b|hesitate\b)(?:\w+\s+){0,2}?(?:use|using|do|write|"
                      r"engage|commit|set|work|take|go|rely|need)\b|rather\s+than|instead\s+of|optional|not\s+(?:required|necessary|mandatory|needed))", re.IGNORECASE)


def _folded(word: str) -> str:
    """`word` without its ending ("classes" -> "class", "committing" -> "commit", "annotations" and "annotate" ->
    "annotat"): the same word in another form matches."""
    if word.startswith(("'", "@", "_")) or "_" in word or len(word) <= 4:
        return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
    for ending in ("ations", "ation", "ating", "ated", "ates", "ate", "ings", "ing", "ions", "ion", "ed", "es", "s",
                   "e"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word.rstrip("e") if len(word) > 4 else word


def _keys(text: str) -> set[str]:
    return {_folded(w) for w in _words(text) - _RULE_FILLER}


#: Counts said in words: a value like a prefix or a tool's name.
_NUMBER = frozenset("one two three four five six seven eight nine ten once twice half".split())


def _value_and_kind(text: str) -> tuple[set[str], list[str]]:
    """(value, kind) of the data set's text of an instruction: its first quoted token, the names and counts it says
    ('_at'; Zoom, GitHub Copilot; two, 7), and its other key words in order, the last the thing it governs."""
    quoted = re.findall(r"'([^'\s]+)'", text)
    # a name, not a kind said in capitals (IDE, VPN, CI/CD)
    named = {_folded(w.lower()) for w in re.findall(r"(?<!^)\b[A-Z][\w]*", text) if not re.fullmatch(r"[A-Z]{2,3}", w)}
    value = {_folded(quoted[0].lower())} if quoted else set()
    kind: list[str] = []
    for raw in (w.lower().strip("'") for w in _WORD.findall(text)):
        word = _folded(raw)
        if raw in _RULE_FILLER or word in value or word in kind:
            continue
        if word in named or word in _NUMBER or word.isdigit():
            value.add(word)
        else:
            kind.append(word)
    return value, kind


#: What a naming rule governs: a quoted value said without any of these ("always use the '_at' suffix") is taken
#: for its instruction; said with another of them ("start variable names with 'i_'" for attribute names) it is not.
_KINDS_OF_NAMES = frozenset(_folded(w) for w in "function method variable attribute class argument".split())


def states_value(proposal: dict[str, Any], instruction: Instruction) -> bool:
    """Whether a proposal states an instruction in other words: the value the data set's text of it names and half
    of its other key words, the kind of thing it governs (all of them when it names no value), in any of their
    forms, with the same polarity (a "never" said as never, avoid, don't ...)."""
    value, kind = _value_and_kind(instruction.text)
    said = {_folded(w) for w in _words(f"{proposal['summary']} {proposal['content']}")}
    if not value <= said or not (value or kind):
        return False
    quoted = bool(re.search(r"'[^'\s]+'", instruction.text))
    if len(set(kind) & said) < (-(-len(kind) // 2) if value else len(kind)) \
            and not (quoted and not said & _KINDS_OF_NAMES):  # an exact value with its kind left unsaid
        return False
    negative = bool(re.match(r"(?:never|do\s+not)\b", instruction.text, re.IGNORECASE))
    return negative == bool(_NEGATED.search(proposal["summary"]))


def credited(proposal: dict[str, Any], instruction: Instruction) -> bool:
    """The "value" scorer: the word share or the value and kind."""
    return states(proposal, instruction) or states_value(proposal, instruction)


def score_dialogue(path: Path, dialogue: Dialogue, raw: dict[str, Any], show: bool) -> dict[str, int]:
    totals = dict.fromkeys(_TOTALS, 0)
    with TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        pygit2.init_repository(str(repo), initial_head="main")
        for s, session in enumerate(raw["sessions"]):
            writer = SessionWriter(f"{dialogue.number:08d}-0000-4000-8000-{s:012d}")
            for role, text in _turns(session["text"], dialogue.mentor):
                if role == "user":
                    writer.user(text)
                else:
                    writer.assistant(text)
            transcript = writer.write(Path(tmp) / "transcripts")
            capture = SessionCapture(MemoryStore(GitStore(repo)), FixedClock(NOW), embedder=None, routing=Routing())
            report = trio.run(lambda: capture.read_paths([transcript], dry_run=True)).as_json()
            proposed = [c for c in report["candidates"] if c["confidence"] >= Routing().review_min]
            given = [i for i in dialogue.instructions if i.session == s]
            totals["instructions"] += len(given)
            totals["proposed"] += sum(any(states(p, g) for p in proposed) for g in given)
            totals["proposed_value"] += sum(any(credited(p, g) for p in proposed) for g in given)
            totals["proposals"] += len(proposed)
            good = [p for p in proposed if any(states(p, g) for g in given)]
            good_value = [p for p in proposed if any(credited(p, g) for g in given)]
            totals["instruction_proposals"] += len(good)
            totals["instruction_proposals_value"] += len(good_value)
            if show:
                for p in proposed:
                    mark = "+" if p in good else "~" if p in good_value else "-"
                    print(f"  {mark} d{dialogue.number}s{s} {p['summary'][:110]}")
                for g in given:
                    if not any(credited(p, g) for p in proposed):
                        print(f"  missed d{dialogue.number}s{s}: {g.summary[:110]}")
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the data set's dataset/ folder")
    parser.add_argument("topics", type=Path, help="the data set's topics.json")
    parser.add_argument("--part", choices=("tuning", "held-out", "all"), default="tuning")
    parser.add_argument("--limit", type=int, default=0, help="the first N dialogues of the part (0: all)")
    parser.add_argument("--show", action="store_true", help="list every proposal and every missed instruction")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.dataset.is_dir() or not args.topics.is_file():
        print("memorycode_capture_bench: pass the data set's dataset/ folder and its topics.json", file=sys.stderr)
        return 2
    topics = json.loads(args.topics.read_text())
    chosen = []
    for p in even_dialogues(args.dataset):
        d = load_dialogue(p, topics)
        if args.part == "all" or d.held_out == (args.part == "held-out"):
            chosen.append((p, d))
    if args.limit:
        chosen = chosen[: args.limit]
    started = time.perf_counter()
    totals = dict.fromkeys(_TOTALS, 0)
    for p, d in chosen:
        for k, v in score_dialogue(p, d, json.loads(p.read_text()), args.show and not args.json).items():
            totals[k] += v
    result = {
        **totals, "machine": machine(), "part": args.part, "dialogues": len(chosen),
        "instructions_proposed": round(totals["proposed"] / totals["instructions"], 3) if totals["instructions"] else None,
        "proposals_that_are_instructions": round(totals["instruction_proposals"] / totals["proposals"], 3)
        if totals["proposals"] else None,
        "instructions_proposed_value": round(totals["proposed_value"] / totals["instructions"], 3)
        if totals["instructions"] else None,
        "proposals_that_are_instructions_value": round(totals["instruction_proposals_value"] / totals["proposals"], 3)
        if totals["proposals"] else None,
        "seconds": round(time.perf_counter() - started, 1),
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{args.part}: {result['dialogues']} dialogues, {result['seconds']} s")
        print(f"  words: instructions proposed {result['instructions_proposed']} "
              f"({totals['proposed']}/{totals['instructions']}), proposals that are instructions "
              f"{result['proposals_that_are_instructions']} ({totals['instruction_proposals']}/{totals['proposals']})")
        print(f"  value: instructions proposed {result['instructions_proposed_value']} "
              f"({totals['proposed_value']}/{totals['instructions']}), proposals that are instructions "
              f"{result['proposals_that_are_instructions_value']} "
              f"({totals['instruction_proposals_value']}/{totals['proposals']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
