"""Is this id shaped like a credential or a person's number? The gate's second look at a value of the
``id`` class before it shows it in clear (FORMAT.md 4: ids are free Strings the host chooses, so an id
place can hold anything a host or a user put there).

Three checks, any one of which redacts the value:

1. **Secret formats**: gitleaks' default rule set (``gitleaks.toml`` beside this module, vendored
   verbatim from gitleaks, MIT licence in ``gitleaks.LICENSE``), read as data. A rule whose pattern
   stands alone (``ghp_…``, ``AKIA…``, ``hf_…``, ``shpat_…``, ``SK`` + 32 hex, ``sk_live_…``) is searched
   for in the token and in every part of it that follows a ``-``, ``_`` or ``.`` (so ``token-ghp_…`` and
   ``aws.AKIA…`` are found, not only a token that starts with the secret); a rule that needs an
   assignment around it (``mailgun_key = key-…``) contributes its secret's own pattern when that
   starts with a literal prefix of at least three characters (``key-``, ``pubkey-``, ``NRAK-``). Each
   rule's ``entropy`` floor, ``keywords`` and ``stopwords`` are honoured as gitleaks does.
2. **High entropy**: a run of at least 32 letters and digits that mixes upper and lower case with a
   Shannon entropy of at least 4.2 bits a character (AWS secret keys, base64 key material, a JWT's
   pieces). UUIDs, ULIDs, hex digests and the tool-call ids model providers make (``toolu_`` + 24,
   ``call_`` + 24) are below it; a JWT piece (``eyJ…``, base64 of ``{"``) is redacted wherever a part
   of the token starts with it.
   The entropy check also runs on the token with its ``-``, ``_`` and ``.`` taken out (a key cut into
   pieces; there the run must also mix cases as random text does and hold a digit, so words joined by
   dashes in title case stay readable), and does not judge a model provider's own call or message id (``call_``/``toolu_``/``msg_``
   and a random part of 8 to 48 characters).
3. **Personal numbers**: 13 to 19 digits (a space, ``.``, ``-`` or ``_`` between any two allowed) that
   start as a card network's numbers do (2 to 6; a millisecond clock starts with 1) and pass the Luhn
   check (a payment card number), and nine digits as a US social-security number is written
   (``NNN-NN-NNNN`` with ``-``, ``.``, ``_``, a space or nothing between, in the SSA's ranges).
4. **A named secret**: a part of the token that starts with a secret's name (``password``, ``pin``,
   ``otp``, ``cvv``, ``secret``, ``apikey`` ...) followed by a separator or a digit and a value
   (``pin-4821``, ``toolu_otp_123456``).

What it cannot catch: a person's name, an e-mail's local part without its ``@`` or a customer's own
word used as an id cannot be told from an id; a secret of a format no rule knows and too short or
too regular for the entropy check passes. docs/user-guide.md says so ("Ids that look like credentials").

Qt-free; no network; the rules are compiled once, on first use.
"""

from __future__ import annotations

import math
import re
import tomllib
import warnings
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

__all__ = ["CREDENTIAL_SHAPED", "credential_reason", "rules"]

#: The marker KIND (and the redaction count's word) for an id redacted by this module.
CREDENTIAL_SHAPED = "credential-shaped"

_ASSIGN = r"""(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}("""
_PREFIX = re.compile(r"(?:[A-Za-z0-9]|\\[.-])+")
_ENTROPY_RUN = re.compile(r"[A-Za-z0-9]{32,}")
_ENTROPY_FLOOR = 4.2
_JWT_PIECE = re.compile(r"(?:^|[-_.])eyJ[A-Za-z0-9]")
#: a payment card's digits: 13 to 19, a space, dot, dash or underscore allowed between any two, and a first
#: digit a card network issues (2 to 6: Mastercard, Visa, Amex, Discover, JCB, UnionPay...). A first 1 is
#: left out on purpose: millisecond and microsecond clocks (``1700000000004``) start with it.
_CARD = re.compile(r"(?<![0-9])[2-6](?:[ ._-]?[0-9]){12,18}(?![0-9])")
#: a US social-security number: ``NNN-NN-NNNN`` with the same separator twice (``-``, ``.``, ``_``, a
#: space) or none, area not 000, 666 or 9xx, group not 00, serial not 0000 (the SSA's own rules)
_SSN = re.compile(r"(?<![0-9])(?!000|666|9)[0-9]{3}([-._ ]?)(?!00)[0-9]{2}\1(?!0000)[0-9]{4}(?![0-9])")
#: a secret's own name at the start of a part of the token, then its value: ``pin-4821``, ``otp_123456``,
#: ``password.hunter2`` (the name must be followed by a separator or a digit: ``pinned`` is not one)
_SECRET_WORD = re.compile(r"(?i)(?:^|[-_.:])(?:password|passwd|passcode|pwd|secret|pin|otp|cvv|cvc|ssn|apikey)"
                          r"(?:[-_.:=]+|(?=[0-9]))[A-Za-z0-9]")
#: the tool-call and message ids model providers make (``call_`` + 24 to 40, ``toolu_`` + 24, ``msg_`` ...):
#: random by design, so the entropy check does not judge them (the gitleaks rules still do)
_PROVIDER_ID = re.compile(r"(?:(?:call|toolu|msg|fc|resp|run|thread|asst|req|item)_|(?:chatcmpl|file)-)[A-Za-z0-9]{8,48}")
_SEPARATORS = re.compile(r"[-_.]")


@dataclass(frozen=True)
class Rule:
    """One gitleaks rule as this module applies it: ``id`` (gitleaks' rule id), ``pattern``
    (compiled), ``keywords`` (lowercase; the rule runs only on a token holding one, none: always),
    ``entropy`` (bits a character the secret must reach, 0: none), ``stopwords`` (lowercase; a secret
    holding one is not reported)."""

    id: str
    pattern: re.Pattern
    keywords: tuple[str, ...]
    entropy: float
    stopwords: tuple[str, ...]


def go_to_python(rx: str) -> str:
    """A gitleaks (Go RE2) pattern in Python's syntax: ``\\z`` -> ``\\Z``, and a flag group ``(?i)``
    that is not at the start (Go applies it to the rest of its group) -> a scoped ``(?i:…)`` up to
    the end of that group. Raises nothing; the result may still not compile (the caller skips it)."""
    rx = rx.replace(r"\z", r"\Z")
    out, i, n = [], 0, len(rx)
    closers = [0]  # per open group (the pattern itself first): scoped flag groups to close with it
    in_class = False
    while i < n:
        ch = rx[i]
        if ch == "\\":
            out.append(rx[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            j = i + 1
            if rx[j:j + 1] == "^":
                j += 1
            if rx[j:j + 1] == "]":
                j += 1
            out.append(rx[i:j])
            i = j
            continue
        m = re.match(r"\(\?([a-z]+)\)", rx[i:]) if i > 0 else None
        if m:
            out.append(f"(?{m.group(1)}:")
            closers[-1] += 1
            i += m.end()
            continue
        if ch == "(":
            closers.append(0)
        elif ch == ")" and len(closers) > 1:
            out.append(")" * closers.pop())
        out.append(ch)
        i += 1
    out.append(")" * sum(closers))
    return "".join(out)


def _secret_group(rx: str) -> str | None:
    """The secret's own pattern inside a rule that needs an assignment before it (the capture group
    after gitleaks' assignment operators), when it starts with a literal prefix of three or more
    characters; else ``None`` (a bare ``[a-z0-9]{32}`` would redact ordinary ids)."""
    if _ASSIGN not in rx:
        return None
    inner = rx.split(_ASSIGN, 1)[1]
    depth, i = 1, 0
    while depth and i < len(inner):
        if inner[i] == "\\":
            i += 2
            continue
        depth += {"(": 1, ")": -1}.get(inner[i], 0)
        i += 1
    secret = inner[:i - 1]
    body = secret[4:] if secret.startswith("(?i)") else secret
    m = _PREFIX.match(body)
    literal = m.group(0).replace("\\", "") if m else ""
    return secret if len(literal) >= 3 else None


@lru_cache(maxsize=1)
def rules() -> tuple[Rule, ...]:
    """The gitleaks rules this module applies, compiled (see the module's text). Rules whose pattern
    Python cannot compile even after :func:`go_to_python` are left out (a test counts them)."""
    raw = tomllib.loads(resources.files(__package__).joinpath("gitleaks.toml").read_text("utf-8"))
    out = []
    for r in raw.get("rules", []):
        rx = r.get("regex")
        if not rx:
            continue
        secret = _secret_group(rx)
        if secret is None and _ASSIGN in rx:
            continue
        src = go_to_python(secret if secret is not None else rx)
        # anywhere in the token, not only at a word's start: gitleaks' leading \b would miss the secret
        # of ``runAKIA…`` or ``idghp_…`` (an id has no spaces to make a word boundary before it)
        src = re.sub(r"^((?:\(\?[a-z]+\))?)\\b", r"\1", src)
        try:
            with warnings.catch_warnings():  # Go's "[[" is a literal bracket; Python warns of a future set syntax
                warnings.simplefilter("ignore", FutureWarning)
                pat = re.compile(src)
        except re.error:
            continue
        stop = tuple(w.lower() for a in r.get("allowlists", ()) for w in a.get("stopwords", ()))
        keywords = () if secret is not None else tuple(k.lower() for k in r.get("keywords", ()))
        out.append(Rule(r["id"], pat, keywords, float(r.get("entropy", 0) or 0), stop))
    return tuple(out)


def shannon(s: str) -> float:
    """Shannon entropy of ``s`` in bits a character (0.0 for an empty string)."""
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _random_case(run: str) -> bool:
    """True when ``run``'s letters change case as random text's do (a quarter to four fifths of them
    upper case) and it holds a digit: words joined in title case (``MyProjectSessionAlpha``) have a capital
    only at each word's start, a random key about every second letter."""
    letters = [c for c in run if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    return bool(letters) and 0.25 <= upper / len(letters) <= 0.8 and any(c.isdigit() for c in run)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


@lru_cache(maxsize=1)
def _bare_rules() -> re.Pattern:
    """One pattern that matches where a rule without keywords matches (a prefilter: most ids match none, so
    one search replaces one per rule). Each rule's leading flags become a scoped group."""
    alts = []
    for rule in rules():
        if rule.keywords:
            continue
        src = rule.pattern.pattern
        m = re.match(r"\(\?([aiLmsux]+)\)", src)
        alts.append(f"(?{m.group(1)}:{src[m.end():]})" if m else f"(?:{src})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile("|".join(alts))


@lru_cache(maxsize=1)
def _by_keyword() -> tuple[tuple[str, frozenset], ...]:
    """``(keyword, indices of the rules it enables)`` for every distinct keyword (one substring test per
    keyword, not per rule and keyword)."""
    index: dict[str, set] = {}
    for i, rule in enumerate(rules()):
        for k in rule.keywords:
            index.setdefault(k, set()).add(i)
    return tuple((k, frozenset(v)) for k, v in index.items())


@lru_cache(maxsize=65536)
def credential_reason(token: str) -> str | None:
    """Why ``token`` (an id-shaped string) must not be shown: ``"gitleaks:RULE-ID"``, ``"high
    entropy"``, ``"JWT piece"``, ``"card number"``, ``"social-security number"`` or ``"named secret"``
    (the module's text says what each check finds); ``None`` when it
    looks like an ordinary id. Pure; remembered per token."""
    parts = [token] + [token[m.end():] for m in re.finditer(r"[-_.]", token) if m.end() < len(token)]
    low = token.lower()
    enabled: set = set()
    for k, which in _by_keyword():
        if k in low:
            enabled |= which
    bare = any(_bare_rules().search(part) for part in parts)
    for i, rule in enumerate(rules()):
        if (i not in enabled) if rule.keywords else not bare:
            continue
        for part in parts:
            m = rule.pattern.search(part)
            if m is None:
                continue
            secret = next((g for g in m.groups() if g), m.group(0))
            if rule.entropy and shannon(secret) < rule.entropy:
                continue
            if rule.stopwords and any(w in secret.lower() for w in rule.stopwords):
                continue
            return f"gitleaks:{rule.id}"
    if not _PROVIDER_ID.fullmatch(token):
        # the token as it is, and with its separators taken out (a key cut into pieces by dashes)
        joined = _SEPARATORS.sub("", token)
        for text in (token, joined) if joined != token else (token,):
            for m in _ENTROPY_RUN.finditer(text):
                run = m.group(0)
                if (any(c.islower() for c in run) and any(c.isupper() for c in run)
                        and shannon(run) >= _ENTROPY_FLOOR and (text is token or _random_case(run))):
                    return "high entropy"
    if _JWT_PIECE.search(token):
        return "JWT piece"
    for m in _CARD.finditer(token):
        digits = re.sub(r"[ ._-]", "", m.group(0))
        if 13 <= len(digits) <= 19 and _luhn(digits):
            return "card number"
    if _SSN.search(token):
        return "social-security number"
    if _SECRET_WORD.search(token):
        return "named secret"
    return None
