"""Lazily computed facts about one payload/descriptor pair, shared by all checks.

Data flows one way: bytes -> typed values and span trees -> rule verdicts. Everything here is
computed at most once and only when a check asks for it.
"""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import unescape as unescape_token

from array import array
from bisect import bisect_left
from functools import cached_property

import orjson

from inspector.checkpoint.constants import (
    DESCRIPTOR_SCHEMA, ENCODING, FORMAT, LOGICAL_EVIDENCE_SCHEMA, MEDIA_TYPE, RESUME_SEMANTICS, SNAPSHOT_EVIDENCE_SCHEMA,
)
from inspector.checkpoint.digest import (
    DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, SNAPSHOT_DOMAIN, content_digest, descriptor_digest_input, domain_digest,
    logical_evidence_input, snapshot_evidence_input,
)
from inspector.checkpoint.jsontext.canonical import encode
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
        """Byte span of ``pointer`` in the payload or descriptor file, ``None`` if absent."""
        if source == "descriptor":
            tree = self.desc_tree
        else:
            if self.payload is not None and self.pay_result[0] is not None and self.is_canonical:
                return self._canonical_span(pointer)
            if self.payload is not None and len(self.payload) > _SPAN_TREE_LIMIT:
                return None  # a span tree of a large non-canonical file costs ~60x its size
            tree = self.pay_tree
        if tree is None:
            return None
        node = tree.find(pointer)
        return None if node is None else (node.start, node.end)


    def item_spans(self, pointer: str, items: list):
        """Byte spans of every element of the payload array at ``pointer`` (whose decoded value is
        ``items``) as two ``array('q')`` (starts, ends), or ``None`` when spans are unavailable
        (a non-canonical payload over 32 MiB). One pass: each element is encoded once when the
        payload is canonical (and remembered, so later spans below it cost only that element; none
        when the fast path recorded this array's element spans), else read from the span tree."""
        cached = self._items.get(pointer)
        if cached is not None:
            return cached[0], cached[1]
        starts, ends = array("q"), array("q")
        if self.payload is not None and self.pay_result[0] is not None and self.is_canonical:
            whole = self._canonical_span(pointer, start_only=True)
            if whole is None:
                return None
            rec = self.spans.get(whole[0])  # a large array: the fast path recorded its elements' spans
            if rec is not None and rec[0] == "array" and len(rec[2]) == len(items):
                self._items[pointer] = (rec[2], rec[3], items)
                return rec[2], rec[3]
            if whole[1] is None:
                whole = self._canonical_span(pointer)
            starts, ends = self._element_spans(whole[0], whole[1], items)
            self._items[pointer] = (starts, ends, items)
            return starts, ends
        if self.payload is None or len(self.payload) > _SPAN_TREE_LIMIT or self.pay_tree is None:
            return None
        node = self.pay_tree.find(pointer)
        if node is None or node.kind != "array" or len(node.children) != len(items):
            return None
        for _i, _k, child in node.children:
            starts.append(child.start)
            ends.append(child.end)
        return starts, ends

    @cached_property
    def _items(self) -> dict:
        """``{array pointer: (starts, ends, items)}`` remembered by :meth:`item_spans` (canonical only)."""
        return {}

    def _canonical_span(self, pointer: str, start_only: bool = False):
        """:func:`_canonical_span` of the payload: through the fast path's spans of its large
        containers while the pointer runs through them, else starting from the deepest array whose
        element spans :meth:`item_spans` already knows."""
        if self.spans:
            return self._indexed_span(pointer, start_only)
        self._index_arrays(pointer)
        cut = len(pointer)
        while cut > 0:
            cut = pointer.rfind("/", 0, cut)
            if cut <= 0:
                break
            base = pointer[:cut]
            hit = self._items.get(base)
            if hit is not None:
                tok, _, rest = pointer[cut + 1:].partition("/")
                if not tok.isdigit() or int(tok) >= len(hit[2]):
                    return None
                i = int(tok)
                rel = _canonical_span(hit[2][i], "/" + rest if rest else "", hit[1][i] - hit[0][i])
                return None if rel is None else (hit[0][i] + rel[0], hit[0][i] + rel[1])
        return _canonical_span(self.pay, pointer, len(self.payload), start_only)


    def _array_record(self, pointer: str, items: list, start: int, end: int) -> tuple:
        """A :attr:`spans` record of the array ``items`` at ``pointer`` (``start``..``end`` in the canonical
        payload) whose element spans the fast path did not record: each element encoded once, remembered
        with :meth:`item_spans`'s."""
        hit = self._items.get(pointer)
        if hit is None:
            hit = self._items[pointer] = (*self._element_spans(start, end, items), items)
        return ("array", end, hit[0], hit[1], None, None)

    def _element_spans(self, start: int, end: int | None, items: list) -> tuple[array, array]:
        """``(starts, ends)`` of the elements of the array ``items`` printed canonically at ``start`` in the
        canonical payload (``end``: its end, when known): from msgspec's raw slices of the array's bytes
        (a C-speed skip over them: the elements of canonical JSON are separated by single commas) when
        there are many elements or the array is at least ``_RAW_STEP_BYTES`` long (a few elements that
        hold a million events are not encoded again just to be measured), or, without ``end``, from each
        element's encoded length."""
        starts, ends = array("q"), array("q")
        pos = start + 1
        if end is not None and (len(items) > 16 or end - start >= _RAW_STEP_BYTES):
            import msgspec

            try:
                lengths = [len(r) for r in msgspec.json.decode(memoryview(self.canonical)[start:end],
                                                               type=list[msgspec.Raw])]
            except msgspec.DecodeError:  # pragma: no cover - the span is of a canonical array
                lengths = None
            if lengths is not None and len(lengths) == len(items):
                from itertools import accumulate
                from operator import add

                starts = array("q", accumulate([n + 1 for n in lengths[:-1]], initial=pos))
                return starts, array("q", map(add, starts, lengths))
        for item in items:
            n = len(encode(item))
            starts.append(pos)
            ends.append(pos + n)
            pos += n + 1
        return starts, ends

    def _index_arrays(self, pointer: str) -> None:
        """Remember the element spans (:meth:`item_spans`) of every array of more than 16 elements that
        ``pointer`` runs through, outermost first: later spans below such an array cost only their own
        element (200 lint locations in one run's events no longer encode the events before each)."""
        node, prefix = self.pay, ""
        tokens = pointer.split("/")[1:] if pointer not in ("", "/") else []
        for raw in tokens[:-1]:
            if type(node) is list:
                if len(node) > 16 and prefix not in self._items:
                    if self.item_spans(prefix, node) is None:
                        return
                if not (raw.isascii() and raw.isdigit()) or int(raw) >= len(node):
                    return
                node = node[int(raw)]
            elif type(node) is dict:
                node = node.get(unescape_token(raw))
            else:
                return
            prefix += "/" + raw

    def _indexed_span(self, pointer: str, start_only: bool):
        """Span of ``pointer`` in the canonical payload from :attr:`spans` (child spans of the containers the
        fast path recorded, keys in sorted order); an array of more than 16 elements, or of at least
        ``_RAW_STEP_BYTES`` whose end is known, that it did not record gets its element spans once
        (:meth:`_array_record`: a run record after the one holding a million events is not found by
        encoding those events); other containers are stepped through by arithmetic
        (:func:`_step`)."""
        spans = self.spans
        pos, end = 0, len(self.payload)
        node = self.pay
        tokens = pointer.split("/")[1:] if pointer not in ("", "/") else []
        for i, raw in enumerate(tokens):
            rec = spans.get(pos)
            if rec is None and type(node) is list and (len(node) > 16 or end is not None and end - pos >= _RAW_STEP_BYTES):
                rec = self._array_record("/" + "/".join(tokens[:i]) if i else "", node, pos, end)
            token = unescape_token(raw)
            if rec is None:
                stepped = self._raw_step(node, token, pos, end) if type(node) is dict and end is not None \
                    and end - pos >= _RAW_STEP_BYTES else _step(node, token, pos, end)
                if stepped is None:
                    return None
                node, pos, end = stepped
                continue
            kind, _e, starts, ends, _ks, keys = rec
            if kind == "object":
                j = bisect_left(keys, token)
                if type(node) is not dict or j >= len(keys) or keys[j] != token:
                    return None
                node = node[token]
            else:
                if not (token.isascii() and token.isdigit()) or int(token) >= len(starts) or type(node) is not list:
                    return None
                j = int(token)
                node = node[j]
            pos, end = starts[j], ends[j]
        if end is None and not start_only:
            end = pos + len(encode(node))
        return pos, end


    def _raw_step(self, node: dict, token: str, start: int, end: int):
        """:func:`_step` into member ``token`` of the object ``node`` printed canonically at ``start``..``end``
        of the canonical payload, with the member's end known too: the members' lengths come from msgspec's
        raw slices of the object's bytes (a C-speed skip) instead of encoding the members before it and the
        member itself (a run record's ``events``: :meth:`item_spans` then needs no encoding of the events)."""
        import msgspec

        if token not in node:
            return None
        try:
            raws = msgspec.json.decode(memoryview(self.canonical)[start:end], type=dict[str, msgspec.Raw])
        except msgspec.DecodeError:  # pragma: no cover - the span is of a canonical object
            return _step(node, token, start, end)
        pos = start + 1
        for k in sorted(node):
            pos += len(orjson.dumps(k)) + 1
            if k == token:
                return node[token], pos, pos + len(raws[token])
            pos += len(raws[k]) + 1
        return None  # pragma: no cover - token is a member


#: Objects of at least this many bytes are stepped through by :meth:`Context._raw_step`, and arrays
#: of at least this many bytes measured by msgspec's skip in :meth:`Context._element_spans`.
_RAW_STEP_BYTES = 4096

_SPAN_TREE_LIMIT = 32 << 20


def _tree(data: bytes | None) -> Node | None:
    if data is None:
        return None
    try:
        return parse_value(data, nodes=True)[1]
    except SerdeError:
        return None


def _canonical_span(value, pointer: str, total: int | None = None, start_only: bool = False) -> tuple[int, int] | None:
    """Span of ``pointer`` in a file that is exactly ``encode(value)``, by arithmetic.

    Every value's encoded length is ``len(encode(value))``, so the span is found without
    building a span tree (fast for large canonical payloads). ``total``: the file's length when
    known; the last member of a container then ends just before its closing bracket, so the
    largest value (the snapshot) is never encoded only to be measured. ``start_only``: the end
    is not needed (``None`` unless known without encoding).
    """
    start = 0
    node = value
    end = total
    if pointer in ("", "/"):
        return 0, (len(encode(value)) if total is None else total)
    for raw in pointer.lstrip("/").split("/"):
        stepped = _step(node, unescape_token(raw), start, end)
        if stepped is None:
            return None
        node, start, end = stepped
    if end is None and not start_only:
        end = start + len(encode(node))
    return start, end


def _step(node, token: str, start: int, end: int | None):
    """One level of :func:`_canonical_span`: ``(child, child start, child end or None)`` of member ``token``
    (unescaped) of the container ``node`` printed canonically at ``start`` (``end``: its end when known;
    the last member then ends just before the closing bracket), or ``None`` when there is no such member."""
    pos = start + 1
    if isinstance(node, dict):
        if token not in node:
            return None
        keys = sorted(node)
        for k in keys:
            pos += len(orjson.dumps(k)) + 1
            if k == token:
                break
            pos += len(encode(node[k])) + 1
        last = k == keys[-1]
        node = node[token]
    elif isinstance(node, list):
        if not token.isdigit() or int(token) >= len(node):
            return None
        for item in node[: int(token)]:
            pos += len(encode(item)) + 1
        last = int(token) == len(node) - 1
        node = node[int(token)]
    else:
        return None
    return node, pos, (end - 1 if (last and end is not None) else None)
