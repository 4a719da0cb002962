"""Reading checkpoint files safely and telling payloads from descriptors by content.

Reading never modifies a file and never blocks on one (:mod:`.safeopen`), refuses folders, FIFOs,
devices and unreadable paths with a clear :class:`UnreadableInput`, and never reads a file over the 256 MiB ceiling whole: its size
alone decides P-BOUND (FORMAT.md 6.2).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, replace

from inspector.checkpoint.constants import DESCRIPTOR_SCHEMA, MAX_CONTENT_BYTES, PAYLOAD_SCHEMA
from inspector.checkpoint.diagnostic import InspectorError
from inspector.checkpoint.safeopen import NotAFile, open_regular, read_fd
from inspector.checkpoint.sdk_export import (FORM, WRAPPER_MAX_BYTES, ExportError, is_export, looks_like_export,
                                             may_be_export, unwrap)

__all__ = ["InputFile", "UnreadableInput", "read_input", "classify", "detect_role", "file_role", "pair_inputs",
           "PairingError",
           "expand_exports",
           "display_path", "display_text", "escaped_char", "file_uri", "not_a_checkpoint", "what_it_is"]

_DESCRIPTOR_MARKERS = (b'"descriptor_digest"', b"a3s.code.session-checkpoint-descriptor", b'"media_type"')
_PAYLOAD_MARKERS = (b"a3s.code.session-checkpoint-payload", b'"snapshot":', b'"snapshot" :', b'"run_records"')
#: Descriptors are small; anything larger is taken for a payload.
_DESCRIPTOR_MAX = 1 << 20


def escaped_char(ch: str) -> str:
    """The escape that shows one character ``ch`` that would not show as itself: a byte that was not valid
    UTF-8 in a file name (a ``surrogateescape`` code point U+DC80..U+DCFF, as Python gives such names on POSIX)
    becomes ``\\xNN`` with the original byte (so ``\\x80``..``\\xff`` always mean a raw byte); ``\\t``,
    ``\\n``, ``\\r`` stay short; other ASCII controls become ``\\xNN``, all other characters ``\\uNNNN`` or
    ``\\UNNNNNNNN``. The one escaping form of the CLI (:func:`display_text`) and the window
    (:func:`inspector.session.visible.visible`)."""
    o = ord(ch)
    if 0xDC80 <= o <= 0xDCFF and os.name != "nt":
        return "\\x%02x" % (o - 0xDC00)
    if ch in "\t\n\r":
        return {"\t": "\\t", "\n": "\\n", "\r": "\\r"}[ch]
    if o < 0x80:
        return "\\x%02x" % o
    if o < 0x10000:
        return "\\u%04x" % o
    return "\\U%08x" % o


def display_text(text: str) -> str:
    """``text`` with every character that would not show visibly replaced by its :func:`escaped_char`.

    Escaped: characters ``str.isprintable`` rejects (controls, U+2028/U+2029, format characters
    such as bidi overrides and U+FEFF, separators other than the ASCII space, lone surrogates).
    Printable text is returned unchanged (so a backslash already in the text is not doubled).
    The result is always encodable as UTF-8. Shared by the CLI and the window.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else escaped_char(ch) for ch in text)


def display_path(path: "str | bytes | os.PathLike") -> str:
    """A file path as text for people: any bytes the OS allows, shown with visible escapes.

    ``str`` paths (from ``sys.argv``, ``os.listdir``: undecodable bytes kept as surrogates),
    ``bytes`` paths and path objects are accepted; see :func:`display_text` for the escapes,
    e.g. ``b"caf\\xe9.json"`` (Latin-1) is shown as ``caf\\xe9.json``. Use it wherever a path is
    printed, stored as text or put in a report; :func:`file_uri` is the exact, reversible form.
    """
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    return display_text(path)


def file_uri(path: "str | bytes | os.PathLike") -> str:
    """The absolute ``file:`` URI of ``path``, percent-encoding its exact bytes (RFC 8089): ASCII,
    valid in any JSON/SARIF report, and reversible even for names that are not UTF-8."""
    from pathlib import Path

    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    return Path(os.path.abspath(path)).as_uri()


class UnreadableInput(InspectorError):
    """A path that cannot be used as input (missing, a directory, permission denied).

    ``args[0]`` is a sentence for the user (the path shown by :func:`display_path`); ``path``
    the offending path as given.
    """

    def __init__(self, message: str, path: str):
        super().__init__(message)
        self.path = path


class PairingError(InspectorError):
    """The given files do not make one payload/descriptor pair (e.g. two payloads)."""


@dataclass
class InputFile:
    """One input file.

    Attributes:
        path: as given (show it with :func:`display_path`). size: bytes on disk. data: the bytes, or ``None`` when ``size``
        exceeds the 256 MiB ceiling (not read). role: ``payload``/``descriptor``/``unknown``.
        hint: a sentence on what looks wrong with the file before any rule runs (gzip, BOM...).
        mtime_ns: modification time when read, to notice later changes.
        doubt: ``None`` when the content decides the role, else why it does not (:func:`detect_role`).
        role_note: set by :func:`pair_inputs` when ``role`` was not decided by this file's own
            content: a sentence saying how it was chosen (shown to the user), else ``None``.
        form: ``None`` for a file that is the payload or descriptor itself; :data:`.sdk_export.FORM` when
            it was taken out of an SDK export wrapper (``path`` is then the wrapper's; ``data`` and
            ``size`` are the decoded payload's, or the descriptor object's bytes).
    """

    path: str
    size: int
    data: bytes | None
    role: str
    hint: str | None = None
    mtime_ns: int = 0
    doubt: str | None = None
    role_note: str | None = None
    form: str | None = None

    @property
    def oversize(self) -> bool:
        """True when ``size`` (bytes) exceeds ``MAX_CONTENT_BYTES``, the reference's 256 MiB payload
        ceiling (FORMAT.md P-BOUND): the bytes are then not read, and P-BOUND fails from the size."""
        return self.size > MAX_CONTENT_BYTES

    def sha256(self) -> str | None:
        """``sha256:`` digest of the bytes, ``None`` when not read."""
        return None if self.data is None else "sha256:" + hashlib.sha256(self.data).hexdigest()


def read_input(path: str, *, ceiling: int = MAX_CONTENT_BYTES) -> InputFile:
    """Read one input file read-only, never blocking on it.

    The path is opened through :func:`.safeopen.open_regular` (``O_NONBLOCK``, checked on the opened
    descriptor), so a FIFO, a device or a socket is refused without a read and a file swapped for one
    while it is opened cannot block; the size and modification time are the opened file's.

    Args:
        path: file path.
        ceiling: files larger than this many bytes are not read (size only; FORMAT.md 6.2, P-BOUND).

    Returns:
        an :class:`InputFile` with its role detected from content.

    Raises:
        UnreadableInput: the path is missing, a folder (``"<path>: is a folder, not a checkpoint file"``),
            not a regular file (``"<path>: is a FIFO (named pipe), not a file"``, ``"... is a device, not a
            file"``, ``"... is a socket, not a file"``: these have no size to check before reading, and a FIFO
            would wait for a writer), or cannot be opened or read (``"<path>: cannot read (<why>)"``).
    """
    try:
        fd, st = open_regular(path)
    except NotAFile as e:
        why = "is a folder, not a checkpoint file" if e.kind == "folder" else e.reason
        raise UnreadableInput(f"{display_path(path)}: {why}", path) from None
    except FileNotFoundError:
        raise UnreadableInput(f"{display_path(path)}: no such file", path) from None
    except OSError as e:
        raise UnreadableInput(f"{display_path(path)}: cannot read ({e.strerror or e})", path) from None
    except ValueError:  # a NUL in the name
        raise UnreadableInput(f"{display_path(path)}: cannot read (the name holds a NUL character)", path) from None
    try:
        if st.st_size > ceiling:
            if ceiling != MAX_CONTENT_BYTES or st.st_size > WRAPPER_MAX_BYTES or not _export_head(fd):
                return _oversize(path, st.st_size, ceiling, st.st_mtime_ns)
            ceiling = WRAPPER_MAX_BYTES  # an SDK export wrapper: the ceiling applies to the content it decodes to
        data = read_fd(fd, ceiling + 1, st.st_size)  # never more than the ceiling, even if the file grew
        if len(data) > ceiling:
            return _oversize(path, max(len(data), os.fstat(fd).st_size), ceiling, st.st_mtime_ns)
    except OSError as e:
        raise UnreadableInput(f"{display_path(path)}: cannot read ({e.strerror or e})", path) from None
    finally:
        os.close(fd)
    role, hint, doubt = detect_role(data)
    return InputFile(path, len(data), data, role, hint, st.st_mtime_ns, doubt)


def _export_head(fd: int) -> bool:
    """True when the open file's first 256 bytes start an SDK export wrapper (read from its start; the
    position is put back to the start)."""
    try:
        head = read_fd(fd, 256)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        return False
    return looks_like_export(head)


def expand_exports(files: list[InputFile]) -> list[InputFile]:
    """``files`` with each SDK export wrapper replaced by the payload and the descriptor it holds (in that
    order; both with the wrapper's ``path`` and ``form`` set, FORMAT.md 1).

    Raises:
        UnreadableInput: a wrapper whose content cannot be taken out (bad base64...), with the reason.
    """
    out: list[InputFile] = []
    for f in files:
        try:
            pair = unwrap(f.data[:]) if f.data is not None and may_be_export(f.data) else None
        except ExportError as e:
            raise UnreadableInput(f"{display_path(f.path)}: {e}", f.path) from None
        if pair is None:
            out.append(f)
            continue
        if pair.payload is None:
            payload = InputFile(f.path, pair.payload_size, None, "payload",
                                f"its content decodes to {pair.payload_size} bytes, over the {MAX_CONTENT_BYTES}-byte "
                                "v1 ceiling; not decoded", f.mtime_ns, form=FORM)
        else:
            payload = InputFile(f.path, pair.payload_size, pair.payload, "payload", detect_role(pair.payload)[1],
                                f.mtime_ns, form=FORM)
        out += [payload, InputFile(f.path, len(pair.descriptor), pair.descriptor, "descriptor",
                                   detect_role(pair.descriptor)[1], f.mtime_ns, form=FORM)]
    return out


def _oversize(path: str, size: int, ceiling: int, mtime_ns: int) -> InputFile:
    return InputFile(path, size, None, "payload", f"{size} bytes is over the {ceiling}-byte v1 ceiling; not read", mtime_ns)


def classify(data: bytes) -> tuple[str, str | None]:
    """Tell a payload from a descriptor by content (never by file name).

    Returns:
        ``(role, hint)``: role is ``payload``, ``descriptor`` or ``unknown``; hint a sentence
        about an obvious problem (gzip, BOM, empty, not UTF-8), else ``None``.
        :func:`detect_role` also says how sure the guess is.
    """
    role, hint, _ = detect_role(data)
    return role, hint


def detect_role(data: bytes) -> tuple[str, str | None, str | None]:
    """Role of one input from its content, with the reason when the content does not decide.

    An SDK export wrapper (FORMAT.md 1) is taken as a payload: :func:`pair_inputs` takes the pair out of it.
    Decisive: the top-level ``schema`` is the payload or descriptor schema (FORMAT.md 2) and no
    top-level key says otherwise; or, without a known schema, two or more descriptor-only keys
    (descriptor) or a ``snapshot`` and no descriptor-only key (payload); or over 1 MiB (payload).
    Everything else (conflicting keys, text that is not complete JSON) is a guess.

    Returns:
        ``(role, hint, doubt)``: role and hint as :func:`classify`; ``doubt`` is ``None`` when
        the content decides, else a phrase saying why it does not (e.g. ``"it has a top-level
        `format` key, like a descriptor"``), for :func:`pair_inputs` and the user.
    """
    hint = None
    if not data:
        return "unknown", "the file is empty", "it is empty"
    if data[:2] == b"\x1f\x8b":
        return "unknown", "the file is gzip-compressed; decompress it first (gunzip) and open the result", \
            "it is gzip-compressed"
    if data[:3] == b"\xef\xbb\xbf":
        hint = "the file starts with a UTF-8 byte order mark, which the reference rejects"
    elif looks_like_export(data[:256]):  # an SDK export wrapper: the payload and its descriptor (FORMAT.md 1);
        # given alone it is unwrapped (pair_inputs); beside another file it is a guess, so that the two
        # files take the roles the reference's import gives them and get its verdict
        return "payload", None, "it is an SDK export wrapper, not a payload or a descriptor"

    if len(data) > _DESCRIPTOR_MAX:
        return "payload", hint, None  # descriptors are small
    role, doubt = _role_from_keys(data)
    if role is None:
        head = data[: 1 << 16]
        # a descriptor's text also has payload markers ("snapshot"), so descriptor markers win
        if any(m in head for m in _DESCRIPTOR_MARKERS[:2]):
            role, doubt = "descriptor", "it is not complete JSON and only text inside it mentions a descriptor"
        elif any(m in head for m in _PAYLOAD_MARKERS):
            role, doubt = "payload", "it is not complete JSON and only text inside it mentions a payload"
    if role is None:
        return "unknown", hint or "neither a checkpoint payload nor a descriptor was recognised", \
            doubt or "neither a payload nor a descriptor was recognised"
    return role, hint, doubt


def file_role(data: bytes) -> tuple[str, str | None]:
    """The role of one file among many (a folder, a bucket, a file opened beside others) from its whole content:
    the one place the folder scan, the audit and the pairing of a file opened alone decide it.

    Returns:
        ``(role, hint)``: ``"export"`` (an SDK export wrapper, FORMAT.md 1: it holds a pair of its own, whatever
        its first member and however large that member is; :func:`.sdk_export.is_export`) with hint ``None``,
        else :func:`classify`'s ``payload``, ``descriptor`` or ``unknown`` with its hint.
    """
    if is_export(data):
        return "export", None
    return classify(data)


_DESCRIPTOR_ONLY_KEYS = {"descriptor_digest", "media_type", "format", "content_digest", "size_bytes"}
_SCHEMA_ROLE = {PAYLOAD_SCHEMA.encode(): "payload", DESCRIPTOR_SCHEMA.encode(): "descriptor"}


def _role_from_keys(data: bytes) -> tuple[str | None, str | None]:
    """``(role, doubt)`` from the top-level ``schema`` and keys (text inside messages can mention
    anything); ``(None, None)`` when ``data`` is not one JSON object."""
    import orjson

    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        m = _FIRST_KEY.match(data)
        if m is not None and m.group(1) == b"schema" and m.group(2) in _SCHEMA_ROLE:
            role = _SCHEMA_ROLE[m.group(2)]
            return role, f"it is not complete JSON; it starts with the {role} schema"
        if m is not None and m.group(1).decode("ascii") in _DESCRIPTOR_ONLY_KEYS:
            return "descriptor", f"it is not complete JSON; it starts with a `{m.group(1).decode()}` key, like a descriptor"
        return None, None
    if "contentBase64" in value and "descriptor" in value:  # an SDK export wrapper: a payload and its descriptor
        return "payload", None
    schema = value.get("schema")
    schema_role = _SCHEMA_ROLE.get(schema.encode("utf-8", "replace")) if isinstance(schema, str) else None
    desc_keys = sorted(_DESCRIPTOR_ONLY_KEYS & value.keys())
    if schema_role == "payload":
        if not desc_keys:
            return "payload", None
        return "payload", f"its schema is the payload schema but it has a top-level {_keys(desc_keys)}, like a descriptor"
    if schema_role == "descriptor":
        if desc_keys:
            return "descriptor", None
        return "descriptor", "its schema is the descriptor schema but it has none of a descriptor's own keys"
    if len(desc_keys) >= 2:
        return "descriptor", None
    if desc_keys:
        return "descriptor", f"it has a top-level {_keys(desc_keys)}, like a descriptor, and no known schema"
    if "snapshot" in value:
        return "payload", None
    return None, None


def _keys(keys: list[str]) -> str:
    return " and ".join(f"`{k}`" for k in keys) + (" key" if len(keys) == 1 else " keys")


_FIRST_KEY = re.compile(rb'(?:\xef\xbb\xbf)?[ \t\r\n]*\{[ \t\r\n]*"([a-z_]+)"(?:[ \t\r\n]*:[ \t\r\n]*"([a-z0-9.-]{1,64})")?')


_OTHER_ROLE = {"payload": "descriptor", "descriptor": "payload"}


def _rank(f: InputFile) -> int:
    """2: the content decides the role; 1: a guess from the content; 0: not recognised."""
    return 0 if f.role == "unknown" else (1 if f.doubt else 2)


def pair_inputs(files: list[InputFile]) -> tuple[InputFile | None, InputFile | None]:
    """Pick ``(payload, descriptor)`` from one or two files, by content; by the order given when
    the content cannot decide.

    Two files whose roles differ are taken as they are. Otherwise the file whose content says
    more (:func:`detect_role`: decided, then guessed, then not recognised) keeps its role and the
    other takes the free one; when neither says more, the first file is the payload and the second
    the descriptor, as the reference's import (``validate_and_decode(payload, descriptor)``) takes
    them. A file whose role was not its own content's is returned as a copy with ``role`` set and
    ``role_note`` saying why (shown to the user). A single unrecognised file is taken as the payload.

    An SDK export wrapper (FORMAT.md 1) given alone is replaced by the pair it holds
    (:func:`expand_exports`); given beside another file it is one of the two files, in the role the
    reference's import gives it (so it gets P-PARSE or D-PARSE, as the reference says).

    Raises:
        PairingError: more than two files, or two files that are both clearly payloads (or both
            clearly descriptors).
        UnreadableInput: an SDK export wrapper whose content cannot be taken out.
    """
    if len(files) == 1:
        files = expand_exports(files)
    if len(files) > 2:
        raise PairingError("give at most one payload and one descriptor")
    if len(files) < 2:
        f = files[0] if files else None
        if f is not None and f.role == "descriptor":
            return None, f
        return f, None
    a, b = files
    if {a.role, b.role} == {"payload", "descriptor"}:
        return (a, b) if a.role == "payload" else (b, a)
    ra, rb = _rank(a), _rank(b)
    if ra == rb == 2:
        raise PairingError(f"both files are {a.role}s; give one payload and its descriptor")
    if ra != rb:
        keep, other = (a, b) if ra > rb else (b, a)
        role = _OTHER_ROLE[keep.role]
        how = "is" if _rank(keep) == 2 else "looks more like"
        other = replace(other, role=role, role_note=(
            f"taken as the {role}, because {display_path(os.path.basename(keep.path))} {how} the {keep.role}; "
            f"its own content does not decide ({other.doubt})"))
        return (keep, other) if keep.role == "payload" else (other, keep)
    first, second = (replace(f, role=role, role_note=(
        f"taken as the {role}, because it was given {nth} (the reference's import takes the payload, then the "
        f"descriptor): the content of neither file decides ({f.doubt})"))
        for f, role, nth in ((a, "payload", "first"), (b, "descriptor", "second")))
    return first, second


def not_a_checkpoint(files: list[InputFile]) -> str | None:
    """Say so when none of the given files is a checkpoint file at all.

    A file that is neither a payload nor a descriptor (a ``package.json``, an empty file, a
    binary, a gzip archive) is not a *failed* checkpoint: it gets this sentence instead of
    P-PARSE. A damaged checkpoint file (truncated, edited) is still recognised by its content and
    gets its rule, as does a file whose role is undecidable but which holds words only checkpoint
    files hold (``"snapshot"``, ``"descriptor_digest"``...), and an unrecognised file given beside
    a recognised one (it takes the free role, :func:`pair_inputs`).

    Args:
        files: the input files, as read by :func:`read_input`.

    Returns:
        ``None`` when at least one file is a payload or descriptor; otherwise one line per file,
        ``"<name>: this is not a checkpoint file (<why>)"``, joined by newlines.
    """
    if not files or any(f.role != "unknown" or _names_checkpoint(f.data) for f in files):
        return None
    return "\n".join(f"{display_path(os.path.basename(os.fspath(f.path)) or f.path)}: this is not a checkpoint file "
                     f"({what_it_is(f)})" for f in files)


#: Words only checkpoint files hold: a file whose role is undecidable but which holds one of them is
#: a damaged checkpoint (truncated, edited), not "not a checkpoint".
_CHECKPOINT_WORDS = (b'"logical_resume"', b'"snapshot"', b'"run_records"', b'"descriptor_digest"', b'"content_digest"',
                     b'"evidence_digest"', b'"session_id"', b"a3s.code.session-checkpoint")


def _names_checkpoint(data: bytes | None) -> bool:
    head = (data or b"")[: 1 << 16]
    return any(w in head for w in _CHECKPOINT_WORDS)


def what_it_is(f: InputFile) -> str:
    """A few words on what an unrecognised file is (``"the file is empty"``, ``"binary data, not
    text"``, ``"a JSON object, but not a checkpoint payload or descriptor"``...). Never quotes the
    file's content."""
    import orjson

    data = f.data
    if data is None or not data or data[:2] == b"\x1f\x8b":
        return f.hint or "not read"
    head = data[:4096]
    if b"\x00" in head:
        return "binary data, not text"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 3:  # not just a character cut at the 4 KiB boundary
            return "binary data or text that is not UTF-8"
    try:
        value = orjson.loads(data[3:] if data[:3] == b"\xef\xbb\xbf" else data)
    except orjson.JSONDecodeError:
        return "text that is not JSON" if data.lstrip()[:1] not in (b"{", b"[") else \
            "not valid JSON, and nothing in it names a checkpoint payload or descriptor"
    kind = {dict: "a JSON object", list: "a JSON array", str: "a JSON string"}.get(type(value), "a single JSON value")
    return f"{kind}, but not a checkpoint payload or descriptor"
