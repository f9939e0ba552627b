"""Secret redaction: applied to every text before it leaves the machine."""

from __future__ import annotations

import re

_RULES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("private_key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S), ""),
    ("url_credentials", re.compile(r"(?P<keep>\b[a-z][a-z0-9+.-]*://[^/\s:@]+:)[^@\s/]+(?=@)", re.I), "keep"),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}"), ""),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{16,}"), ""),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), ""),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"), ""),
    ("slack_token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), ""),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), ""),
    ("bearer", re.compile(r"(?P<keep>\bBearer\s+)[A-Za-z0-9._~+/-]{12,}=*", re.I), "keep"),
    ("assignment", re.compile(
        r"(?P<keep>\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)"
        r"\s*[:=]\s*[\"']?)[^\s\"',;]{4,}", re.I), "keep"),
)


def redact(text: str) -> tuple[str, int]:
    """`text` with secrets replaced by `[REDACTED:<kind>]`, and how many were replaced.

    Commit ids (40 hex) and ordinary prose are left alone.
    """
    total = 0
    for kind, pattern, mode in _RULES:
        def substitute(match: re.Match[str], kind: str = kind, mode: str = mode) -> str:
            prefix = match.group("keep") if mode == "keep" else ""
            return f"{prefix}[REDACTED:{kind}]"

        text, count = pattern.subn(substitute, text)
        total += count
    return text, total
