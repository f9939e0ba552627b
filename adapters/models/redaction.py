"""Secret redaction: applied to every text before it leaves the machine (LLM prompts, remote embeddings).

Three layers, each replacing what it finds with `[REDACTED:<kind>]`:

1. Provider key formats from detect-secrets (Yelp's maintained detectors: AWS, Azure storage,
   Artifactory, Cloudant, Discord, GitHub, GitLab, IBM, JWT, Mailchimp, npm, OpenAI, private
   keys, PyPI, SendGrid, Slack, Softlayer, Square, Stripe, Telegram, Twilio, credentials in URLs),
   matched with their own patterns; plus formats it lacks (Anthropic, Google, Hugging Face,
   HashiCorp Vault, DigitalOcean, Shopify, GitHub fine-grained, private-key blocks whole).
2. Assignments and phrases: `password=…`, `"api_key": "…"`, `DB_SECRET=…`, `Bearer …`,
   "the password is …", "token: …".
3. High-entropy strings next to a secret word ("with secret wJalrXUt…"): a long token that mixes
   character classes within a few words after password / secret / token / key / credential.

Commit ids, memory ids, UUIDs, paths and prose are left alone: entropy counts only beside those words.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache

#: detect-secrets detectors that are not provider formats: entropy and keyword scanning flag ordinary words
#: when given prose rather than source files (layers 2 and 3 do that job here), public IPs are no secret.
_NOT_FORMATS = frozenset({"Base64HighEntropyString", "HexHighEntropyString", "KeywordDetector",
                          "IPPublicDetector"})

_SECRET_WORD = (r"(?:pass(?:word|wd|phrase)?|pwd|secret(?:[_-]?(?:access[_-]?)?key)?|client[_-]?secret|"
                r"(?:access|auth|api|bearer|refresh|session|private)[_-]?(?:token|key)|token|api[_-]?key|"
                r"credentials?|private[_-]?key|signing[_-]?key|access[_-]?key|secret[_-]?key)")

#: Formats detect-secrets does not know, and shapes it matches only in part (a private key's header).
_EXTRA_FORMATS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private_key", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.S)),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}")),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[0-9A-Z]{16}\b")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})")),
    ("gitlab_token", re.compile(r"\bgl(?:pat|dt|ptt|rt|cbt|soat|ffct)-[A-Za-z0-9_-]{20,}")),
    ("slack_token", re.compile(r"\bxox[abprseo]-[A-Za-z0-9-]{10,}")),
    ("slack_webhook", re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]+")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("google_oauth_secret", re.compile(r"\bGOCSPX-[A-Za-z0-9_-]{20,}")),
    ("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    ("vault_token", re.compile(r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}")),
    ("digitalocean_token", re.compile(r"\bdo[por]_v1_[a-f0-9]{64}\b")),
    ("shopify_token", re.compile(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b")),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi_token", re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}")),
    ("stripe_key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("sendgrid_key", re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("azure_storage_key", re.compile(r"(?i)AccountKey=[A-Za-z0-9+/=]{40,}")),
    ("telegram_bot_token", re.compile(r"\b\d{8,10}:AA[0-9A-Za-z_-]{30,40}\b")),
)

#: `scheme://user:password@host`: the password goes, the rest stays readable.
_URL_CREDENTIALS = re.compile(r"(?P<keep>\b[a-z][a-z0-9+.-]*://[^/\s:@]+:)(?P<secret>[^@\s/]+)(?=@)", re.I)
_BEARER = re.compile(r"(?P<keep>\b(?:Bearer|Basic|Token)\s+)(?P<secret>[A-Za-z0-9._~+/-]{12,}=*)")
#: `password = x`, `"secret": "x"`, `DB_PASSWORD=x`, `--token x`, `api-key: x`.
_ASSIGNMENT = re.compile(
    r"(?P<keep>(?:\b[A-Za-z0-9_]*?[_-])?" + _SECRET_WORD + r"[\"']?\s*(?:[:=]|=>|:=)\s*[\"'`]?)"
    r"(?P<secret>[^\s\"'`,;]{4,})", re.I)
_FLAG = re.compile(r"(?P<keep>--(?:[a-z]+-)?" + _SECRET_WORD + r"[ =])(?P<secret>[^\s\"'`]{6,})", re.I)
#: "the password is x", "password was x", "secret for staging is x".
_PHRASE = re.compile(
    r"(?P<keep>\b" + _SECRET_WORD + r"\b(?:\s+(?:for|of|on|to)\s+[\w.-]+)?\s+(?:is|was|are|=|:)\s+[\"'`]?)"
    r"(?P<secret>[^\s\"'`,;]{6,})", re.I)
#: A secret word, then within a few words a long token: candidates for the entropy check.
_NEAR_WORD = re.compile(r"\b" + _SECRET_WORD + r"\b(?P<gap>(?:\W+[\w.-]{1,20}){0,3}?)\W+(?P<secret>[A-Za-z0-9+/=_.~-]{16,})",
                        re.I)
_HEX = re.compile(r"[0-9a-fA-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def looks_random(token: str) -> bool:
    """A token that reads like a key, not a word, path, id or version: long, mixed classes, high entropy."""
    token = token.rstrip(".,;:")
    if len(token) < 16 or _HEX.fullmatch(token) or _UUID.fullmatch(token):
        return False  # commit ids and UUIDs are not secrets on their own
    classes = sum(bool(re.search(p, token)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[+/=_~-]"))
    if classes < 3:
        return False
    if "/" in token and re.fullmatch(r"[\w./-]+", token) and token.count("/") > 2:
        return False  # a path
    return _entropy(token) >= 3.5


@cache
def _library_formats() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """detect-secrets' provider-format patterns, by detector name."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    formats: list[tuple[str, re.Pattern[str]]] = []
    for detector in get_mapping_from_secret_type_to_class().values():
        if detector.__name__ in _NOT_FORMATS:
            continue
        kind = re.sub(r"(?<!^)(?=[A-Z])", "_", detector.__name__.removesuffix("Detector")).lower()
        for pattern in getattr(detector, "denylist", ()):
            formats.append((kind, pattern))
    return tuple(formats)


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    """The part of a detector's match that is the secret: its longest group unless that is a mere prefix
    (`ghp` of a GitHub token), else the whole match."""
    groups = [i for i in range(1, (match.re.groups or 0) + 1) if match.group(i)]
    best = max(groups, key=lambda i: len(match.group(i)), default=None)
    if best is not None and len(match.group(best)) >= 6:
        return match.span(best)
    return match.span()


def _spans(text: str) -> Iterator[tuple[int, int, str]]:
    for kind, pattern in _EXTRA_FORMATS:
        for match in pattern.finditer(text):
            yield match.start(), match.end(), kind
    for kind, pattern in (("url_credentials", _URL_CREDENTIALS), ("bearer", _BEARER), ("assignment", _ASSIGNMENT),
                          ("assignment", _FLAG), ("phrase", _PHRASE)):
        for match in pattern.finditer(text):
            yield match.start("secret"), match.end("secret"), kind
    for kind, pattern in _library_formats():
        for match in pattern.finditer(text):
            start, end = _secret_span(match)
            if end - start >= 8:
                yield start, end, kind
    for match in _NEAR_WORD.finditer(text):
        if looks_random(match.group("secret")):
            token = match.group("secret").rstrip(".,;:")
            yield match.start("secret"), match.start("secret") + len(token), "high_entropy"


def redact(text: str) -> tuple[str, int]:
    """`text` with secrets replaced by `[REDACTED:<kind>]`, and how many were replaced.

    Overlapping finds merge into one (the first-found kind names it); everything else is kept
    byte for byte.
    """
    found = sorted(_spans(text), key=lambda span: (span[0], -span[1]))
    if not found:
        return text, 0
    merged: list[list] = []
    for start, end, kind in found:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
            continue
        merged.append([start, end, kind])
    out: list[str] = []
    position = 0
    for start, end, kind in merged:
        out.append(text[position:start])
        out.append(f"[REDACTED:{kind}]")
        position = end
    out.append(text[position:])
    return "".join(out), len(merged)
