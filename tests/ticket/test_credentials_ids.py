"""Credential- and PII-shaped tokens in id places (security review, round three): the id class shows
one token that passes the id check, so a host that puts a secret in an id would have it shown.
Each planted token must be absent from every output that claims redaction, counted as
"credential-shaped", while ordinary ids stay readable for support."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from inspector.checkpoint import encode, verify
from inspector.ticket.allowlist import allowlist
from inspector.ticket.credentials import credential_reason, go_to_python, rules
from inspector.ticket.gate import CREDENTIAL_ID, Gate
from tests.ticket.outputs import shareable_outputs
from tests.conftest import CASES, CASES_PINNED, GOLDEN

#: what the review planted (formats of real credentials, with made-up digits), and the check that
#: must find each one
PLANTED = {
    "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY": "high entropy",                      # AWS secret access key
    "je7MtGbClwBF2Zp9Utk4h3yCo8nvbEXAMPLEKEYz": "high entropy",                    # AWS secret access key
    # behind an ordinary prefix with a hyphen: not a provider id (those take "_"), so judged by entropy
    "run-wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY": "high entropy",
    "SKa1b2c3d4e5f60718293a4b5c6d7e8f90": "gitleaks:twilio-api-key",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh": "gitleaks:huggingface-access-token",
    "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": "gitleaks:shopify-access-token",
    "key-a1b2c3d4e5f60718293a4b5c6d7e8f90": "gitleaks:mailgun-private-api-token",
    "eyJzdWIiOiIxMjM0NTY3ODkwIn0": "JWT piece",
    "run-eyJhbGciOiJIUzI1NiJ9": "JWT piece",
    "aws.AKIAIOSFODNN7EXAMPLE": "gitleaks:aws-access-token",
    "token-ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789": "gitleaks:github-pat",
    "4111-1111-1111-1111": "card number",
    "card-4242424242424242": "card number",
    "078-05-1120": "social-security number",
    "sk_live_51HqTxYzAbCdEfGhIjKlMnOp": "gitleaks:stripe-access-token",
    "glpat-aBcDeFgHiJkLmNoPqRsT": "gitleaks:gitlab-pat",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q": "gitleaks:gcp-api-key",
    "npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789": "gitleaks:npm-access-token",
    # the review's second look: a prefix glued on, a key cut by dashes, other separators, a named PIN
    "runAKIAIOSFODNN7EXAMPLE": "gitleaks:aws-access-token",
    "idghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789": "gitleaks:github-pat",
    "wJalrXUtnFEMI-K7MDENGbPxRfiCY-EXAMPLEKEY": "high entropy",
    "4111.1111.1111.1111": "card number",
    "4111_1111_1111_1111": "card number",
    "078051120": "social-security number",
    "078.05.1120": "social-security number",
    "user_078_05_1120": "social-security number",
    "pin-4821": "named secret",
    "toolu_pin_4821": "named secret",
    "otp_123456": "named secret",
    "password.hunter2": "named secret",
}

#: ordinary ids support needs to read: kept
ORDINARY = ["session-1", "run-2", "source-run", "session-checkpoint-1", "7d2c1a9e-5b4f-4e0a-9c3d-1f2e3a4b5c6d",
            "01HZX8J4K5M6N7P8Q9R0S1T2V3", "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "call_aBcDeFgHiJkLmNoPqRsTuVwX",
            "msg_01XFDUDYJgAACzvnptvVoYEL", "claude-sonnet-4-20250514", "gpt-4o-mini", "read_file", "task-42",
            "evt_1724000000000", "1724000000000", "a1b2c3d4e5f60718293a4b5c6d7e8f90",
            # over-redaction the review found: a millisecond clock passes Luhn; a provider's 32-character call id
            "run-1700000000004", "1700000000004", "evt_1724000000000123", "call_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345",
            # words joined in title case, and words that merely start like a secret's name
            "My-Project-Session-Alpha-Beta-Gamma-2024", "Customer-Acme-Production-Cluster-West-42", "pinned-3",
            "spinner-2", "secretary-desk", "000-12-3456", "666-12-3456"]


@pytest.mark.parametrize("token", sorted(PLANTED))
def test_each_planted_token_is_found_by_the_check_named(token):
    assert credential_reason(token) == PLANTED[token]


@pytest.mark.parametrize("token", ORDINARY)
def test_ordinary_ids_are_kept(token):
    assert credential_reason(token) is None


def test_the_gitleaks_rules_compile():
    raw = tomllib.loads((Path(__file__).parents[2] / "inspector/ticket/gitleaks.toml").read_text("utf-8"))
    assert len(raw["rules"]) == 222
    # 133 stand alone or name a secret with a literal prefix; the rest need an assignment around them
    assert len(rules()) == 133


@pytest.mark.parametrize("go,py", [
    (r"(?i)\b(ab)\z", r"(?i)\b(ab)\Z"),
    (r"\b((?i)ab|cd)x", r"\b((?i:ab|cd))x"),
    (r"x(?i)[a-z]{3}", r"x(?i:[a-z]{3})"),
    (r"[(?i)]", r"[(?i)]"),
])
def test_go_patterns_become_python_patterns(go, py):
    assert go_to_python(go) == py
    re.compile(py)


def _golden() -> dict:
    return json.loads((GOLDEN / "payload-with-resume.json").read_bytes())




def _planted(token: str) -> bytes:
    """The golden with ``token`` as a tool_use id, an artifact id, a task id and the loop checkpoint's
    run id (L-SOURCE-RUN then fails and quotes it in every report format)."""
    d = _golden()
    d["snapshot"]["session"]["messages"][0]["content"].append(
        {"type": "tool_use", "id": token, "name": "read", "input": {}})
    d["snapshot"]["artifacts"] = [{"artifact_id": token, "artifact_uri": "a3s://x", "tool_name": "read",
                                   "content": "x", "original_bytes": 1, "shown_bytes": 1}]
    d["logical_resume"]["run_id"] = token
    return encode(d)


@pytest.mark.parametrize("token", sorted(PLANTED))
def test_a_credential_shaped_id_is_in_no_output(token):
    payload = _planted(token)
    report = verify(payload, None)
    assert report.root_cause.rule.id == "L-SOURCE-RUN"
    outputs = shareable_outputs(payload)
    for name, text in outputs.items():
        assert token not in text, name
        assert json.dumps(token)[1:-1] not in text, name
    red = json.loads(outputs["redacted-payload"])
    assert red["logical_resume"]["run_id"].startswith(f"[redacted: {CREDENTIAL_ID}, {len(token.encode())} bytes")
    assert "; 1 id redacted: credential-shaped" not in outputs["text"]  # three places hold it
    assert re.search(r"; [1-9][0-9]* ids redacted: credential-shaped;", outputs["text"])


def test_the_count_is_the_number_of_markers():
    d = _golden()
    d["logical_resume"]["run_id"] = "token-ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
    payload = encode(d)
    text = shareable_outputs(payload)["text"]
    n = text.count(f"[redacted: {CREDENTIAL_ID}, ")
    assert n >= 1
    assert f"; {n} id{'' if n == 1 else 's'} redacted: credential-shaped;" in text


@pytest.mark.parametrize("token", [t for t in ORDINARY[:7] if t != "source-run"])
def test_an_ordinary_id_stays_readable_in_the_report(token):
    out = shareable_outputs(_planted(token))
    assert "L-SOURCE-RUN" in out["text"]
    assert token in out["text"] and token in out["redacted-payload"]


def test_no_id_of_the_ground_truth_fixtures_is_taken_for_a_credential():
    """Over-redaction guard: every string the id class accepts in the reference's fixtures stays."""
    seen = 0
    paths = sorted(GOLDEN.glob("*.json")) + sorted(CASES.glob("*.json")) + sorted(CASES_PINNED.glob("*.json"))
    for path in paths:
        try:
            doc = json.loads(path.read_bytes())
        except ValueError:
            continue
        source = "descriptor" if "descriptor" in path.name else "payload"
        gate = Gate({source: doc})
        stack = [(doc, "")]
        while stack:
            v, ptr = stack.pop()
            if isinstance(v, dict):
                stack.extend((c, f"{ptr}/{k.replace('~', '~0').replace('/', '~1')}") for k, c in v.items())
            elif isinstance(v, list):
                stack.extend((c, f"{ptr}/{i}") for i, c in enumerate(v))
            elif isinstance(v, str) and allowlist().allows(source, ptr):
                ok, kind = gate.judge(source, ptr, v)
                assert kind != CREDENTIAL_ID, (path.name, ptr)
                seen += ok
    assert seen > 1000
