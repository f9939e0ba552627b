"""The screen every proposed (or synced-in) memory passes: does it try to steer the agent that will read it?

A memory is read back into an agent's context at every session start, so a
memory that carries instructions is a prompt injection with a long fuse. The
screen looks for what a fact has no reason to hold: overriding instructions,
fake role or system tags, authority claims, requests to send data elsewhere,
instructions to hide things from the user, and text a reader cannot see
(zero-width or direction-changing characters, HTML comments). It answers the
highest level any pattern reaches, with the pattern's name; high and critical
block. Pure, standard library and pydantic only. Ordinary project rules ("always run ruff before committing") are not
threats: they are what decisions look like.
"""

from __future__ import annotations

import re
from enum import Enum

from pydantic import BaseModel, ConfigDict


class ThreatLevel(str, Enum):
    NONE = "none"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        return list(ThreatLevel).index(self)

    @property
    def blocks(self) -> bool:
        """High and critical never reach an agent: a proposal is blocked, a stored memory is never shown to one."""
        return self.rank >= ThreatLevel.HIGH.rank


class Threat(BaseModel):
    """What the screen found: the level and the pattern that set it ("" when none matched)."""

    model_config = ConfigDict(frozen=True)

    level: ThreatLevel = ThreatLevel.NONE
    pattern: str = ""

_I = re.IGNORECASE
#: (level, name, words one of which the lowercased text must hold before the pattern is tried (None: any
#: character outside ASCII),
#: pattern). The words only spare the regular expressions most text: a memory rarely holds any of them.
_PATTERNS: tuple[tuple[ThreatLevel, str, tuple[str, ...] | None, re.Pattern[str]], ...] = (
    (ThreatLevel.CRITICAL, "instruction override", ("ignore", "disregard", "forget", "override", "bypass"), re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|"
        r"earlier|preceding|other|existing|system)\s+(?:instructions?|prompts?|rules|guidelines|directives)", _I)),
    (ThreatLevel.CRITICAL, "fake role or system tag", ("<", "[", "system", "assistant"), re.compile(
        r"<\s*/?\s*(?:system|assistant|instructions?|im_start|im_end|sys)\s*>|<\|im_(?:start|end)\|>|\[/?(?:SYSTEM|INST)\]"
        r"|^\s*#{0,3}\s*(?:system|assistant)\s*(?:prompt|message)?\s*:", _I | re.MULTILINE)),
    (ThreatLevel.CRITICAL, "data exfiltration", ("send", "post", "upload", "forward", "email", "exfiltrat", "copy", "paste", "transmit", "leak", "curl"), re.compile(
        r"\b(?:send|post|upload|forward|email|exfiltrate|copy|paste|transmit|leak)\b[^\n]{0,60}?\b(?:secrets?|"
        r"credentials?|api[_ -]?keys?|tokens?|passwords?|private\s+keys?|ssh\s+keys?|\.env\b|env(?:ironment)?\s+"
        r"variables|id_rsa|cookies?)\b[^\n]{0,80}?\b(?:to|at|into)\b\s*(?:https?://|[\w.-]+@[\w-]+\.|\S+\.(?:com|io|"
        r"net|org|ru|xyz)\b)"
        r"|\bcurl\b[^\n]{0,80}(?:-d\s*@|--data[^\n]{0,20}@|-F\s*\S*=@)[^\n]{0,40}(?:\.ssh|\.env|id_rsa|credentials"
        r"|\.aws|\.netrc)", _I)),
    (ThreatLevel.HIGH, "authority claim", ("authori", "admin", "owner", "maintainer", "security team", "anthropic", "operator", "permitted", "allowed", "granted", "comes from", "is from"), re.compile(
        r"\bas\s+(?:the|your|an?)\s+(?:repo(?:sitory)?\s+)?(?:admin(?:istrator)?|owner|maintainer|security\s+team|"
        r"anthropic|developer\s+of\s+claude|system\s+operator)\b[^.\n]{0,60}\b(?:i\s+)?(?:authori[sz]e|allow|permit|"
        r"order|instruct|grant|approve)"
        r"|\bi\s+(?:hereby\s+)?authori[sz]e\s+(?:you|claude|the\s+(?:agent|assistant|ai))"
        r"|\byou\s+(?:are|have\s+been)\s+(?:now\s+)?(?:authori[sz]ed|permitted|allowed|granted)\s+to\b"
        r"|\b(?:this|the\s+following)\s+(?:message|memory|note)\s+(?:is|comes)\s+from\s+(?:anthropic|the\s+system|"
        r"your\s+(?:developer|operator))", _I)),
    (ThreatLevel.HIGH, "concealment from the user", ("tell", "inform", "mention", "show", "reveal", "let", "without", "silently", "secretly", "quietly"), re.compile(
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this|it)\s+to|show|reveal\s+(?:this|it)\s+to|"
        r"let)\s+(?:the\s+)?(?:user|human|developer|anyone)\b"
        r"|\bwithout\s+(?:asking|telling|informing|notifying|confirming\s+with)\s+(?:the\s+)?(?:user|human|anyone)\b"
        r"|\b(?:silently|secretly|quietly)\s+(?:run|execute|install|push|delete|send|add|disable|commit)\b", _I)),
    (ThreatLevel.HIGH, "safeguard removal", ("disable", "turn off", "skip", "bypass", "dangerously", "push"), re.compile(
        r"\b(?:disable|turn\s+off|skip|bypass)\s+(?:all\s+)?(?:the\s+)?(?:permission\s+(?:prompts?|checks?)|"
        r"safety\s+(?:checks?|rules)|confirmations?|sandbox(?:ing)?|code\s+review|security\s+(?:checks?|scans?))\b"
        r"[^.\n]{0,40}\b(?:always|from\s+now\s+on|every\s+time|for\s+good|permanently)\b"
        r"|--dangerously-skip-permissions|\bpush\s+(?:directly\s+)?to\s+(?:main|master)\s+without\s+review", _I)),
    (ThreatLevel.HIGH, "remote code piped to a shell", ("curl", "wget"), re.compile(
        r"\b(?:curl|wget)\s+[^|\n]{0,200}https?://[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b", _I)),
    (ThreatLevel.HIGH, "hidden text", None, re.compile(
        "[\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")),
    (ThreatLevel.HIGH, "HTML comment", ("<!--",), re.compile(r"<!--.*?-->", re.DOTALL)),
    (ThreatLevel.MEDIUM, "instruction to the agent", ("must", "shall", "required", "should always", "should never", "will always", "will never", " this"), re.compile(
        r"\b(?:claude|assistant|the\s+ai|ai\s+agents?|llms?|language\s+models?|you)\s*[,:]?\s+(?:must|shall|are\s+"
        r"required\s+to|should\s+always|should\s+never|will\s+always|will\s+never)\b[^.\n]{0,80}\b(?:when(?:ever)?\s+"
        r"(?:you\s+)?(?:read|see|load)|regardless|no\s+matter\s+what|under\s+all\s+circumstances)"
        r"|\b(?:when|whenever|if)\s+(?:you|an?\s+(?:ai|agent|assistant|llm))\s+(?:read|see|load)s?\s+this\b", _I)),
    (ThreatLevel.LOW, "link to a raw address", ("http",), re.compile(
        r"https?://(?:\d{1,3}\.){3}\d{1,3}\b|https?://[^\s/]*(?:pastebin|ngrok|requestbin|webhook\.site)", _I)),
)


def screen(*texts: str) -> Threat:
    """The highest threat any of `texts` carries, with the first pattern that reached it."""
    found = Threat()
    present = [(text, text.lower(), not text.isascii()) for text in texts if text]
    for level, name, words, pattern in _PATTERNS:
        if level.rank <= found.level.rank:
            continue
        for text, low, wide in present:
            gate = wide if words is None else any(w in low for w in words)
            if gate and pattern.search(text):
                found = Threat(level=level, pattern=name)
                break
    return found
