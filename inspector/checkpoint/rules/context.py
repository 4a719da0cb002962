"""Lazily computed facts about one payload/descriptor pair, shared by all checks.

Data flows one way: bytes -> typed values and span trees -> rule verdicts. Everything here is
computed at most once and only when a check asks for it.
"""

from __future__ import annotations

from array import array
from functools import cached_property


from inspector.checkpoint.constants import (
    DESCRIPTOR_SCHEMA, ENCODING, FORMAT, LOGICAL_EVIDENCE_SCHEMA, MEDIA_TYPE, RESUME_SEMANTICS, SNAPSHOT_EVIDENCE_SCHEMA,
)
from inspector.checkpoint.digest import (
    DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, SNAPSHOT_DOMAIN, content_digest, descriptor_digest_input, domain_digest,
    logical_evidence_input, snapshot_evidence_input,
)
from inspector.checkpoint.jsontext.canonical import encode
from inspector.checkpoint.jsontext.lazyjson import SpanWalk
from inspector.checkpoint.jsontext.spanindex import SpanIndex
from inspector.checkpoint.jsontext.reader import Node, SerdeError, parse_value
from inspector.checkpoint.read.door import read_payload
from inspector.checkpoint.schema import model as S
from inspector.checkpoint.schema.typed import decode

__all__ = ["Context", "build_descriptor", "json_equal", "NotApplicable", "Deferred"]


class NotApplicable(Exception):
    """Raised by a check when its inputs lack what it checks (reason in ``args[0]``)."""


class Deferred(Exception):
    """Raised while :attr:`Context.deferring` is set by anything that needs the parsed payload.

    ``verify(on_stage=...)`` evaluates the descriptor and byte rules first with the parse
    deferred (hash before parse), shows that stage, and evaluates again, with the parse, every
    rule that raised this or caught it (``Context.deferred_touched``).
    """


def json_equal(a, b) -> bool:
    """``serde_json::Value`` equality: integers and floats never equal each other."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return a == b


def _snapshot_evidence(snapshot: dict, data=None) -> tuple[dict, bytes]:
    if data is None:
        data = encode(snapshot)
    ev = {
        "schema": SNAPSHOT_EVIDENCE_SCHEMA, "encoding": ENCODING, "session_id": snapshot["session"]["id"],
        "snapshot_schema_version": snapshot["schema_version"], "size_bytes": data.nbytes if isinstance(data, memoryview) else len(data),
        "content_digest": content_digest(data),
    }
    ev["evidence_digest"] = domain_digest(SNAPSHOT_DOMAIN, snapshot_evidence_input(ev))
    return ev, data


def _logical_evidence(lr: dict, data=None) -> tuple[dict, bytes]:
    if data is None:
        data = encode(lr)
    ev = {
        "schema": LOGICAL_EVIDENCE_SCHEMA, "resume_semantics": RESUME_SEMANTICS, "session_id": lr["session_id"],
        "source_run_id": lr["run_id"], "checkpoint_schema_version": lr["schema_version"],
        "completed_tool_rounds": lr["turn"], "checkpoint_ms": lr["checkpoint_ms"],
        "size_bytes": data.nbytes if isinstance(data, memoryview) else len(data),
        "content_digest": content_digest(data),
    }
    ev["evidence_digest"] = domain_digest(LOGICAL_DOMAIN, logical_evidence_input(ev))
    return ev, data


def build_descriptor(payload: dict, content: bytes, ctx: "Context | None" = None) -> dict:
    """The descriptor the reference's ``build_descriptor`` makes for a decoded payload.

    Args:
        payload: the decoded payload (serialized form, :func:`.typed.decode`).
        content: the payload file bytes (bound by size and SHA-256 as given).

    Returns:
        the descriptor as a dict in serialized form (``logical_resume`` omitted when absent).
    """
    snap_bytes = ctx.snapshot_component if ctx is not None else None
    desc = {
        "schema": DESCRIPTOR_SCHEMA, "format": FORMAT, "media_type": MEDIA_TYPE,
        "snapshot": _snapshot_evidence(payload["snapshot"], snap_bytes)[0],
    }
    if payload.get("logical_resume") is not None:
        lr_bytes = ctx.logical_component if ctx is not None else None
        desc["logical_resume"] = _logical_evidence(payload["logical_resume"], lr_bytes)[0]
    desc["size_bytes"] = len(content)
    desc["content_digest"] = ctx.payload_digest if ctx is not None else content_digest(content)
    desc["descriptor_digest"] = domain_digest(DESCRIPTOR_DOMAIN, descriptor_digest_input(desc))
    return desc


class Context:
    """The inputs of one verification and everything derived from them.

    Args:
        payload: payload file bytes, or ``None``.
        descriptor: descriptor file bytes, or ``None``.
        payload_size: the payload's size in bytes when the file was too large to read
            (``payload`` is then ``None``); defaults to ``len(payload)``.
        payload_digest: the ``sha256:`` digest of these very payload bytes when the caller has it, or a
            callable giving it (or ``None``: then hashed here) when first needed, for a caller whose
            digest arrives while the payload is parsed (the window's verifier).
        spans: a dict for the fast paths to fill with the children of every container of 64 KiB or
            more (a front-end's tree index, :func:`.typedfast.decode_typed` ``big``); without it they
            record only the spans locations need.
        raw_text: try :func:`.typedfast.decode_typed` first; the payload's large text fields are then
            ``memoryview`` slices of the file, not ``str``.
    """

    def __init__(self, payload: bytes | None, descriptor: bytes | None, payload_size: int | None = None,
                 payload_digest: str | None = None, spans: dict | None = None, raw_text: bool = False):
        self.payload = payload
        self.descriptor = descriptor
        self.payload_size = payload_size if payload_size is not None else (len(payload) if payload is not None else None)
        #: A callable giving the payload's digest when first needed (:attr:`payload_digest`), or ``None``.
        self._digest_later = None
        if callable(payload_digest):
            self._digest_later = payload_digest
        elif payload_digest is not None and payload is not None:
            self.__dict__["payload_digest"] = payload_digest  # hashed already by the caller (same bytes)
        #: Filled by the fast path with the children of large containers (``decode_fast(spans=)``);
        #: emptied when the payload is not canonical. Locations in a canonical payload are found
        #: through it without encoding the siblings of large values.
        self.spans = spans if spans is not None else {}
        #: The caller wants the index of every large container (a front-end's trees), not only the spans
        #: locations need.
        self._index_wanted = spans is not None
        #: Try :func:`.typedfast.decode_typed` first: the payload's large text fields are then raw
        #: ``memoryview`` slices of the file (:func:`.typedfast.text_of` reads one), not ``str``.
        self.raw_text = raw_text
        #: While True, asking for the parsed payload raises :class:`Deferred` (staged verify).
        self.deferring = False
        #: Set when something asked for the parsed payload while :attr:`deferring` was on.
        self.deferred_touched = False

    # -- descriptor -----------------------------------------------------------------------
    @cached_property
    def desc_result(self) -> tuple[dict | None, SerdeError | None]:
        """``(typed descriptor, None)`` or ``(None, serde error)`` (D-PARSE); ``(None, None)`` without one."""
        if self.descriptor is None:
            return None, None
        try:
            return decode(self.descriptor, S.DESCRIPTOR), None
        except SerdeError as e:
            return None, e

    @property
    def desc(self) -> dict:
        """The typed descriptor; raises :class:`NotApplicable` without a descriptor."""
        d = self.desc_result[0]
        if d is None:
            raise NotApplicable("no descriptor")
        return d

    @cached_property
    def desc_tree(self) -> Node | None:
        """Byte-span tree of the descriptor file (``None`` if it is not JSON)."""
        return _tree(self.descriptor)

    # -- payload --------------------------------------------------------------------------
    @property
    def pay_result(self) -> tuple[dict | None, SerdeError | None]:
        """``(typed payload, None)`` or ``(None, serde error)`` (P-PARSE): the fast path when it
        provably applies, else the exact serde emulation (:func:`.read.door.read_payload`). Raises
        :class:`Deferred` while :attr:`deferring` is set and the payload is not parsed yet."""
        r = self.__dict__.get("_pay_result")
        if r is not None:
            return r
        if self.deferring and self.payload is not None:
            self.deferred_touched = True
            raise Deferred("the payload is not parsed yet")
        r = self.__dict__["_pay_result"] = self._parse_payload()
        return r

    def _parse_payload(self) -> tuple[dict | None, SerdeError | None]:
        if self.payload is None:
            return None, None
        got = read_payload(self.payload, spans=self.spans, raw_text=self.raw_text, index_wanted=self._index_wanted)
        if got.is_canonical is not None:
            self.__dict__["is_canonical"] = got.is_canonical
        if got.canonical is not None:
            self.__dict__["canonical"] = got.canonical
        return got.value, got.error

    @property
    def pay(self) -> dict:
        """The typed payload (serialized form); raises :class:`NotApplicable` without one."""
        p = self.pay_result[0]
        if p is None:
            raise NotApplicable("no payload")
        return p

    @property
    def lr(self) -> dict:
        """The payload's loop checkpoint; :class:`NotApplicable` when there is none."""
        lr = self.pay.get("logical_resume")
        if lr is None:
            raise NotApplicable("the payload has no loop checkpoint (logical_resume)")
        return lr

    @cached_property
    def pay_tree(self) -> Node | None:
        """Byte-span tree of the payload file (``None`` if it is not JSON). Costly: ~60x the file."""
        return _tree(self.payload)

    @cached_property
    def canonical(self) -> bytes:
        """The reference's canonical re-encoding of the decoded payload."""
        return encode(self.pay)

    @cached_property
    def is_canonical(self) -> bool:
        """True when the payload bytes are exactly their canonical re-encoding (P-CANONICAL)."""
        return self.canonical == self.payload

    @cached_property
    def payload_digest(self) -> str:
        """``content_digest`` of the payload bytes (computed once; the caller's, when it gave one)."""
        later, self._digest_later = self._digest_later, None
        if later is not None and self.payload is not None:
            digest = later()
            if digest is not None:
                return digest
        return content_digest(self.payload)

    @cached_property
    def expected_descriptor(self) -> dict:
        """The descriptor rebuilt from the payload (:func:`build_descriptor`)."""
        return build_descriptor(self.pay, self.payload, self)

    @cached_property
    def _component_spans(self) -> dict:
        """``{top-level key: (start, end)}`` byte spans of the payload's top-level values in
        :attr:`canonical` (the payload bytes themselves when canonical; FORMAT.md 3.2, 7.3).

        Every component is encoded at most once per verify: each value but the last is encoded
        once to step over it (keys in canonical order), the last ends before the closing brace."""
        data, pay = self.canonical, self.pay
        keys = sorted(pay)
        pos, out = 1, {}
        for i, k in enumerate(keys):
            pos += len(encode(k)) + 1
            end = len(data) - 1 if i == len(keys) - 1 else pos + len(encode(pay[k]))
            out[k] = (pos, end)
            pos = end + 1
        return out

    @cached_property
    def snapshot_component(self) -> memoryview:
        """Canonical bytes of the snapshot component: a zero-copy slice of :attr:`canonical` (the
        component appears verbatim inside the canonical payload, FORMAT.md 7.3)."""
        start, end = self._component_spans["snapshot"]
        return memoryview(self.canonical)[start:end]

    @cached_property
    def logical_component(self) -> memoryview | None:
        """Canonical bytes of the loop checkpoint component (a zero-copy slice of
        :attr:`canonical`), ``None`` without one (FORMAT.md 3.2)."""
        if self.pay.get("logical_resume") is None:
            return None
        start, end = self._component_spans["logical_resume"]
        return memoryview(self.canonical)[start:end]

    # -- locations ------------------------------------------------------------------------
    def span(self, source: str, pointer: str) -> tuple[int, int] | None:
        """Byte span of ``pointer`` in the payload or descriptor file, ``None`` if absent: in a canonical payload
        through :attr:`_walk` (the span index the reader filled, then the bytes), else from the exact parser's span
        tree (not built for a non-canonical payload over 32 MiB: it costs ~60x the file)."""
        if source == "descriptor":
            tree = self.desc_tree
        else:
            walk = self._walk
            if walk is not None:
                return walk.span(pointer)
            if self.payload is not None and len(self.payload) > _SPAN_TREE_LIMIT:
                return None
            tree = self.pay_tree
        if tree is None:
            return None
        node = tree.find(pointer)
        return None if node is None else (node.start, node.end)

    def item_spans(self, pointer: str, items: list):
        """Byte spans of every element of the payload array at ``pointer`` (whose decoded value is
        ``items``) as two ``array('q')`` (starts, ends), or ``None`` when spans are unavailable
        (a non-canonical payload over 32 MiB). One pass over the array's bytes in a canonical payload (none when
        the reader recorded its elements), remembered by :attr:`_walk` for the spans below it; else read from the
        span tree."""
        walk = self._walk
        if walk is not None:
            whole = walk.span(pointer)
            if whole is None or self.payload[whole[0]] != 0x5B:
                return None
            ch = walk.children(*whole)
            return (ch.starts, ch.ends) if len(ch) == len(items) else None
        if self.payload is None or len(self.payload) > _SPAN_TREE_LIMIT or self.pay_tree is None:
            return None
        node = self.pay_tree.find(pointer)
        if node is None or node.kind != "array" or len(node.children) != len(items):
            return None
        starts, ends = array("q"), array("q")
        for _i, _k, child in node.children:
            starts.append(child.start)
            ends.append(child.end)
        return starts, ends

    @cached_property
    def _walk(self) -> SpanWalk | None:
        """The :class:`~.jsontext.lazyjson.SpanWalk` of a canonical payload (FORMAT.md 6.2) over the children its
        reader recorded (:attr:`spans`), the rest read from the bytes once each; ``None`` when the payload is
        absent, not read as a payload, or not canonical."""
        if self.payload is None or self.pay_result[0] is None or not self.is_canonical:
            return None
        return SpanWalk(self.payload, SpanIndex.from_records(self.spans, None) if self.spans else None,
                        canonical=True)


_SPAN_TREE_LIMIT = 32 << 20


def _tree(data: bytes | None) -> Node | None:
    if data is None:
        return None
    try:
        return parse_value(data, nodes=True)[1]
    except SerdeError:
        return None
