"""The 15 binding rules of FORMAT.md 6.3/6.4, registered with ``@check`` like :mod:`.checks`.

S-DURABLE-VALID/-TENANT/-PRINCIPAL, S-COGNITIVE, S-RUN-COGNITIVE, S-RUN-CAPABILITY,
S-EVENT-COGNITIVE-VALID/-RUN/-LEGACY, S-TOOLEND-BINDING-PARSE/-INVALID,
S-TOOLEND-EVIDENCE-MISSING/-PARSE/-MISMATCH and L-CAPABILITY-VALID. The inner validators
(catalogs C, R, D, S, T) are in :mod:`.bindings`; each failure points at the failing field.

Per-run rules carry ``order = (run index, step[, event index, step])`` so :mod:`.verify`
picks the failure the reference's run loop meets first (``validate_invariants``): S-RUN-COGNITIVE
(step 0), S-RUN-CAPABILITY (1), S-RUN-DUP (2), S-RUN-OWNER (3), then per event S-EVENT-SEQ
(4, j) and the event rules (4, j, 1..7), then S-EVENT-COUNT-OVERFLOW (5) and S-EVENT-COUNT (6).
"""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import escape as escape_pointer_token

from inspector.checkpoint.jsontext.reader import SerdeError
from inspector.checkpoint.rules.bindings import (
    EVIDENCE_KEY, EVIDENCE_SCHEMA, TRANSFORM_BINDING_KEY, Problem, capability_binding_problem,
    cognitive_binding_problem, durable_binding_problem, transform_binding_problem, transform_policy_digest,
)
from inspector.checkpoint.rules.context import NotApplicable, json_equal
from inspector.checkpoint.rules.registry import SESSION_ID_POINTER, Violation, check, nv, qv
from inspector.checkpoint.rules.runevents import RunEvents, for_context, read_runs
from inspector.checkpoint.schema.model import TOOL_RESULT_EVIDENCE, TOOL_RESULT_TRANSFORM_BINDING
from inspector.checkpoint.schema.typed import decode_value
from inspector.checkpoint.slotted import KEY, Text, fmt, ours, rebased, slots_of

# -- one walk over the snapshot computes every binding rule's violations -------------------------
_RULES = ("S-DURABLE-VALID", "S-DURABLE-TENANT", "S-DURABLE-PRINCIPAL", "S-COGNITIVE", "S-RUN-COGNITIVE",
          "S-RUN-CAPABILITY", "S-EVENT-COGNITIVE-VALID", "S-EVENT-COGNITIVE-RUN", "S-EVENT-COGNITIVE-LEGACY",
          "S-TOOLEND-BINDING-PARSE", "S-TOOLEND-BINDING-INVALID", "S-TOOLEND-EVIDENCE-MISSING",
          "S-TOOLEND-EVIDENCE-PARSE", "S-TOOLEND-EVIDENCE-MISMATCH")


def _at(message: Text, base: str, problem: Problem, order=(), extra=()) -> Violation:
    """The violation of a binding ``problem`` found in the binding at ``base``: the problem's
    relative slots placed under ``base``."""
    return Violation(rebased(message, "payload", base), "payload", base + problem.pointer,
                     expected=rebased(problem.expected, "payload", base), actual=rebased(problem.actual, "payload", base),
                     order=order, extra=extra)


def _run_id(run, i: int) -> Text:
    return qv(run, f"/snapshot/run_records/{i}/snapshot/id")


def _analysis(ctx) -> dict:
    """``rule id -> [Violation]`` for the snapshot binding rules, computed once per context."""
    memo = ctx.__dict__.get("_binding_violations")
    if memo is None:
        memo = ctx.__dict__["_binding_violations"] = _analyse(ctx.pay["snapshot"], for_context(ctx))
    return memo


#: The run-level bindings, in the reference's order (steps 0 and 1 of a run).
_RUN_BINDINGS = (("S-RUN-COGNITIVE", "cognitive_package_binding", cognitive_binding_problem, "cognitive package"),
                 ("S-RUN-CAPABILITY", "capability_binding", capability_binding_problem, "capability"))


def _analyse(snapshot: dict, run_events: list[RunEvents] | None = None) -> dict:
    """``rule id -> [Violation]`` of the snapshot binding rules. ``run_events``: :func:`.runevents.read_runs`
    of ``snapshot["run_records"]`` when the caller has it (read here otherwise)."""
    out = {r: [] for r in _RULES}
    session = snapshot["session"]
    sid = session["id"]
    _session_rules(session, out)
    tool_ends = _ToolEnds(out, sid, session["config"]["tool_result_transform_policy"])
    records = snapshot["run_records"]
    for i, (rec, read) in enumerate(zip(records, read_runs(records) if run_events is None else run_events)):
        run_snapshot = rec["snapshot"]
        run = run_snapshot["id"]
        base = f"/snapshot/run_records/{i}"
        problems = []
        for step, (rule, key, validate, what) in enumerate(_RUN_BINDINGS):
            value = run_snapshot.get(key)
            p = None if value is None else validate(value)
            problems.append(p)
            if p is not None:
                out[rule].append(_at(fmt("run {} at record {} has an invalid {} binding: {}", _run_id(run, i), i,
                                         ours(what), p.error), f"{base}/snapshot/{key}", p, (i, step)))
        b = run_snapshot.get("cognitive_package_binding")
        legacy = None  # a legacy run's first valid cognitive binding
        events = read.events
        for j in read.marked:  # the events of the kinds below (and turn_end)
            event = events[j]["event"]
            kind = event["type"]
            if kind == "cognitive_context_bound":
                legacy = _cognitive_event(out, run, i, j, event["binding"], b, problems[0], legacy, base)
            elif kind == "tool_end":
                metadata = event.get("metadata")
                if isinstance(metadata, dict) and TRANSFORM_BINDING_KEY in metadata:
                    tool_ends.check(run, i, j, metadata, base)
    return out


def _session_rules(session: dict, out: dict) -> None:
    sid = session["id"]
    d = session.get("durable_memory_binding")
    if d is not None:
        p = durable_binding_problem(d)
        base = "/snapshot/session/durable_memory_binding"
        if p is not None:
            out["S-DURABLE-VALID"].append(_at(
                fmt("session snapshot {} has an invalid durable-memory binding: {}", qv(sid, SESSION_ID_POINTER), p.error), base, p))
        else:
            for rule, key, name in (("S-DURABLE-TENANT", "tenant_id", "tenantId"),
                                    ("S-DURABLE-PRINCIPAL", "principal", "principalId")):
                want, got = d["namespace"][name], session.get(key)
                if got != want:
                    what = "tenant" if key == "tenant_id" else "principal"
                    here = f"/snapshot/session/{key}" if got is not None else f"{base}/namespace/{name}"
                    other = f"{base}/namespace/{name}" if got is not None else "/snapshot/session"
                    out[rule].append(Violation(
                        fmt("session snapshot {} {} identity does not match its durable-memory binding", qv(sid, SESSION_ID_POINTER),
                            ours(what)),
                        "payload", here, expected=qv(want, f"{base}/namespace/{name}"),
                        actual=ours("absent") if got is None else qv(got, here),
                        extra=(("payload", other),)))
    c = session.get("cognitive_package_binding")
    p = None if c is None else cognitive_binding_problem(c)
    if p is not None:
        out["S-COGNITIVE"].append(_at(
            fmt("session snapshot {} has an invalid cognitive package binding: {}", qv(sid, SESSION_ID_POINTER), p.error),
            "/snapshot/session/cognitive_package_binding", p))


def _cognitive_event(out, run, i, j, binding, run_binding, run_problem, legacy, base):
    """S-EVENT-COGNITIVE-VALID, then -RUN or -LEGACY, for one ``cognitive_context_bound`` event.
    Returns the legacy run's binding after this event.

    ``run_problem`` is the run binding's own catalog C result. An event binding equal to the
    binding it is compared with (the run's, or the legacy run's first valid one) has that
    binding's result, so it is validated only when it differs. Typed ``CognitivePackageBindingV1``
    values hold only strings, integers and such structs, so Python's ``==`` is ``json_equal`` here
    (no ``True == 1`` or ``1 == 1.0`` to tell apart; pinned in tests/checkpoint/test_rule_speedups.py)."""
    if run_binding is not None:
        same = run_binding == binding
        p = run_problem if same else cognitive_binding_problem(binding)
    elif legacy is not None:
        same = legacy[1] == binding
        p = None if same else cognitive_binding_problem(binding)
    else:
        same = False
        p = cognitive_binding_problem(binding)
    if p is not None:
        out["S-EVENT-COGNITIVE-VALID"].append(_at(
            fmt("run {} event {} has an invalid cognitive package binding: {}", _run_id(run, i), j, p.error),
            f"{base}/events/{j}/event/binding", p, (i, 4, j, 1)))
        return legacy
    if same:
        return legacy
    if run_binding is not None:
        rule, expected, other = ("S-EVENT-COGNITIVE-RUN", run_binding, f"{base}/snapshot/cognitive_package_binding")
        message = fmt("run {} event {} carries a cognitive generation different from its admitted Run binding",
                      _run_id(run, i), j)
    elif legacy is None:
        return (j, binding)
    else:
        rule, expected, other = ("S-EVENT-COGNITIVE-LEGACY", legacy[1], f"{base}/events/{legacy[0]}/event/binding")
        message = fmt("legacy run {} event {} changes cognitive generation within one Run", _run_id(run, i), j)
    field = _first_difference(expected, binding)
    out[rule].append(Violation(message, "payload", f"{base}/events/{j}/event/binding" + field,
                               expected=_leaf(expected, field), expected_at=("payload", other + field),
                               actual=_leaf(binding, field), order=(i, 4, j, 2),
                               extra=(("payload", other + field),)))
    return legacy


#: ``CognitivePackageBindingV1`` keys in declaration order (nested structs included, FORMAT.md 4.8).
_DECLARED = {k: n for n, k in enumerate((
    "schema", "packageId", "packageVersion", "lifecycleGeneration", "generationDigest", "capabilitySnapshotDigest",
    "knowledge", "limits", "surfaceId", "formatVersion", "contentDigest", "searchSchema", "readSchema",
    "citationSchema", "maxResults", "maxDocumentBytes", "maxTotalBytes"))}


def _first_difference(a: dict, b: dict) -> str:
    """Pointer (relative) of the first field, in declaration order, where two cognitive bindings
    differ; the derived ``capabilitySnapshotDigest`` last, so the pointer names the cause."""
    pointer = ""
    while isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(a, key=lambda k: (k == "capabilitySnapshotDigest", _DECLARED.get(k, len(_DECLARED)), k))
        for k in keys:
            if not json_equal(a.get(k), b.get(k)):
                pointer, a, b = f"{pointer}/{k}", a.get(k), b.get(k)
                break
        else:
            break
    return pointer


def _leaf(v, pointer: str):
    for k in pointer.split("/")[1:]:
        v = v.get(k) if isinstance(v, dict) else None
    return v


class _ToolEnds:
    """The S-TOOLEND rules for the ``tool_end`` events of one snapshot, in the reference's order.

    Work that is the same for every event is done once: the session policy's digest, and catalog T
    of each distinct transform binding (a function of its four strings and that digest). Messages
    and pointers are built only for a failure."""

    def __init__(self, out: dict, sid: str, policy: dict):
        self.out, self.sid, self.policy = out, sid, policy
        self.policy_digest = None  # transform_policy_digest(policy), once a binding gets that far
        self.problems: dict[tuple, Problem | None] = {}

    def head(self, run, i, j) -> Text:
        return fmt("run {} event {} in session {}", _run_id(run, i), j, qv(self.sid, SESSION_ID_POINTER))

    def parse(self, rule_id: str, t, key: str, what: str, metadata: dict, run, i, j, run_base: str, step: int):
        """``serde_json::from_value`` of ``metadata[key]`` for an S-TOOLEND-*-PARSE rule: the typed value, or
        None after recording the violation (``... has malformed {what}: {serde text}``, pointing at the value
        or at its unknown key)."""
        try:
            return decode_value(t, metadata[key])
        except SerdeError as e:
            self.out[rule_id].append(Violation(
                fmt("{} has malformed {}: {}", self.head(run, i, j), ours(what), e.message), "payload",
                f"{run_base}/events/{j}/event/metadata/{key}" + _field_of(e), expected=f"a {t.name} object",
                actual=e.message, order=(i, 4, j, step)))
            return None

    def check(self, run, i, j, metadata: dict, run_base: str) -> None:
        """One ``tool_end`` event whose ``metadata`` holds a transform binding (the rules apply)."""
        out = self.out
        binding = self.parse("S-TOOLEND-BINDING-PARSE", TOOL_RESULT_TRANSFORM_BINDING, TRANSFORM_BINDING_KEY,
                             "Tool result transform binding", metadata, run, i, j, run_base, 3)
        if binding is None:
            return
        key = (binding["schema"], binding["transform_algorithm"], binding["policy_digest"], binding["binding_digest"])
        p = self.problems.get(key, self)
        if p is self:
            if self.policy_digest is None:
                self.policy_digest = transform_policy_digest(self.policy)
            p = self.problems[key] = transform_binding_problem(binding, self.policy, self.policy_digest)
        if p is not None:
            extra = (("payload", "/snapshot/session/config/tool_result_transform_policy"),) \
                if p.pointer == "/policy_digest" else ()
            out["S-TOOLEND-BINDING-INVALID"].append(_at(
                fmt("{} has invalid Tool result transform binding: {}", self.head(run, i, j), p.error),
                f"{run_base}/events/{j}/event/metadata/{TRANSFORM_BINDING_KEY}", p, (i, 4, j, 4), extra))
            return
        if EVIDENCE_KEY not in metadata:
            base = f"{run_base}/events/{j}/event/metadata"
            out["S-TOOLEND-EVIDENCE-MISSING"].append(Violation(
                fmt("{} has a Tool result transform binding without Tool result evidence", self.head(run, i, j)),
                "payload", base, expected=f"a key {EVIDENCE_KEY!r} beside {TRANSFORM_BINDING_KEY!r}",
                actual=ours("absent"),
                order=(i, 4, j, 5), extra=(("payload", f"{base}/{TRANSFORM_BINDING_KEY}"),)))
            return
        evidence = self.parse("S-TOOLEND-EVIDENCE-PARSE", TOOL_RESULT_EVIDENCE, EVIDENCE_KEY, "Tool result evidence",
                              metadata, run, i, j, run_base, 6)
        if evidence is None:
            return
        if evidence["schema"] != EVIDENCE_SCHEMA:
            field, want, got = "/schema", EVIDENCE_SCHEMA, evidence["schema"]
        elif evidence.get("transform_algorithm") != binding["transform_algorithm"]:
            field, want, got = "/transform_algorithm", binding["transform_algorithm"], evidence.get("transform_algorithm")
        else:
            return
        base = f"{run_base}/events/{j}/event/metadata"
        out["S-TOOLEND-EVIDENCE-MISMATCH"].append(Violation(
            fmt("{} has Tool result evidence that does not match its transform binding", self.head(run, i, j)),
            "payload", f"{base}/{EVIDENCE_KEY}" + (field if got is not None else ""),
            expected=want if field == "/schema" else nv(want, f"{base}/{TRANSFORM_BINDING_KEY}/transform_algorithm"),
            actual=ours("absent") if got is None else got, order=(i, 4, j, 7),
            extra=(("payload", f"{base}/{TRANSFORM_BINDING_KEY}/transform_algorithm"),)))


def _field_of(e: SerdeError) -> str:
    """``/key`` for an ``unknown field `key``` error (the key is there to point at), else ``""``."""
    m = e.message
    if m.startswith("unknown field `"):  # the key is the message's key slot (never parsed back from the text)
        key = next(s.value for s in slots_of(m) if s.role == KEY)
        return "/" + escape_pointer_token(key)
    return ""


def _register(rule_id: str, doc: str, session_level: str | None = None):
    def fn(ctx):
        if session_level is not None and ctx.pay["snapshot"]["session"].get(session_level) is None:
            raise NotApplicable(f"the session has no {session_level}")
        return _analysis(ctx)[rule_id]
    fn.__name__ = rule_id.lower().replace("-", "_")
    fn.__doc__ = f"{rule_id}: {doc} (FORMAT.md 6.3). Returns a list of Violations."
    check(rule_id)(fn)


for _rid, _doc, _field in (
    ("S-DURABLE-VALID", "the session's durable-memory binding is valid (catalogs D, S)", "durable_memory_binding"),
    ("S-DURABLE-TENANT", "the session's tenant_id equals the binding's namespace.tenantId", "durable_memory_binding"),
    ("S-DURABLE-PRINCIPAL", "the session's principal equals the binding's namespace.principalId",
     "durable_memory_binding"),
    ("S-COGNITIVE", "the session's cognitive package binding is valid (catalog C)", "cognitive_package_binding"),
    ("S-RUN-COGNITIVE", "every run's cognitive package binding is valid (catalog C)", None),
    ("S-RUN-CAPABILITY", "every run's capability binding is valid (catalog R)", None),
    ("S-EVENT-COGNITIVE-VALID", "every cognitive_context_bound event's binding is valid (catalog C)", None),
    ("S-EVENT-COGNITIVE-RUN", "cognitive events repeat their run's admitted binding", None),
    ("S-EVENT-COGNITIVE-LEGACY", "cognitive events of a run without a binding all agree", None),
    ("S-TOOLEND-BINDING-PARSE", "a tool_end transform binding parses as ToolResultTransformBindingV1", None),
    ("S-TOOLEND-BINDING-INVALID", "a tool_end transform binding is valid for the session policy (catalog T)", None),
    ("S-TOOLEND-EVIDENCE-MISSING", "a tool_end transform binding comes with Tool result evidence", None),
    ("S-TOOLEND-EVIDENCE-PARSE", "the Tool result evidence parses as ToolResultEvidenceV1", None),
    ("S-TOOLEND-EVIDENCE-MISMATCH", "the Tool result evidence matches its transform binding", None),
):
    _register(_rid, _doc, _field)


@check("L-CAPABILITY-VALID")
def l_capability_valid(ctx):
    """L-CAPABILITY-VALID: the loop checkpoint's capability binding is valid (catalog R, FORMAT.md 6.4).
    Yields a Violation per failure."""
    lr = ctx.lr
    b = lr.get("capability_binding")
    p = None if b is None else capability_binding_problem(b)
    if p is not None:
        yield _at(fmt("loop checkpoint for run {} has an invalid capability binding: {}",
                      nv(lr["run_id"], "/logical_resume/run_id"), p.error),
                  "/logical_resume/capability_binding", p)
