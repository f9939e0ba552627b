"""The threat screen's levels and patterns, standard library only (see events/threat.py).

The SessionStart hook screens memories captured since the last run with `highest`, and may import
nothing outside the standard library; `screen` in events/threat.py wraps the same answer in a model.
"""

from __future__ import annotations

import re
from enum import Enum


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


_I = re.IGNORECASE


class _Lazy:
    """A pattern compiled on its first search: most texts pass no pattern's gate, and a hook pays for each compile."""

    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source, self._flags = source, flags
        self._compiled: re.Pattern[str] | None = None

    def search(self, text: str) -> re.Match[str] | None:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled.search(text)


#: (level, name, words one of which the lowercased text must hold before the pattern is tried (None: any
#: character outside ASCII),
#: pattern). The words only spare the regular expressions most text: a memory rarely holds any of them.
_PATTERNS: tuple[tuple[ThreatLevel, str, tuple[str, ...] | None, _Lazy], ...] = (
    (ThreatLevel.CRITICAL, "instruction override", ("ignore", "disregard", "forget", "override", "bypass"), _Lazy(
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|"
        r"earlier|preceding|other|existing|system)\s+(?:instructions?|prompts?|rules|guidelines|directives)", _I)),
    (ThreatLevel.CRITICAL, "fake role or system tag", ("<", "[", "system", "assistant"), _Lazy(
        r"<\s*/?\s*(?:system|assistant|instructions?|im_start|im_end|sys)\s*>|<\|im_(?:start|end)\|>|\[/?(?:SYSTEM|INST)\]"
        r"|^\s*#{0,3}\s*(?:system|assistant)\s*(?:prompt|message)?\s*:", _I | re.MULTILINE)),
    (ThreatLevel.CRITICAL, "data exfiltration", ("send", "post", "upload", "forward", "email", "exfiltrat", "copy", "paste", "transmit", "leak", "curl"), _Lazy(
        r"\b(?:send|post|upload|forward|email|exfiltrate|copy|paste|transmit|leak)\b[^\n]{0,60}?\b(?:secrets?|"
        r"credentials?|api[_ -]?keys?|tokens?|passwords?|private\s+keys?|ssh\s+keys?|\.env\b|env(?:ironment)?\s+"
        r"variables|id_rsa|cookies?)\b[^\n]{0,80}?\b(?:to|at|into)\b\s*(?:https?://|[\w.-]+@[\w-]+\.|\S+\.(?:com|io|"
        r"net|org|ru|xyz)\b)"
        r"|\bcurl\b[^\n]{0,80}(?:-d\s*@|--data[^\n]{0,20}@|-F\s*\S*=@)[^\n]{0,40}(?:\.ssh|\.env|id_rsa|credentials"
        r"|\.aws|\.netrc)", _I)),
    (ThreatLevel.HIGH, "authority claim", ("authori", "admin", "owner", "maintainer", "security team", "anthropic", "operator", "permitted", "allowed", "granted", "comes from", "is from"), _Lazy(
        r"\bas\s+(?:the|your|an?)\s+(?:repo(?:sitory)?\s+)?(?:admin(?:istrator)?|owner|maintainer|security\s+team|"
        r"anthropic|developer\s+of\s+claude|system\s+operator)\b[^.\n]{0,60}\b(?:i\s+)?(?:authori[sz]e|allow|permit|"
        r"order|instruct|grant|approve)"
        r"|\bi\s+(?:hereby\s+)?authori[sz]e\s+(?:you|claude|the\s+(?:agent|assistant|ai))"
        r"|\byou\s+(?:are|have\s+been)\s+(?:now\s+)?(?:authori[sz]ed|permitted|allowed|granted)\s+to\b"
        r"|\b(?:this|the\s+following)\s+(?:message|memory|note)\s+(?:is|comes)\s+from\s+(?:anthropic|the\s+system|"
        r"your\s+(?:developer|operator))", _I)),
    (ThreatLevel.HIGH, "concealment from the user", ("tell", "inform", "mention", "show", "reveal", "let", "without", "silently", "secretly", "quietly"), _Lazy(
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this|it)\s+to|show|reveal\s+(?:this|it)\s+to|"
        r"let)\s+(?:the\s+)?(?:user|human|developer|anyone)\b"
        r"|\bwithout\s+(?:asking|telling|informing|notifying|confirming\s+with)\s+(?:the\s+)?(?:user|human|anyone)\b"
        r"|\b(?:silently|secretly|quietly)\s+(?:run|execute|install|push|delete|send|add|disable|commit)\b", _I)),
    (ThreatLevel.HIGH, "safeguard removal", ("disable", "turn off", "skip", "bypass", "dangerously", "push"), _Lazy(
        r"\b(?:disable|turn\s+off|skip|bypass)\s+(?:all\s+)?(?:the\s+)?(?:permission\s+(?:prompts?|checks?)|"
        r"safety\s+(?:checks?|rules)|confirmations?|sandbox(?:ing)?|code\s+review|security\s+(?:checks?|scans?))\b"
        r"[^.\n]{0,40}\b(?:always|from\s+now\s+on|every\s+time|for\s+good|permanently)\b"
        r"|--dangerously-skip-permissions|\bpush\s+(?:directly\s+)?to\s+(?:main|master)\s+without\s+review", _I)),
    (ThreatLevel.HIGH, "remote code piped to a shell", ("curl", "wget"), _Lazy(
        r"\b(?:curl|wget)\s+[^|\n]{0,200}https?://[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b", _I)),
    (ThreatLevel.HIGH, "hidden text", None, _Lazy(
        "[\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")),
    (ThreatLevel.HIGH, "HTML comment", ("<!--",), _Lazy(r"<!--.*?-->", re.DOTALL)),
    (ThreatLevel.MEDIUM, "instruction to the agent", ("must", "shall", "required", "should always", "should never", "will always", "will never", " this"), _Lazy(
        r"\b(?:claude|assistant|the\s+ai|ai\s+agents?|llms?|language\s+models?|you)\s*[,:]?\s+(?:must|shall|are\s+"
        r"required\s+to|should\s+always|should\s+never|will\s+always|will\s+never)\b[^.\n]{0,80}\b(?:when(?:ever)?\s+"
        r"(?:you\s+)?(?:read|see|load)|regardless|no\s+matter\s+what|under\s+all\s+circumstances)"
        r"|\b(?:when|whenever|if)\s+(?:you|an?\s+(?:ai|agent|assistant|llm))\s+(?:read|see|load)s?\s+this\b", _I)),
    (ThreatLevel.LOW, "link to a raw address", ("http",), _Lazy(
        r"https?://(?:\d{1,3}\.){3}\d{1,3}\b|https?://[^\s/]*(?:pastebin|ngrok|requestbin|webhook\.site)", _I)),
)


def highest(*texts: str) -> tuple[ThreatLevel, str]:
    """The highest threat level any of `texts` carries, and the first pattern that reached it ("" when none)."""
    found, name_found = ThreatLevel.NONE, ""
    present = [(text, text.lower(), not text.isascii()) for text in texts if text]
    for level, name, words, pattern in _PATTERNS:
        if level.rank <= found.rank:
            continue
        for text, low, wide in present:
            gate = wide if words is None else any(w in low for w in words)
            if gate and pattern.search(text):
                found, name_found = level, name
                break
    return found, name_found
