"""Benchmark: coding conventions that change over many sessions, from a public data set nobody here wrote.

Run by hand on a copy of the MemoryCode data set (github.com/miguel-faria/MemoryCode, Apache-2.0):

    python bench/memorycode_bench.py PATH/dataset PATH/topics.json [--part tuning|held-out|all] [--limit N] [--json]
        [--embedding-picks]

Only the even-numbered dialogues are read (the odd-numbered ones are kept for checking by others and never
opened). Every third even dialogue (by its number: n/2 % 3 == 2) is this bench's held-out part.

Each dialogue becomes one repository: one session a day, one `decisions` memory per instruction the mentor gives
(coding conventions, and the other instructions: the editor, the video-call tool, "never use a linter"). The
memory is the mentor's own words: its summary the mentor's sentence that states the instruction (the one naming
its value, most like the instruction's text), its body the mentor's whole turn (two instructions given in one
turn share it). Two instructions stated in one sentence ("end function names with '_fn' and method names with
'_ud'") share that sentence: one memory and its copy, either standing for both in every score below
(`--distinct-picks` gives each instruction a sentence of its own, even a greeting, as figures before 2026-11-26
did). The sentence is picked by its words shared with the data set's instruction text and naming the value; with
`--embedding-picks` it is ranked by those words, the local MiniLM embedding's cosine to that text, a directive ("I want you to", "from now on", an imperative) and naming the
value (a value "always"/"never" is not named by "Great attitude as always!"); two adjacent sentences when together
they are much nearer the text than either ("...for function argument names. End all such names with '_i'.").
On 60 hand-labelled tuning instructions (bench/labels/memorycode_picks.json) that picks 54 right, the word-overlap
pick 52; it embeds every sentence (about three times the run's time), so it is not yet the default. The
data set's own labels say which instruction each is and which version: a later version of a topic replaces the
earlier. Consolidated offline (local MiniLM, no LLM), then scored:
- precision of the hiding edges (supersedes; subsumes that are not copies) between instruction memories: right
  when both are the same topic and the source is later (a restatement of the same value may subsume). The data
  set gives each memory one topic; a mentor's sentence stating two ("start with 'm_' and end with '_x'") is
  replaced in part by a new value of its other topic: counted wrong, and apart (`edges_wrong_partial`). A newer
  sentence stating two ("start method names with 'a_' and function names with 'y_'") that replaces an earlier
  memory of its other topic, or replaces in part an older such sentence on its other topic, counts right when
  that sentence states the other topic's value given by the end of its session, by the data set's own texts
  (`edges_right_other_clause`; `precision_one_topic_labels` counts them wrong, as figures before 2026-11-26 did);
- update recall: an update (a topic's value changed) counts found when it (or its copy) supersedes an earlier
  memory of its topic holding another value, or that memory's copy (figures before 2026-11-27 (fourth) did not
  count an edge to the copy: 13 fewer updates on the tuning part); `update_recall_named` the same over the
  updates whose new sentence and replaced sentence both name their values (the rest no judge can link from the
  sentence: "Good morning, Sophia." picked for an instruction the turn gives in other words; so
  `current_first_named` over the topics whose every sentence names its value, and `replaced_in_block_named`
  counting a replaced sentence that names its value shown while the current one names its own);
- current value first: for each topic that changed, recall asked the topic's frame (its text without the value)
  lists the current memory in its top 3, above every memory holding a replaced value (a summary's hit stands for
  its standing members: the replaced ones it lists as replaced are not shown as current; `--strict-summaries`
  counts them all);
- replaced instructions shown as current in the SessionStart block (a replaced memory's sentence on a line,
  not as what an item replaces: the line's whole title, or its start cut with an ellipsis).
- what the sentences support (`signable`, from bench/labels/memorycode_signable.json or `--signable`): readers
  who saw only an update's two sentences said whether they show the change; of those labelled, how many of each
  verdict the judge links, the share of all updates a reader signs (stratified estimate) and the judge's recall
  over those. A change no reader sees in the two sentences ("Remember, we're a team" for "do pair
  programming") is not in what the offline judge reads; an LLM judge also reads the body (the mentor's turn).
Why each failure: `cf_missing` (current not in the top 10), `cf_low` (ranked 3+, nothing replaced above it),
`cf_above_<standing|edged|superseded>[_in_summary]` (a replaced memory above it: no hiding edge to it, only a
partial or subsuming one, or superseded yet ranked high), `block_<standing|edged|superseded>` likewise for the
block's lines; `--show` lists them.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from tempfile import TemporaryDirectory

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from memactors.adapters.claude.session_context import session_start  # noqa: E402
from memactors.actors.algorithms.slot_change import statement  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.note_format import append_entry, parse_note, serialize_entry  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.reading.read_cache import ReadCache  # noqa: E402
from memactors.adapters.reading.recall import search  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from memactors.events.edge import EdgeType  # noqa: E402
from memactors.events.read_model import EntryKind  # noqa: E402
from tests.realistic_store import new_repository  # noqa: E402

START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[A-Za-z0-9_@']+")
_FRAME_STOP = frozenset("a an the always never use your all to for as of in with".split())


@dataclass
class Instruction:
    """One instruction event: topic, version, the data set's text, the memory written for it."""

    topic: str
    version: int
    text: str
    session: int
    order: int
    summary: str = ""
    body: str = ""
    key: str = ""
    found_sentence: bool = True


@dataclass
class Dialogue:
    number: int
    mentor: str
    instructions: list[Instruction] = field(default_factory=list)

    @property
    def held_out(self) -> bool:
        return (self.number // 2) % 3 == 2


def _values(texts: list[str], version: int) -> list[str]:
    """What tells this version from the others: its quoted value, else its words the other versions lack."""
    text = texts[version]
    quoted = re.findall(r"'([^']+)'", text)
    if quoted:
        return quoted
    others = {w.lower() for i, t in enumerate(texts) if i != version for w in _WORD.findall(t)}
    own = [w for w in _WORD.findall(text) if w.lower() not in others]
    return own or _WORD.findall(text)


def frame(texts: list[str], version: int) -> str:
    """The instruction without its value: what a developer asks ("start attribute names with")."""
    values = {v.lower() for v in _values(texts, version)}
    kept = [w for w in _WORD.findall(re.sub(r"'[^']+'", " ", texts[version]))
            if w.lower() not in values and w.lower() not in _FRAME_STOP]
    return " ".join(kept)


def _mentor_turns(text: str, mentor: str) -> list[str]:
    """The mentor's turns (a paragraph with no "Name:" continues the turn before it); a session written as one
    monologue (no turns at all) is the mentor's."""
    turns: list[tuple[str, str]] = []
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        speaker = re.match(r"^([\w\-' ]{1,40}):\s*", block)
        if speaker:
            turns.append((speaker[1], block[speaker.end():]))
        elif turns:
            turns[-1] = (turns[-1][0], f"{turns[-1][1]}\n\n{block}")
    if not turns:
        return [text.strip()]
    return [said for who, said in turns if who == mentor]


def _overlap_pick(turns: list[str], texts: list[str], version: int, taken: set[str],
                  share: bool = True) -> tuple[str, str, bool]:
    """The default pick (without `--embedding-picks`), by word overlap and naming the value. (sentence, turn,
    whether it names the value): the mentor's sentence that states this instruction (one the session's other
    instructions did not take, when there is one). With `share`, a sentence naming the value is
    taken even when another instruction took it ("end function names with '_fn' and method names with '_ud'"
    states two), rather than a sentence that does not ("Hey, Pablo!"); without, each instruction takes its own
    sentence (the picks before 2026-11-26)."""
    values = [v.lower() for v in _values(texts, version)]
    wanted = {w.lower() for w in _WORD.findall(texts[version])} - _FRAME_STOP
    best: tuple[float, str, str, bool] | None = None
    for turn in turns:
        for sentence in _SENTENCE.split(turn):
            low = sentence.lower()
            names = all(v in low for v in values)
            overlap = len(wanted & {w.lower() for w in _WORD.findall(sentence)}) / max(1, len(wanted))
            score = overlap + (2.0 if names else 0.0) - (3.0 if sentence.strip() in taken else 0.0)
            if share and names and sentence.strip() in taken:
                score += 3.0 - 1.0  # below an untaken sentence naming it, above any that does not
            if best is None or score > best[0]:
                best = (score, sentence.strip(), turn, names)
    assert best is not None
    return best[1], best[2], best[3]


_DIRECTIVE = re.compile(
    r"\b(?:i (?:want|need|would like|'d like|expect) you to|i want to (?:encourage|update)|from now on|going forward|"
    r"moving forward|from here on|please|make sure|ensure|remember to|always|never|avoid|don't|do not|refrain|"
    r"instead|stop)\b"
    r"|^(?:\W*(?:so|now|also|additionally|first(?:ly)?|second(?:ly)?|and|but|however|just)\W+)*(?:use|start|end|"
    r"include|add|take|keep|work|set|try|communicate|focus|import|name|write|commit|adopt|stick|switch|limit|avoid|"
    r"never|always|don't|do|make|ensure|please)\b", re.I)


def _pick(turns: list[str], texts: list[str], version: int, taken: set[str], embed,
          share: bool = True) -> tuple[str, str, bool]:
    """(sentence, turn, whether it names the value): the mentor's sentence that states this instruction, ranked by
    its words shared with the data set's text, the local embedding's cosine to it, a directive ("I want you to",
    "from now on", an imperative) and naming the value; two adjacent sentences when together they are much nearer
    the text than either ("...for function argument names. End all such names with '_i'.")."""
    values = [v for v in (v.lower() for v in _values(texts, version)) if v not in _FRAME_STOP]
    quoted = bool(re.search(r"'[^']+'", texts[version]))
    wanted = {w.lower() for w in _WORD.findall(texts[version])} - _FRAME_STOP
    single: list[tuple[str, str]] = []
    pairs: list[tuple[str, str, str, str]] = []
    for turn in turns:
        sentences = [s.strip() for s in _SENTENCE.split(turn) if s.strip()]
        single += [(s, turn) for s in sentences]
        pairs += [(f"{a} {b}", turn, a, b) for a, b in zip(sentences, sentences[1:])]
    if not single:
        return "", turns[0] if turns else "", False
    query = embed([texts[version]])[0]
    near = dict(zip((s for s, _ in single), embed([s for s, _ in single]) @ query))

    def score(sentence: str, cosine: float) -> tuple[float, bool]:
        words = {w.lower() for w in _WORD.findall(sentence)}
        # a value "always" (the versions differ in it alone) is named by no pleasantry saying "as always"
        names = bool(values) and all(v in (sentence.lower() if quoted else words) for v in values)
        value = len(wanted & words) / max(1, len(wanted)) + cosine + (2.0 if names else 0.0) \
            + (0.2 if _DIRECTIVE.search(sentence) else 0.0)
        if sentence in taken:  # a sentence stating two instructions is shared only when it names this value
            value -= 1.0 if share and names else 3.0
        return value, names

    best: tuple[float, str, str, bool] | None = None
    for sentence, turn in single:
        value, names = score(sentence, float(near[sentence]))
        if best is None or value > best[0]:
            best = (value, sentence, turn, names)
    joined = embed([p for p, *_ in pairs]) @ query if pairs else []
    for (both, turn, a, b), cosine in zip(pairs, joined):
        if cosine - max(near[a], near[b]) >= 0.15:  # neither alone states it: together they do
            value, names = score(both, float(cosine))
            if value > best[0]:
                best = (value, both, turn, names)
    assert best is not None
    return best[1], best[2], best[3]


def load_dialogue(path: Path, topics: dict, share: bool = True, embedder=None) -> Dialogue:
    """One dialogue's instructions and their memories' sentences: picked by `_pick` with `embedder`, else by
    `_overlap_pick` (the picks before 2026-11-27)."""
    number = int(path.stem.split("_")[1])
    data = json.loads(path.read_text())
    coding = {t["id"]: t["text"] for t in topics["instructions"]}
    others = {t["id"]: t["text"] for t in topics["fillers_instruction"]}
    dialogue = Dialogue(number=number, mentor=data["context"]["mentor"])
    for s, session in enumerate(data["sessions"]):
        coded = [x for x in data["instructions"][s] if x != -1]
        turns = _mentor_turns(session["text"], dialogue.mentor)
        k = 0
        taken: set[str] = set()
        embed = _embed_cached(embedder) if embedder is not None else None
        for order, (kind, topic_text) in enumerate(zip(session["type"], session["topic"])):
            if kind in ("instruction-add", "instruction-update"):
                topic_id, version = coded[k]
                k += 1
                texts, topic = coding[topic_id], f"i{topic_id}"
            elif kind.startswith("filler-instruction"):
                topic_id = data["fillers"][s]
                texts, topic = others[topic_id], f"f{topic_id}"
                version = texts.index(topic_text) if topic_text in texts else 0
            else:
                continue
            sentence, turn, named = _pick(turns, texts, version, taken, embed, share) if embed is not None \
                else _overlap_pick(turns, texts, version, taken, share)
            taken.add(sentence)
            summary = sentence if len(sentence) <= 100 else sentence[:100].rsplit(" ", 1)[0]
            dialogue.instructions.append(Instruction(
                topic=topic, version=version, text=texts[version], session=s, order=order, summary=summary,
                body=turn, found_sentence=named))
    return dialogue


def _embed_cached(embedder):
    """embedder.embed over a session, each text embedded once (its instructions share its sentences)."""
    import numpy as np

    seen: dict[str, object] = {}

    def embed(texts: list[str]):
        missing = [t for t in dict.fromkeys(texts) if t not in seen]
        if missing:
            seen.update(zip(missing, embedder.embed(missing)))
        return np.stack([seen[t] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)

    return embed


def write_repository(path: Path, dialogue: Dialogue) -> None:
    """One commit a session day; each instruction a `decisions` entry appended to that day's note."""
    repo, sig, tree = new_repository(path, b"mentoring\n")
    notes: dict[str, bytes] = {}
    parent: list = []
    by_session: dict[int, list[Instruction]] = {}
    for ins in dialogue.instructions:
        by_session.setdefault(ins.session, []).append(ins)
    for session in sorted(by_session):
        oid = repo.create_commit("refs/heads/main", sig, sig, f"session {session}", tree, parent)
        parent, commit = [oid], str(oid)
        for ins in by_session[session]:
            when = START + timedelta(days=session, minutes=ins.order)
            entry = serialize_entry({"type": "decisions", "timestamp": when.isoformat(), "summary": ins.summary},
                                    ins.body)
            notes[commit] = append_entry(notes.get(commit), entry)
            ins.key = parse_note("decisions", commit, append_entry(None, entry)).memories[0].key
    git = GitStore(path)
    ref = "refs/notes/mem/decisions"
    git.move_refs({ref: git.build_notes_commit(None, notes, "capture")}, {ref: None}, "capture")


def oracle_answer(dialogue: Dialogue):
    """A judge that knows the data set's labels, as an LLM's answer to the judge's prompt: a newer memory whose
    instruction is a later version of an older memory's topic supersedes it (in part when the older states another
    instruction the newer leaves); anything else is compatible. Summary requests get an answer that fails the
    schema, so clusters are summarized offline as in every other run. The ceiling of this bench with a perfect
    reader in the judge's LLM path: the pairs it is never asked about, and what recall and the block do with the
    edges, stay the pipeline's own."""
    by_summary: dict[str, list[Instruction]] = {}
    for ins in dialogue.instructions:
        by_summary.setdefault(ins.summary, []).append(ins)

    def answer(request: dict) -> str:
        user = request["messages"][-1]["content"]
        pairs = re.findall(r"- newer (M\d+) vs older (M\d+)", user)
        if not pairs:
            return "{}"
        summaries = {label: html.unescape(text) for label, text in
                     re.findall(r'<memory label="(M\d+)"[^>]*>\nsummary: ([^\n]*)\n', user)}
        verdicts = []
        for newer, older in pairs:
            new_ins = by_summary.get(summaries.get(newer, ""), [])
            old_ins = by_summary.get(summaries.get(older, ""), [])
            changed = {o.topic for o in old_ins for n in new_ins if n.topic == o.topic and n.version != o.version
                       and (n.session, n.order) > (o.session, o.order)}
            verdicts.append({"newer": newer, "older": older,
                             "relation": "supersedes" if changed else "compatible",
                             "partial": bool(changed) and any(o.topic not in changed for o in old_ins),
                             "container": None, "reason": "the data set's labels: a later version of the topic"
                             if changed else "the data set's labels: no later version", "confidence": 0.99,
                             "link": None if changed else "none"})
        return json.dumps({"verdicts": verdicts})

    return answer


def hiding_edges(path: Path) -> tuple[set[tuple[str, str]], dict[str, str]]:
    """(source, target) of supersedes and non-copy subsumes edges; memory key -> the key superseding it."""
    state = MemoryStore(GitStore(path)).load_state()
    edges = {(e.source_key, e.target_key): ("(partial) " if e.partial else "") + e.reason
             for e in state.edges.values() if e.in_force and (
        e.edge_type is EdgeType.SUPERSEDES
        or (e.edge_type is EdgeType.SUBSUMES and not e.reason.startswith("duplicate:")))}
    return edges, {k: m.superseded_by for k, m in state.meta.items() if m.superseded_by}


def score_dialogue(path: Path, dialogue: Dialogue, topics: dict, embedder, now: datetime,
                   strict: bool = False) -> dict:
    by_key = {i.key: i for i in dialogue.instructions}
    # one sentence stating two instructions is one memory and its copy: either stands for both
    said: dict[tuple[int, str], set[str]] = {}
    for i in dialogue.instructions:
        said.setdefault((i.session, i.summary), set()).add(i.key)
    same = {i.key: said[(i.session, i.summary)] for i in dialogue.instructions}
    edges, _ = hiding_edges(path)
    right = wrong = partial_wrong = other_clause = 0
    wrong_rows = []
    for (source, target), reason in edges.items():
        a, b = by_key.get(source), by_key.get(target)
        if a is None or b is None:
            continue
        ok = a.topic == b.topic and (a.session, a.order) >= (b.session, b.order)
        if not ok and (a.session, a.order) >= (b.session, b.order) and (
                _states_other_value(a, b, dialogue, topics) or _states_other_value(b, a, dialogue, topics)):
            other_clause += 1  # right, though the data set gives the newer sentence's other instruction as its topic
            continue
        right += ok
        wrong += not ok
        partial_wrong += not ok and reason.startswith("(partial)")
        if not ok:
            wrong_rows.append(f"{a.summary[:70]!r} -> {b.summary[:70]!r} [{reason[:90]}]")
    updates = found = named = named_found = 0
    missed_rows = []
    update_rows: list[dict] = []  # every update, its two sentences and whether the judge linked them
    latest: dict[str, Instruction] = {}
    history: dict[str, list[Instruction]] = {}
    for ins in dialogue.instructions:
        earlier = history.get(ins.topic, [])
        if earlier and earlier[-1].version != ins.version:
            updates += 1
            # the replaced memory or its copy (a sentence stating two instructions stands for both)
            replaced = {k for e in earlier if e.version != ins.version for k in same[e.key]}
            hit = any((key, k) in edges for key in same[ins.key] for k in replaced)
            if ins.found_sentence and earlier[-1].found_sentence:  # both sentences name their values
                named += 1
                named_found += hit
            if hit:
                found += 1
            else:
                missed_rows.append(f"{ins.summary[:70]!r} (was {earlier[-1].summary[:60]!r})")
            update_rows.append({"topic": ins.topic, "session": ins.session, "newer": ins.summary,
                                "older": earlier[-1].summary, "older_session": earlier[-1].session,
                                # what the judge reads: a summary cut at 100 characters completed from the body
                                "newer_said": statement(ins.summary, ins.body),
                                "older_said": statement(earlier[-1].summary, earlier[-1].body),
                                "named": bool(ins.found_sentence and earlier[-1].found_sentence), "found": hit})
        history.setdefault(ins.topic, []).append(ins)
        latest[ins.topic] = ins
    # current value first, for each topic that changed
    coding = {f"i{t['id']}": t["text"] for t in topics["instructions"]}
    coding |= {f"f{t['id']}": t["text"] for t in topics["fillers_instruction"]}
    index = ReadCache(GitStore(path).common_dir).load()
    asked = first = asked_named = first_named = 0
    _, gone = hiding_edges(path)
    causes: dict[str, int] = {}
    causes_rows: list[str] = []
    for topic, events in history.items():
        current = latest[topic]
        replaced = {e.key for e in events if e.version != current.version}
        if not replaced:
            continue
        asked += 1
        hits = search(index, frame(coding[topic], current.version), limit=10, embedder=embedder)
        ranked, kinds = [], []
        for h in hits:
            # a summary shows its standing members as current (its superseded list names the replaced ones
            # as replaced); `strict` counts every member, which the figures before 2026-11-26 did
            members = [index.entries[row] for s in h.entry.sources if (row := index.entries.row_of(s)) is not None]
            keys = set(same.get(h.entry.key, {h.entry.key})) if h.entry.kind is EntryKind.MEMORY else {
                k for m in members if strict or not m.superseded_by for k in same.get(m.key, {m.key})}
            ranked.append(keys)
            kinds.append("" if h.entry.kind is EntryKind.MEMORY else "_in_summary")
        same_value = {e.key for e in events if e.version == current.version and e.session >= max(
            x.session for x in events if x.version != current.version)}
        cur_at = next((i for i, keys in enumerate(ranked) if keys & same_value), None)
        old_at = next((i for i, keys in enumerate(ranked) if keys & replaced), None)
        ok = cur_at is not None and cur_at < 3 and (old_at is None or cur_at < old_at)
        first += ok
        if all(e.found_sentence for e in events):  # every sentence of the topic names its value
            asked_named += 1
            first_named += ok
        if not ok:  # why not: a replaced memory above it (standing or not), else the current one missing or low
            if old_at is not None and (cur_at is None or old_at < cur_at):
                why = "cf_above_" + _status(ranked[old_at] & replaced, edges, gone) + kinds[old_at]
            else:
                why = "cf_missing" if cur_at is None else "cf_low"
            causes[why] = causes.get(why, 0) + 1
            above = [h.entry.summary[:50] for h in hits[: 3 if cur_at is None else min(cur_at, 3)]]
            causes_rows.append(f"{why}: {frame(coding[topic], current.version)!r} current "
                               f"{current.summary[:60]!r} at {cur_at}, old at {old_at}"
                               + (f"; above it: {' | '.join(above)}" if above else ""))
    # the SessionStart block: replaced instructions on a line of their own (not as what an item replaces)
    block, _ = session_start(None, path, {}, now=now.timestamp())
    lines = [re.split(r" \((?:replaces|\d+ memories)", line)[0].lower() for line in block.splitlines()
             if line.startswith("- ")]
    shown = shown_named = 0
    standing = {_norm(i.summary) for i in latest.values()}  # a sentence stating a current instruction is shown
    for topic, events in history.items():
        current = latest[topic]
        for e in events:
            if e.version != current.version and _norm(e.summary) not in standing \
                    and any(_shows(line, e.summary) for line in lines):
                shown += 1
                shown_named += e.found_sentence and current.found_sentence
                why = "block_" + _status(same[e.key], edges, gone)
                causes[why] = causes.get(why, 0) + 1
                causes_rows.append(f"{why}: {e.summary[:70]!r} (now {current.summary[:60]!r})")
    return {"edges_right": right, "edges_wrong": wrong, "edges_wrong_partial": partial_wrong,
            "edges_right_other_clause": other_clause, "updates": updates, "updates_found": found,
            "updates_named": named, "updates_named_found": named_found,
            "topics_changed": asked, "current_first": first, "replaced_in_block": shown,
            "topics_changed_named": asked_named, "current_first_named": first_named,
            "replaced_in_block_named": shown_named,
            **causes, "wrong": wrong_rows, "missed": missed_rows, "causes": causes_rows,
            "updates_detail": update_rows}


def signable_recall(labels: dict, details: list[dict]) -> dict:
    """Of the labelled updates found in this run, how many of each verdict ("yes": a reader signs the change from
    the two sentences alone; "no"; "unsure") the judge links, per the stratum each was drawn from (the judge
    linked it or not when labelled), and the judge's recall over the signable updates of the whole run, each
    stratum weighted by its share of the run's updates as labelled (a stratified estimate)."""
    rows = {(d["dialogue"], u["topic"], u["session"], u["older_session"]): u
            for d in details for u in d["updates_detail"]}
    tally: dict[str, dict[str, list[int]]] = {}
    for label in labels["labels"]:
        row = rows.get((label["dialogue"], label["topic"], label["session"], label["older_session"]))
        if row is None:  # a control pair, or an update of a part not run
            continue
        counts = tally.setdefault(label["stratum"], {}).setdefault(label["verdict"], [0, 0])
        counts[0] += 1
        counts[1] += row["found"]
    strata = labels["strata"]
    if set(tally) != set(strata):  # a part run in part (--limit) or another part: the strata's sizes do not hold
        return {"labelled": {}, "signable_share_estimate": None, "signable_recall_estimate": None}
    signable = linked = 0.0
    for stratum, verdicts in tally.items():
        drawn = sum(n for n, _ in verdicts.values())
        yes, yes_linked = verdicts.get("yes", [0, 0])
        signable += strata[stratum] * yes / drawn
        linked += strata[stratum] * yes_linked / drawn
    return {"labelled": {stratum: {v: {"n": n, "linked": k} for v, (n, k) in verdicts.items()}
                         for stratum, verdicts in tally.items()},
            "signable_share_estimate": round(signable / sum(strata.values()), 3),
            "signable_recall_estimate": round(linked / signable, 3) if signable else None}


def _status(keys: set[str], edges: dict[tuple[str, str], str], gone: dict[str, str]) -> str:
    """How a replaced memory (one of `keys`, a memory and its copies) stands: superseded, only a partial or
    subsuming edge to it, or no hiding edge to it at all (its copy, replaced by it, does not count)."""
    if any(k in gone and gone[k] not in keys for k in keys):
        return "superseded"
    return "edged" if any(target in keys and source not in keys for source, target in edges) else "standing"


def _states_other_value(said_by: Instruction, other: Instruction, dialogue: Dialogue, topics: dict) -> bool:
    """Whether memory `said_by`, labelled with its own topic, also states in its sentence the value `other`'s
    topic was given by the end of `said_by`'s session, a value other than `other`'s: a sentence giving two
    instructions ("start method names with 'a_' and function names with 'y_'") carries one topic in the data
    set's labels, and the data set gives its other instruction as a separate event of that session. By the data
    set's own texts, an edge between such a memory and `other` is a change of `other`'s topic."""
    given = [i for i in dialogue.instructions if i.topic == other.topic and i.session <= said_by.session]
    if not given or given[-1].version == other.version or not other.topic.startswith("i"):
        return False
    texts = next(t["text"] for t in topics["instructions"] if f"i{t['id']}" == other.topic)
    values = re.findall(r"'([^']+)'", texts[given[-1].version])
    said = said_by.summary.lower().replace("naming", "naming names")  # "when naming variables": variable names
    named = [w for w in frame(texts, given[-1].version).lower().split() if w not in ("start", "end")]
    return bool(values) and all(f"'{v.lower()}'" in said for v in values) and all(w in said for w in named)


def _shows(line: str, summary: str) -> bool:
    """Whether a block line's title is this summary: the whole of it, or its start cut with an ellipsis (a title
    over 100 characters). Not any line sharing its first words: "start all your variable names with 'z_'" is not
    "start all your variable names with the prefix 'y_'" (the 60-character prefix counted before 2026-11-26)."""
    shown, said = _norm(html.unescape(line)), _norm(summary)
    return shown == said or (shown.endswith("…") and len(shown) > 20 and said.startswith(shown[:-1].rstrip()))


def _norm(text: str) -> str:
    return " ".join(re.sub(r"^- (\[\d{4}-\d{2}-\d{2}\] )?", "", text).lower().split())


def even_dialogues(dataset: Path) -> list[Path]:
    """The even-numbered dialogues' files, by number (the odd-numbered ones are held out: never opened)."""
    return sorted((p for p in dataset.glob("dialogue_*.json") if int(p.stem.split("_")[1]) % 2 == 0),
                  key=lambda p: int(p.stem.split("_")[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the data set's dataset/ folder")
    parser.add_argument("topics", type=Path, help="the data set's topics.json")
    parser.add_argument("--part", choices=("tuning", "held-out", "all"), default="tuning")
    parser.add_argument("--limit", type=int, default=0, help="the first N dialogues of the part (0: all)")
    parser.add_argument("--min-sessions", type=int, default=2, help="skip dialogues with fewer sessions")
    parser.add_argument("--show", action="store_true", help="list wrong edges and missed updates")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--distinct-picks", action="store_true",
                        help="each instruction takes a sentence no other instruction of its session took, even one "
                             "not naming its value (the picks recorded before 2026-11-26)")
    parser.add_argument("--embedding-picks", action="store_true",
                        help="rank each memory's sentence by words shared, MiniLM cosine to the instruction's text, a "
                             "directive and naming its value (54 of 60 labelled picks right against 52; embeds every "
                             "sentence: about three times slower)")
    parser.add_argument("--signable", type=Path, default=ROOT / "bench" / "labels" / "memorycode_signable.json",
                        help="labels a reader wrote from an update's two sentences alone: whether they show the "
                             "change (default: %(default)s; a missing file skips the figure)")
    parser.add_argument("--oracle", action="store_true",
                        help="a ceiling, not a quality figure: the judge's LLM path answered from the data set's "
                             "own labels by a local server speaking the OpenAI wire format")
    parser.add_argument("--strict-summaries", action="store_true",
                        help="current first: count every member of a summary hit, replaced ones too (the figures "
                             "recorded before 2026-11-26)")
    args = parser.parse_args()
    if not args.dataset.is_dir() or not args.topics.is_file():
        print("memorycode_bench: pass the data set's dataset/ folder and its topics.json", file=sys.stderr)
        return 2
    topics = json.loads(args.topics.read_text())
    embedder = None
    if args.embedding_picks:
        from memactors.adapters.models.embeddings import embedder_from_env

        embedder = embedder_from_env()
    paths = [p for p in even_dialogues(args.dataset) if args.part == "all"
             or ((int(p.stem.split("_")[1]) // 2) % 3 == 2) == (args.part == "held-out")]
    dialogues = []
    for p in paths:  # loaded one by one: the picks embed every sentence, so --limit stops early
        d = load_dialogue(p, topics, share=not args.distinct_picks, embedder=embedder)
        if len({i.session for i in d.instructions}) >= args.min_sessions:
            dialogues.append(d)
        if args.limit and len(dialogues) >= args.limit:
            break
    totals: dict[str, int] = {}
    details = []
    started = time.perf_counter()
    oracle = None
    if args.oracle:
        import os

        from tests.fake_openai import FakeOpenAI

        oracle = FakeOpenAI().__enter__()
        os.environ.update({"MEMORY_CONSOLIDATION_LLM_PROVIDER": "openai", "OPENAI_API_KEY": "sk-oracle-0000000000",
                           "MEMORY_CONSOLIDATION_LLM_BASE_URL": oracle.base_url})
    for d in dialogues:
        with TemporaryDirectory() as tmp:
            path = Path(tmp) / "repo"
            write_repository(path, d)
            now = START + timedelta(days=max(i.session for i in d.instructions) + 1)
            if oracle is not None:
                oracle.responder = oracle_answer(d)
            services = build_services(MemoryStore(GitStore(path)), Settings(), FixedClock(now))
            trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
            scored = score_dialogue(path, d, topics, services.embedder, now, args.strict_summaries)
        for k, v in scored.items():
            if isinstance(v, int):
                totals[k] = totals.get(k, 0) + v
        details.append({"dialogue": d.number, **scored})
        if args.show:
            for row in scored["wrong"]:
                print(f"  wrong d{d.number}: {row}")
            for row in scored["missed"]:
                print(f"  missed d{d.number}: {row}")
            for row in scored["causes"]:
                print(f"  cause d{d.number}: {row}")
    predicted = totals.get("edges_right", 0) + totals.get("edges_wrong", 0)
    result = {
        **totals,
        "machine": machine(), "part": args.part, "dialogues": len(dialogues),
        "instructions": sum(len(d.instructions) for d in dialogues),
        "sentences_without_value": sum(not i.found_sentence for d in dialogues for i in d.instructions),
        "sentences_stating_two": sum(len(d.instructions) - len({(i.session, i.summary) for i in d.instructions})
                                     for d in dialogues),
        # edges right by the newer sentence's other instruction count right (`edges_right_other_clause`)
        "precision": round((totals.get("edges_right", 0) + totals.get("edges_right_other_clause", 0))
                           / (predicted + totals.get("edges_right_other_clause", 0)), 3) if predicted else 1.0,
        "precision_one_topic_labels": round(totals.get("edges_right", 0) / predicted, 3) if predicted else 1.0,
        "update_recall": round(totals.get("updates_found", 0) / totals["updates"], 3) if totals.get("updates") else None,
        "update_recall_named": round(totals.get("updates_named_found", 0) / totals["updates_named"], 3)
        if totals.get("updates_named") else None,
        "current_first": round(totals.get("current_first", 0) / totals["topics_changed"], 3)
        if totals.get("topics_changed") else None,
        "current_first_named": round(totals.get("current_first_named", 0) / totals["topics_changed_named"], 3)
        if totals.get("topics_changed_named") else None,
        "replaced_in_block": totals.get("replaced_in_block", 0),
        "seconds": round(time.perf_counter() - started, 1),
    }
    if args.signable.is_file() and args.part == "tuning" and not args.limit \
            and not (args.embedding_picks or args.distinct_picks):  # labelled on the whole tuning part, these picks
        result["signable"] = signable_recall(json.loads(args.signable.read_text()), details)
    if args.json:
        result["dialogues_detail"] = details
    if oracle is not None:
        oracle.__exit__(None, None, None)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
