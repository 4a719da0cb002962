"""The one redaction gate (inspector/ticket/gate.py): nothing from the files reaches a
shareable output unless it is proven harmless, by value.

The property test plants unique markers in every string and number position of a payload (and of
its descriptor), in object keys, and free text in every allow-listed place, for valid payloads and
for failures of every rule family (serde P-PARSE texts, the S-/L- binding rules, descriptor rules,
P-CANONICAL, X-BYTES). No marker may appear in any report format, the redacted payload, or the
replacement list: not raw, not JSON-``\\u``-escaped, not any 8-character piece of it. Numbers
planted where the typed layout wants a number (a size, count, sequence, timestamp) are values the
allow-list shows by design and are not planted; numbers are planted where text belongs and inside
free-form values. The same test proves our fixed words survive: the root cause's title and
plain-language meaning are there verbatim, and no engine text was swallowed whole.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.checkpoint.analysis.story import plain_of
from inspector.checkpoint import InputFile, encode, verify
from inspector.checkpoint.slotted import KEY, Text, fmt as text_fmt, value
from inspector.ticket import FORMATS, build_ticket, gate_for, redact_payload, render
from inspector.ticket.gate import UNLABELLED, Gate, place_classes, types_at
from tests.conftest import CASES_PINNED, GOLDEN, fixture_pairs

BASES = [GOLDEN / "payload-with-resume.json", GOLDEN / "payload-semantic-only.json",
         CASES_PINNED / "001-valid-rich-resume.payload.json", CASES_PINNED / "002-valid-rich-semantic.payload.json",
         CASES_PINNED / "008-valid-zoo.payload.json"]
_ALPHA = "GHJKLMNPQRSTUVWXYZ"  # never hex: a marker piece cannot collide with a digest


class Plant:
    """Hands out unique markers: free text (with a space, so it is never an id) and card-like numbers."""

    def __init__(self, decor: str):
        self.decor = decor
        self.texts: list[str] = []
        self.numbers: list[int] = []

    def text(self) -> str:
        n = len(self.texts) * 7919 + 17
        core = "QZ"
        for _ in range(8):
            n, r = divmod(n, len(_ALPHA))
            core += _ALPHA[r]
        core += "ZQ"
        self.texts.append(core)
        return f"{core} {self.decor}secret"

    def number(self) -> int:
        v = 4532015112830366 + 1000003 * len(self.numbers)
        self.numbers.append(v)
        return v


def _walk(doc):
    """Every member of ``doc``: ``(container, key or index, its parent's pointer, its pointer, value)``."""
    stack = [(doc, "")]
    while stack:
        node, ptr = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            p = f"{ptr}/{str(k).replace('~', '~0').replace('/', '~1')}"
            yield node, k, ptr, p, v
            if isinstance(v, (dict, list)):
                stack.append((v, p))


def _positions(doc, source: str):
    """Every (container, slot, pointer, kind) of ``doc``: kind ``str``, ``num`` or ``key``."""
    out = []
    for node, k, _parent, p, v in list(_walk(doc)):
        if isinstance(node, dict):
            out.append((node, k, p, "key"))
        if isinstance(v, str):
            out.append((node, k, p, "str"))
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and not types_at(source, p):
            out.append((node, k, p, "num"))  # inside a free-form value (or a field the layout does not have)
    return out


def _plant(doc, source: str, plant: Plant, picks: list[int], mode: str) -> None:
    """Replace the picked positions: strings by free-text markers (or, in ``numbers`` mode, by
    card-like numbers: a number where text belongs), free-form numbers by marker numbers, keys
    by marker keys."""
    pos = _positions(doc, source)
    if not pos:
        return
    chosen = sorted({i % len(pos) for i in picks}, reverse=True)
    for i in chosen:
        node, k, _p, kind = pos[i]
        if kind == "key":
            if mode != "keys" or k not in node:
                continue
            node[plant.text()] = node.pop(k)
        elif kind == "str":
            node[k] = plant.number() if mode == "numbers" else plant.text()
        elif kind == "num":
            node[k] = plant.number()


#: Failures of each family on top of the planting: the descriptor of the original (X-BYTES and the
#: X-/D- consequences), a broken binding (S-/L- rules), a renamed key (P-PARSE / P-CANONICAL).
FAMILIES = ["none", "x-bytes", "descriptor-fields", "binding", "pretty"]


def _family(name: str, doc: dict, plant: Plant, original: bytes) -> tuple[bytes, bytes | None]:
    payload = encode(doc) if _encodable(doc) else json.dumps(doc).encode()
    report = verify(payload, None)
    descriptor = report.expected_descriptor
    if name == "x-bytes":
        return payload, verify(original, None).expected_descriptor
    if name == "descriptor-fields" and descriptor is not None:
        d = json.loads(descriptor)
        d["snapshot"]["session_id"] = plant.text()
        d["schema"] = plant.text()
        d["size_bytes"] = plant.text()  # a string where a number belongs: D-PARSE quotes it
        return payload, json.dumps(d).encode()
    if name == "binding":
        s = doc.get("snapshot", {})
        runs = s.get("run_records") if isinstance(s, dict) else None
        if isinstance(runs, list) and runs and isinstance(runs[0], dict):
            snap = runs[0].get("snapshot")
            if isinstance(snap, dict):
                snap["session_id"] = plant.text()  # S-RUN-OWNER quotes both session ids
        lr = doc.get("logical_resume")
        if isinstance(lr, dict):
            lr["run_id"] = plant.text()  # L-SOURCE-RUN quotes it
        payload = encode(doc) if _encodable(doc) else json.dumps(doc).encode()
        return payload, descriptor
    if name == "pretty":
        return json.dumps(json.loads(payload), indent=2, ensure_ascii=True).encode(), descriptor
    return payload, descriptor


def _encodable(doc) -> bool:
    try:
        encode(doc)
        return True
    except Exception:
        return False


def _outputs(payload: bytes, descriptor: bytes | None, tags: bool) -> tuple[object, dict[str, str]]:
    report = verify(payload, descriptor)  # verification first, on the original bytes
    pf = InputFile("customer.payload.json", len(payload), payload, "payload")
    df = None if descriptor is None else InputFile("customer.descriptor.json", len(descriptor), descriptor, "descriptor")
    gate = gate_for(payload, descriptor, tags=tags)
    out = {}
    try:
        redacted, reps = redact_payload(payload, hash_prefix=tags, gate=gate)
        out["redacted-payload"] = redacted.decode()
        out["replacements"] = "\n".join(f"{r.pointer} {r.kind} {r.size} {r.digest}" for r in reps)
    except ValueError:
        pass  # not JSON: no redacted copy can be made
    if descriptor is not None:
        try:
            out["redacted-descriptor"] = redact_payload(descriptor, source="descriptor", gate=gate)[0].decode()
        except ValueError:
            pass
    ticket = build_ticket(report, pf, df, hash_prefix=tags, date="2026-01-01T00:00:00Z", gate=gate)
    out.update({fmt: render(ticket, fmt) for fmt in FORMATS})
    return report, out


def _leaks(outputs: dict[str, str], plant: Plant) -> list[tuple[str, str]]:
    found = []
    pieces = [(m, [m[k:k + 8] for k in range(len(m) - 7)] + [json.dumps(m)[1:-1]]) for m in plant.texts]
    pieces += [(str(n), [str(n)[k:k + 8] for k in range(len(str(n)) - 7)]) for n in plant.numbers]
    for name, text in outputs.items():
        escaped = text.encode("ascii", "backslashreplace").decode()  # a \\u-escaped marker in JSON output too
        for marker, parts in pieces:
            if any(p in text or p in escaped for p in parts):
                found.append((name, marker))
    return found


def _fixed_words_survive(report, outputs: dict[str, str]) -> None:
    for fmt, text in outputs.items():
        assert UNLABELLED not in text, (fmt, "an engine text without provenance was swallowed whole")
    rc = report.root_cause
    if rc is not None:
        for fmt in ("text", "markdown", "json"):
            out = outputs[fmt].replace("\\", "") if fmt == "markdown" else outputs[fmt]  # Markdown escapes _ and `
            assert rc.rule.title in out, fmt
            plain = plain_of(rc, report)  # (a proven restore's own words: FORMAT.md 3.1, 3.2)
            if plain:
                assert json.dumps(plain.meaning)[1:-1] in out or plain.meaning in out, fmt


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(base=st.sampled_from(BASES), mode=st.sampled_from(["strings", "numbers", "keys", "allow-listed"]),
       picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=12), family=st.sampled_from(FAMILIES),
       tags=st.booleans(), decor=st.sampled_from(["", '"', "\\", "`", "é中😀 ", "\n", "'", "{}"]),
       with_descriptor=st.booleans())
def test_no_planted_marker_reaches_any_output(base, mode, picks, family, tags, decor, with_descriptor):
    original = base.read_bytes()
    doc = json.loads(original)
    plant = Plant(decor)
    if mode == "allow-listed":  # free text in every allow-listed string place the picks hit
        gate = Gate()
        pos = [p for p in _positions(doc, "payload") if p[3] == "str" and gate.allow.allows("payload", p[2])]
        for i in sorted({i % len(pos) for i in picks}, reverse=True):
            node, k, _p, _kind = pos[i]
            node[k] = plant.text()
    else:
        _plant(doc, "payload", plant, picks, mode)
    payload, descriptor = _family(family, doc, plant, original)
    if not with_descriptor and family not in ("x-bytes", "descriptor-fields"):
        descriptor = None
    if not plant.texts and not plant.numbers:
        return
    report, outputs = _outputs(payload, descriptor, tags)
    assert _leaks(outputs, plant) == []
    _fixed_words_survive(report, outputs)


@pytest.mark.parametrize("place,free", [
    ("/snapshot/session/messages/0/role", "user please call 555-0100"),
    ("/snapshot/session/model_name", "my card 4532015112830366"),
    ("/snapshot/run_records/0/snapshot/id", "/home/alice"),
    ("/snapshot/session/id", "a session id with spaces"),
])
def test_free_text_in_an_allow_listed_place_is_redacted_in_the_payload_copy(place, free):
    """A place on the allow-list shows a value only when the value passes its class's check."""
    doc = json.loads((GOLDEN / "payload-with-resume.json").read_bytes())
    node = doc
    parts = place.split("/")[1:]
    for p in parts[:-1]:
        node = node[int(p)] if isinstance(node, list) else node[p]
    node[parts[-1]] = free
    redacted, reps = redact_payload(encode(doc))
    assert free.encode() not in redacted
    assert (place, len(free.encode())) in [(r.pointer, r.size) for r in reps]


def test_values_that_pass_their_class_stay_visible():
    """Ids, digests, enum values, roles, schema constants, integers: the golden's redacted copy keeps them."""
    payload = (GOLDEN / "payload-with-resume.json").read_bytes()
    out = json.loads(redact_payload(payload)[0])
    s = out["snapshot"]["session"]
    assert (s["id"], s["state"], s["model_name"]) == ("session-checkpoint-1", "Active", "deepseek-chat")
    assert s["messages"][0]["role"] == "user"
    assert out["schema"] == json.loads(payload)["schema"]
    descriptor = (GOLDEN / "descriptor-with-resume.json").read_bytes()
    d = json.loads(redact_payload(descriptor, source="descriptor", gate=gate_for(None, descriptor, file_digests=True))[0])
    assert d == json.loads(descriptor)  # the descriptor holds no content: every value passes its class
    # by default its digests of the files are tagged (beside a redacted payload each tests guesses); sizes stay
    d = json.loads(redact_payload(descriptor, source="descriptor")[0])
    assert d["size_bytes"] == 2090 and d["snapshot"]["size_bytes"] == 1449
    assert re.fullmatch(r"\[redacted: digest of the files, 71 bytes, tag [0-9a-f]{8}\]", d["snapshot"]["evidence_digest"])


def test_serde_quoted_number_where_text_belongs_is_redacted_everywhere():
    """`invalid type: integer `4532015112830366`, expected a string`: the number is a slot of no known
    place, so it never shows; the words around it do."""
    doc = json.loads((GOLDEN / "payload-with-resume.json").read_bytes())
    doc["snapshot"]["session"]["messages"][0]["content"][0]["text"] = 4532015112830366
    payload = encode(doc)
    report, outputs = _outputs(payload, None, False)
    assert report.root_cause.rule.id == "P-PARSE"
    assert "4532015112830366" in report.root_cause.message  # the engine says it (verify shows it)
    for fmt, text in outputs.items():
        assert "4532015112830366" not in text, fmt
    assert "invalid type: integer `[redacted: value, 16 bytes]`, expected a string" in outputs["text"]


def test_unknown_variant_holding_backticks_is_one_slot():
    """serde quotes a variant between backticks without escaping: the slot is the whole value, so a
    value holding backticks is redacted whole (no parse of the message decides where it ends)."""
    payload = (GOLDEN / "payload-with-resume.json").read_bytes().replace(
        b'"type":"text"', b'"type":"te`xt QZKEEPOUTZQ"', 1)
    report, outputs = _outputs(payload, None, False)
    assert "unknown variant `te`xt QZKEEPOUTZQ`" in report.root_cause.message
    for fmt, text in outputs.items():
        assert "KEEPOUT" not in text and "te`xt" not in text, fmt
    assert "unknown variant `[redacted: value, 17 bytes]`, expected one of `text`, `image`, `tool_use`, " \
           "`tool_result` at line 1 column " in outputs["text"]


def test_repeats_go_through_the_same_gate():
    """"Can it resume?" repeats the root cause's message: it is redacted the same way."""
    doc = json.loads((GOLDEN / "payload-with-resume.json").read_bytes())
    doc["snapshot"]["session"]["state"] = "QZREPEATZQ free text"
    report, outputs = _outputs(encode(doc), None, False)
    ticket = json.loads(outputs["json"])
    assert ticket["resumability"]["reasons"][0]["text"] == ticket["root_cause"]["message"]
    assert "REPEAT" not in outputs["json"]


def test_our_words_are_never_redacted_in_part():
    """A key of the file that is also a piece of our words (`ratio` in "generation") changes nothing:
    markers replace whole slots only."""
    t = text_fmt("the generation of {} is {}", value("ratio", "payload", "/x/ratio", role=KEY), value(5))
    out = Gate().text(t)
    assert out == "the generation of [redacted: key, 5 bytes] is [redacted: value, 1 byte]"
    assert Gate().text(Text("expected: no api_key key")) == "expected: no api_key key"
    assert Gate().text("a plain str from the engine") == f"[redacted: {UNLABELLED}, 27 bytes]"


def test_tags_are_keyed_per_report():
    """Equal values in one report share a tag; another report's tag for the same value differs, and
    no unsalted SHA-256 prefix of the value appears (it could be brute-forced)."""
    import hashlib

    a, b = Gate(tags=True), Gate(tags=True)
    assert a.mark("1234", "value") == a.mark("1234", "value")
    assert a.mark("1234", "value") != b.mark("1234", "value")
    assert hashlib.sha256(b"1234").hexdigest()[:8] not in a.mark("1234", "value")
    assert re.fullmatch(r"\[redacted: value, 4 bytes, tag [0-9a-f]{8}\]", a.mark("1234", "value"))


def test_place_classes_are_counted_by_class():
    """Issue 22's measure: how many allow-listed places show values, by class (pinned, so a change to
    the allow-list or the class table is seen)."""
    counts = place_classes()
    assert counts == PLACE_CLASSES, dict(counts)


#: Measured on this allow-list.
PLACE_CLASSES = {
    "boolean": 41, "container": 113, "enum": 41, "integer": 193, "number": 12, "string: digest": 51,
    "string: format constant": 3, "string: git object id": 2, "string: id": 75, "string: image source type": 2,
    "string: media type": 3, "string: role": 2, "string: schema": 44, "string: word of the format": 15,
    "timestamp": 1, "untyped (shows nothing)": 5,
}


def _file_strings(doc, source: str, gate: Gate):
    """``(string, shown)`` for every string value and key of a parsed file (12 characters or more: shorter
    strings of the fixtures are English words our own sentences also use, such as "rejected")."""
    out = []
    for node, k, parent, p, v in _walk(doc):
        if isinstance(node, dict) and len(k) >= 12:
            out.append((k, gate.key_shown(source, parent, k)))
        if isinstance(v, str) and len(v) >= 12:
            out.append((v, gate.shows(source, p, v)))
    return out


def _strings(value):
    stack, out = [value], []
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def test_every_string_of_every_fixture_report_passed_the_gate():
    """Walk every string of the built report (every fixture case, the pair and the payload alone):
    a string of the files that the gate does not show (its place or its class says no) never occurs
    in it, whole or as a part."""
    pairs = fixture_pairs()
    assert len(pairs) >= 150
    checked = 0
    for payload_path, descriptor_path in pairs:
        payload = payload_path.read_bytes()
        descriptor = descriptor_path.read_bytes() if descriptor_path else None
        gate = gate_for(payload, descriptor)
        secrets = set()
        for source, doc in gate.docs.items():
            secrets |= {s for s, shown in _file_strings(doc, source, Gate(gate.docs)) if not shown}
        secrets -= gate.allow.vocabulary
        for d in (descriptor, None):
            report = verify(payload, d)
            pf = InputFile("customer.payload.json", len(payload), payload, "payload")
            df = None if d is None else InputFile("customer.descriptor.json", len(d), d, "descriptor")
            ticket = build_ticket(report, pf, df, date="2026-01-01T00:00:00Z", gate=gate_for(payload, d))
            strings = _strings(ticket)
            # what the engine computed itself (a recomputed digest can hold a damaged stated one as a prefix)
            computed = " ".join(str(r.recomputed) for r in report.digests) + (report.expected_descriptor or b"").decode()
            leaked = [(payload_path.name, s) for s in secrets if s not in computed for t in strings if s in t]
            assert leaked == []
            checked += len(strings)
    assert checked > 10_000
