"""Proposing memories from sessions against a real store: novelty, screening, redaction, routing, the queue."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
import trio
from pydantic import SecretStr

from memactors.adapters.claude.review_queue import MAX_PENDING, ReviewQueue
from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.store import GitStore
from memactors.adapters.models.embeddings import LocalMiniLM
from memactors.adapters.models.llm_chain import LLMChain
from memactors.adapters.models.llm_config import ProviderConfig
from memactors.adapters.models.openai_compatible import OpenAICompatibleLLM
from memactors.adapters.models.vector_cache import CachedEmbedder
from memactors.adapters.system.clock import FixedClock
from memactors.adapters.runtime.pipeline import RunOptions, Services, consolidate
from memactors.adapters.runtime.session_capture import Routing, SessionCapture, approve_into_store
from memactors.adapters.runtime.settings import Settings
from memactors.events.candidate import Action
from memactors.events.threat import ThreatLevel
from tests.conftest import NOW, Repo
from tests.fake_openai import FakeOpenAI
from tests.session_transcripts import EXISTING, GH_TOKEN, SECRET, SessionWriter, s03, s06, s07, s10


@pytest.fixture(scope="module")
def model() -> LocalMiniLM:
    return LocalMiniLM()


@pytest.fixture
def kept(repo: Repo, model: LocalMiniLM) -> MemoryStore:
    """A repository that keeps EXISTING's memories, consolidated (so recall's index exists)."""
    for namespace, summary, body in EXISTING:
        repo.capture(namespace, summary, body, when=NOW - timedelta(days=30))
    store = MemoryStore(GitStore(repo.path))
    _consolidate(store, model)
    return store


def _consolidate(store: MemoryStore, model: LocalMiniLM) -> None:
    from memactors.adapters.reading.read_cache import ReadCache

    embedder = CachedEmbedder(model, store.git.common_dir / "memactors" / "vectors")
    services = Services(store=store, settings=Settings(_env_file=None), clock=FixedClock(NOW), embedder=embedder,
                        read_cache=ReadCache(store.git.common_dir, embedder))
    report = trio.run(lambda: consolidate(services, RunOptions()))
    assert report.phase == "completed", report.errors


def _capture(store: MemoryStore, model: LocalMiniLM, *, llm=None, clock=NOW, routing: Routing = Routing()):
    return SessionCapture(store, FixedClock(clock), embedder=model, llm=llm, routing=routing)


def _read(capture: SessionCapture, *paths: Path, dry_run: bool = False):
    return trio.run(lambda: capture.read_paths(list(paths), dry_run=dry_run))


def test_a_copy_of_a_kept_memory_is_not_proposed_and_a_replacement_is_an_update(
        kept: MemoryStore, model, tmp_path: Path) -> None:
    report = _read(_capture(kept, model), s10().write(tmp_path))
    pending = ReviewQueue(kept.git.common_dir).load(NOW).pending
    assert report.known == 1  # "Let's use ruff for linting." is what the store keeps
    assert not any("ruff" in c.summary.casefold() for c in pending)
    [update] = pending
    assert update.action is Action.UPDATE and update.replaces_summary == "Use nose for tests"
    assert update.replaces is not None and update.replaces.startswith("decisions:")


def test_nothing_is_read_twice_and_a_rejection_is_remembered(kept: MemoryStore, model, tmp_path: Path) -> None:
    path = s10().write(tmp_path)
    capture = _capture(kept, model)
    _read(capture, path)
    assert _read(capture, path).lines_read == 0  # the cursor
    queue = ReviewQueue(kept.git.common_dir)
    [candidate] = queue.load(NOW).pending

    def reject(state) -> None:
        state.pending = []
        state.decided[candidate.content_hash] = "rejected"

    queue.update(reject, NOW)
    (kept.git.common_dir / "memactors" / "transcripts" / "cursors.json").unlink()  # read it all again
    again = _read(capture, path)
    assert again.lines_read > 0 and again.queued == 0 and queue.load(NOW).pending == []


def test_secrets_are_redacted_before_the_queue_stores_them(kept: MemoryStore, model, tmp_path: Path) -> None:
    report = _read(_capture(kept, model), s06().write(tmp_path))
    raw = (kept.git.common_dir / "memactors" / "review" / "queue.json").read_text()
    assert report.queued >= 1 and report.redactions >= 1
    assert SECRET not in raw and GH_TOKEN not in raw
    assert any("X-Org" in c.summary for c in ReviewQueue(kept.git.common_dir).load(NOW).pending)


def test_a_poisoning_attempt_is_blocked_and_listed_never_queued(kept: MemoryStore, model, tmp_path: Path) -> None:
    report = _read(_capture(kept, model), s07().write(tmp_path))
    state = ReviewQueue(kept.git.common_dir).load(NOW)
    assert report.blocked == 1
    [blocked] = state.blocked
    assert blocked.threat.level is ThreatLevel.HIGH and blocked.threat.pattern == "authority claim"
    assert not any("push directly" in c.summary for c in state.pending)
    assert any("HTML comments" in c.summary for c in state.pending)  # the rest of the session still counts


def test_proposals_from_a_branch_the_user_abandoned_are_withdrawn(kept: MemoryStore, model, tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-cccc-4a52-9a57-6d9a1b3ccccc")
    fork = w.user("We need a cache for rendered notes.")
    w.user("Let's use Redis for the render cache.")
    path = w.write(tmp_path)
    capture = _capture(kept, model)
    _read(capture, path)
    queue = ReviewQueue(kept.git.common_dir)
    assert [c.summary for c in queue.load(NOW).pending] == ["Use Redis for the render cache."]
    w.rewind(fork)  # the user edits the prompt: a new branch from the first message
    w.user("Let's keep the render cache in SQLite.")
    w.write(tmp_path)
    report = _read(capture, path)
    assert report.withdrawn == 1
    assert [c.summary for c in queue.load(NOW).pending] == ["Keep the render cache in SQLite."]


def test_the_queue_expires_after_seven_days_and_keeps_the_most_confident_hundred(
        kept: MemoryStore, model, tmp_path: Path) -> None:
    _read(_capture(kept, model), s03().write(tmp_path))
    queue = ReviewQueue(kept.git.common_dir)
    first = queue.load(NOW).pending
    assert first
    assert queue.load(NOW + timedelta(days=6, hours=23)).pending == first
    assert queue.load(NOW + timedelta(days=7, minutes=1)).pending == []
    template = first[0]

    def flood(state) -> None:
        for i in range(MAX_PENDING + 20):
            state.pending.append(template.model_copy(update={
                "id": f"c-{i:010d}", "summary": f"Statement number {i} of the flood.", "confidence": 0.7 + i / 1000,
                "proposed_at": NOW + timedelta(seconds=i)}))

    queue.update(flood, NOW + timedelta(minutes=1))
    pending = queue.load(NOW + timedelta(minutes=2)).pending
    assert len(pending) == MAX_PENDING
    assert all(c in pending for c in first)  # more confident than any of the flood
    kept_flood = sorted(int(c.id[2:]) for c in pending if c not in first)
    assert kept_flood == list(range(20 + len(first), MAX_PENDING + 20))  # the least confident went first


def test_approve_writes_what_capture_writes(kept: MemoryStore, model, tmp_path: Path, cli) -> None:
    _read(_capture(kept, model), s10().write(tmp_path))
    [update] = ReviewQueue(kept.git.common_dir).load(NOW).pending
    memory_id = approve_into_store(kept, update)
    repo = Path(kept.git.repo.workdir)
    approved = kept.scan(None).memories
    mine = next(m for m in approved if m.answers_to(memory_id))
    # the same memory through `memactors capture`, with the same fields
    done = cli("capture", "--repo", str(repo), "--namespace", update.namespace, "--summary", update.summary,
               "--tags", f"proposed,session:{update.session_id[:8]}", "--relates-to", update.replaces,
               "--content", f"{update.content}\n\nReplaces: {update.replaces_summary}")
    assert done.returncode == 0, done.stderr
    theirs = next(m for m in MemoryStore(GitStore(repo)).scan(None).memories if m.answers_to(done.stdout.strip()))
    assert (mine.namespace, mine.summary, mine.body, mine.tags, mine.relates_to) == \
        (theirs.namespace, theirs.summary, theirs.body, theirs.tags, theirs.relates_to)
    assert mine.commit == theirs.commit and theirs.index == mine.index + 1  # appended to HEAD's note, in turn
    note = kept.git.repo.lookup_note(mine.commit, f"refs/notes/mem/{mine.namespace}").message
    assert note.count("\n---\n") >= 2 and "Replaces: Use nose for tests" in note


def test_an_approved_update_replaces_the_old_memory_once_consolidated(
        kept: MemoryStore, model, tmp_path: Path) -> None:
    _read(_capture(kept, model), s10().write(tmp_path))
    [update] = ReviewQueue(kept.git.common_dir).load(NOW).pending
    approve_into_store(kept, update)
    _consolidate(kept, model)
    state = kept.load_state()
    old = next(m for m in kept.scan(None).memories if m.summary == "Use nose for tests")
    assert state.meta[old.key].superseded_by is not None


def test_a_dry_run_stores_nothing_and_moves_no_cursor(kept: MemoryStore, model, tmp_path: Path) -> None:
    path = s06().write(tmp_path)
    report = _read(_capture(kept, model), path, dry_run=True)
    assert report.candidates and not (kept.git.common_dir / "memactors" / "review" / "queue.json").exists()
    assert not (kept.git.common_dir / "memactors" / "transcripts" / "cursors.json").exists()


# --- with an LLM ---------------------------------------------------------------------------


def _llm(server: FakeOpenAI) -> LLMChain:
    config = ProviderConfig(name="openai", model="gpt-5-nano", base_url=server.base_url,
                            api_key=SecretStr("sk-test-000000000000000000"))
    return LLMChain([OpenAICompatibleLLM(config, timeout=5, backoff=0.01, max_backoff=0.02, requests_per_second=0,
                                         max_attempts=2)])


def _model_answers(screen_level: str | None):
    def respond(request: dict) -> str:
        system = request["messages"][0]["content"]
        if system.startswith("You screen"):
            if screen_level is None:
                return "not json"
            return json.dumps({"verdicts": [{"index": 0, "level": screen_level, "reason": "looked"}]})
        return json.dumps({"memories": [{
            "namespace": "decisions", "summary": "Use uv for dependency management.",
            "content": "uv resolves in seconds; pip-tools took minutes.", "relevance": 1.0, "actionability": 1.0,
            "novelty": 1.0, "specificity": 0.9, "coherence": 1.0, "replaces": None}]})

    return respond


def test_the_model_proposes_and_a_sure_proposal_is_captured_only_when_enabled(
        kept: MemoryStore, model, tmp_path: Path) -> None:
    from tests.session_transcripts import s01

    path = s01().write(tmp_path)
    with FakeOpenAI(responder=_model_answers("none")) as server:
        report = _read(_capture(kept, model, llm=_llm(server)), path)
        prompt = server.chat_requests()[0]["messages"][-1]["content"]
    assert report.provider == "openai:gpt-5-nano" and report.queued == 1 and report.captured == []
    assert "lockfile refresh takes forever" in prompt  # what was said goes to the model...
    assert "Resolved 41 packages" not in prompt and "numpy&gt;=1.26" not in prompt  # ...tool output does not
    (kept.git.common_dir / "memactors" / "transcripts" / "cursors.json").unlink()
    (kept.git.common_dir / "memactors" / "review" / "queue.json").unlink()
    with FakeOpenAI(responder=_model_answers("none")) as server:
        report = _read(_capture(kept, model, llm=_llm(server), routing=Routing(auto=True)), path)
    assert report.queued == 0 and len(report.captured) == 1
    assert any(m.summary == "Use uv for dependency management." and "proposed" in m.tags
               and "auto-approved" in m.tags for m in kept.scan(None).memories)


def test_the_model_screen_fails_closed(kept: MemoryStore, model, tmp_path: Path) -> None:
    from tests.session_transcripts import s01

    with FakeOpenAI(responder=_model_answers(None)) as server:  # the screen never answers usefully
        report = _read(_capture(kept, model, llm=_llm(server), routing=Routing(auto=True)), s01().write(tmp_path))
    state = ReviewQueue(kept.git.common_dir).load(NOW)
    assert report.blocked == 1 and report.captured == [] and state.pending == []
    assert state.blocked[0].threat.pattern == "LLM screen unavailable (fails closed)"
    assert any("screen unavailable" in e for e in report.errors)


def test_a_model_that_is_down_leaves_the_offline_proposer(kept: MemoryStore, model, tmp_path: Path) -> None:
    from tests.session_transcripts import s01

    with FakeOpenAI() as server:
        for _ in range(6):
            server.fail(500)
        report = _read(_capture(kept, model, llm=_llm(server)), s01().write(tmp_path))
    assert report.provider == "offline" and report.queued == 2
    assert any(e.startswith("proposed offline") for e in report.errors)


QUEUE_QUESTION = [{"question": "Which queue should the importer use?", "header": "Queue", "multiSelect": False,
                   "options": [{"label": "Redis streams (Recommended)", "description": ""},
                               {"label": "SQS", "description": ""}]}]


def test_the_model_reads_answers_plans_and_queued_messages_and_any_language(
        kept: MemoryStore, model, tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-abab-4a52-9a57-6d9a1b3cabab")
    w.user("Montons le service d'import des commandes, avec la base de données que nous avons déjà.")
    w.ask(QUEUE_QUESTION, {QUEUE_QUESTION[0]["question"]: "SQS"})
    w.plan("# Importer\n\n## Decisions\n- **Retries**: three, with jitter")
    w.queued("every handler validates its input with pydantic")
    path = w.write(tmp_path)
    with FakeOpenAI(responder=_model_answers("none")) as server:
        report = _read(_capture(kept, model, llm=_llm(server)), path, dry_run=True)
        prompt = server.chat_requests()[0]["messages"][-1]["content"]
    assert report.provider == "openai:gpt-5-nano" and report.unread_foreign == 0
    assert '<turn role="user" source="answer">Which queue should the importer use?\tSQS\tRedis streams' in prompt
    assert '<turn role="user" source="plan"># Importer' in prompt
    assert '<turn role="user" source="queued">every handler validates' in prompt
    assert "Montons le service" in prompt  # another language goes to the model as it is


def test_offline_a_turn_in_another_language_is_counted_and_the_answer_is_still_read(
        kept: MemoryStore, model, tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-cdcd-4a52-9a57-6d9a1b3ccdcd")
    w.user("A partir de ahora, vamos a usar la base de datos que ya tenemos para todos los pedidos del servicio.")
    w.ask(QUEUE_QUESTION, {QUEUE_QUESTION[0]["question"]: "SQS"})
    report = _read(_capture(kept, model), w.write(tmp_path), dry_run=True)
    assert report.unread_foreign == 1
    assert [(c.summary, c.source, c.lines[0]) for c in report.candidates] == [("Queue: SQS.", "answer", 3)]
    assert report.candidates[0].content == 'Asked "Which queue should the importer use?"; the user chose "SQS" over ' \
        'the recommended "Redis streams".'
