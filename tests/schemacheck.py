"""Every JSON output the suite's in-process command runs write is validated against its JSON Schema
(inspector/jsonschemas): standard output (``inspector.cli.common.out``) and new files
(``inspector.session.writing.write_new_file``, the audit's RESULTS and summary among them). A document or a JSON
Lines record whose ``schema`` member names one of ours and does not match it fails the test that wrote it
(tests/conftest.py). Outputs of commands the tests run in a subprocess are not seen here; tests/test_json_schemas.py
runs each command's JSON on the fixtures itself."""

from __future__ import annotations

import json
from collections import Counter

#: What the suite validated: schema name -> documents.
SEEN: Counter = Counter()
#: Failures not yet reported: ``(schema name, JSON Pointer of the first error, message)``.
FAILURES: list[tuple[str, str, str]] = []
_validators: dict = {}


def _validator(name: str):
    v = _validators.get(name)
    if v is None:
        from jsonschema import Draft202012Validator

        from inspector import jsonschemas

        v = _validators[name] = Draft202012Validator(jsonschemas.load(name))
    return v


def check_document(doc) -> None:
    """Validate one parsed document when it names a schema of ours (else nothing)."""
    from inspector import jsonschemas

    name = doc.get("schema") if isinstance(doc, dict) else None
    if name not in jsonschemas.ALL:
        return
    SEEN[name] += 1
    error = next(iter(sorted(_validator(name).iter_errors(doc), key=lambda e: list(e.absolute_path))), None)
    if error is not None:
        pointer = "".join(f"/{p}" for p in error.absolute_path)
        FAILURES.append((name, pointer, error.message[:300]))


def check_bytes(data) -> None:
    """Validate ``data`` (``str`` or bytes) as one JSON document or as JSON Lines, when it is either."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    data = bytes(data)
    head = data.lstrip()[:1]
    if head != b"{":
        return
    try:
        check_document(json.loads(data))
        return
    except ValueError:
        pass
    for line in data.split(b"\n"):
        if line.strip():
            try:
                doc = json.loads(line)
            except ValueError:
                return  # not JSON Lines either
            check_document(doc)


def install() -> None:
    """Wrap the two writers (before the command modules import them: tests/conftest.py calls this first)."""
    import inspector.session.writing as writing

    original_new = writing.write_new_file

    def write_new_file(path, data):
        """The real writer, given the same data (chunks passed on as they come, so that a failure while they
        are made reaches it as before); what was written is validated once it returned."""
        wanted = str(path).endswith((".json", ".jsonl")) or "part-" in str(path)
        if not wanted:
            return original_new(path, data)
        if isinstance(data, (bytes, bytearray, memoryview)):
            result = original_new(path, data)
            check_bytes(data)
            return result
        seen: list[bytes] = []

        def tee():
            for chunk in data:
                seen.append(bytes(chunk))
                yield chunk

        result = original_new(path, tee())
        check_bytes(b"".join(seen))
        return result

    write_new_file.__doc__ = original_new.__doc__
    writing.write_new_file = write_new_file

    import inspector.cli.common as common

    common.write_new_file = write_new_file
    original_out = common.out

    def out(text):
        result = original_out(text)
        check_bytes(text)
        return result

    out.__doc__ = original_out.__doc__
    common.out = out
