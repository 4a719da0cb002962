"""Terminal-safe text output: :func:`inspector.cli.termsafe.terminal_safe`, and every text
output of the command line run on checkpoints whose keys, values, ids and file names hold terminal
control sequences (an ANSI colour, an OSC 8 hyperlink, BEL, the C1 CSI U+009B, the right-to-left
override U+202E, DEL, a newline that would forge a line): none of them reaches stdout or stderr raw."""

import os

import orjson
import pytest

from inspector.checkpoint import encode
from inspector.cli import main
from inspector.cli.termsafe import terminal_safe, terminal_safe_lines
from tests.builders import golden, rebind, write_pair
from tests.conftest import CASES_PINNED

#: ESC [31m (red), an OSC 8 hyperlink (ESC ] 8 ;; URL ESC \), BEL, C1 CSI, right-to-left override.
EVIL = "\x1b[31mred\x1b]8;;http://x\x1b\\link\x07\u009b\u202eend"
#: What :func:`terminal_safe` shows for it.
EVIL_SHOWN = "\\x1b[31mred\\x1b]8;;http://x\\x1b\\link\\x07\\u009b\\u202eend"
#: The same characters in a file name (no ``/``).
EVIL_NAME = "\x1b[31m\x07\u009b\u202e"
#: Characters that must never be printed raw.
RAW = ("\x1b", "\x07", "\x7f", "\u009b", "\u202e", "\u2028")


# ------------------------------------------------------------------ the function
@pytest.mark.parametrize("text, shown", [
    ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),  # CSI colour: ESC escaped, so no sequence survives
    ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "\\x1b]8;;http://x\\x1b\\link\\x1b]8;;\\x1b\\"),  # OSC 8
    ("bell\x07", "bell\\x07"),
    ("nul\x00del\x7f", "nul\\x00del\\x7f"),
    ("two\nlines\tand\rcr", "two\\nlines\\tand\\rcr"),  # a newline in a value never breaks a line
    ("csi\u009b2J", "csi\\u009b2J"),  # C1 controls: \\uNNNN (\\xNN above 7F means a raw byte of a file name)
    ("\u0085nel", "\\u0085nel"),
    ("abc\u202efed", "abc\\u202efed"),  # right-to-left override
    ("\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u061c", "\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069\\u061c"),
    ("zero\u200bwidth\u200c\u200d\u200e\u200f\u2060\ufeff", "zero\\u200bwidth\\u200c\\u200d\\u200e\\u200f\\u2060\\ufeff"),
    ("soft\u00adhyphen", "soft\\u00adhyphen"),
    ("line\u2028para\u2029", "line\\u2028para\\u2029"),
    ("tag\U000e0041", "tag\\U000e0041"),  # a format character above U+FFFF
    ("caf\udce9.json", "caf\\xe9.json"),  # a file-name byte that is not UTF-8 (surrogateescape), as display_path
])
def test_terminal_safe_escapes(text, shown):
    assert terminal_safe(text) == shown
    assert terminal_safe(shown) == shown  # printable: applying it again changes nothing
    assert shown.isprintable()


@pytest.mark.parametrize("text", ["", "plain ASCII text", "C:\\Users\\x1b\\temp", "caf\u00e9 \u65e5\u672c\u8a9e \U0001f600",
                                  "e\u0301", "'\\x1b[31m' quoted by the engine", "a \\ b"])
def test_terminal_safe_keeps_ordinary_text_and_backslashes(text):
    assert terminal_safe(text) == text


def test_terminal_safe_lines_keeps_the_line_ends():
    assert terminal_safe_lines("one \x1b[2J\ntwo\u202e\n") == "one \\x1b[2J\ntwo\\u202e\n"
    assert terminal_safe_lines("a\r\nb") == "a\\r\nb"
    assert terminal_safe_lines("plain\ntext\n") == "plain\ntext\n"


# ------------------------------------------------------------------ the commands
def run(capsysbinary, *argv):
    code = main([os.fsdecode(a) for a in argv])
    out, err = capsysbinary.readouterr()
    return code, out.decode("utf-8"), err.decode("utf-8")


def assert_no_raw(out: str, err: str) -> None:
    """Neither stream holds a character of :data:`RAW`, nor any other C0 (but the line ends) or C1 control."""
    for text, where in ((out, "stdout"), (err, "stderr")):
        found = [hex(ord(c)) for c in RAW if c in text]
        assert found == [], f"raw {found} on {where}: {[x for x in text.split(chr(10)) if not x.isprintable()][:3]!r}"
        assert not any(0x80 <= ord(c) <= 0x9F or ord(c) < 0x20 and c != "\n" for c in text)


@pytest.fixture(scope="module")
def evil(tmp_path_factory):
    """Checkpoints with ``EVIL`` where the outputs quote the files: name -> (payload, descriptor)."""
    out = tmp_path_factory.mktemp("evil")
    files = {}
    # an unknown key (and its value) in the session, in files whose names hold the characters too:
    # P-CANONICAL (the key is dropped on read); the location's JSON Pointer and the note show the key
    p, d = golden()
    p["snapshot"]["session"][EVIL] = EVIL
    pb = encode(p)
    files["unknown-key"] = write_pair(out, "unknown" + EVIL_NAME, pb, rebind(pb, d))
    # an enum value: P-PARSE, decided with the structure (so --progress shows it), serde quotes the value
    p, d = golden()
    p["snapshot"]["session"]["state"] = EVIL
    pb = encode(p)
    files["enum-value"] = write_pair(out, "enum", pb, rebind(pb, d))
    # a descriptor field (in clear in the ticket report too), with a newline that would forge a line
    p, d = golden()
    pb = encode(p)
    desc = orjson.loads(rebind(pb, d))
    desc["media_type"] = EVIL + "\nVERIFIED: the reference accepts this checkpoint."
    files["descriptor-field"] = write_pair(out, "descfield", pb, encode(desc))
    # run ids and a session id holding C1 and bidi characters (ids are shown in clear)
    p, d = golden()
    p["snapshot"]["run_records"][0]["snapshot"]["id"] = "run" + EVIL
    p["logical_resume"]["run_id"] = "run" + EVIL
    p["snapshot"]["session"]["id"] = "s\u202e\u009b"
    pb = encode(p)
    files["ids"] = write_pair(out, "ids", pb, rebind(pb, d, components=True))
    # a key in a tool input, under a number spelled differently from the reference (P-CANONICAL points there)
    p = orjson.loads((CASES_PINNED / "001-valid-rich-resume.payload.json").read_bytes())
    d = orjson.loads((CASES_PINNED / "001-valid-rich-resume.descriptor.json").read_bytes())
    p["snapshot"]["session"]["messages"][1]["content"][1]["input"] = {"command": EVIL, EVIL: 1}
    pb = encode(p)
    assert pb.count(encode(EVIL) + b":1,") == 1
    pb = pb.replace(encode(EVIL) + b":1,", encode(EVIL) + b":1E0,")
    files["tool-input"] = write_pair(out, "tool", pb, rebind(pb, d, components=True))
    # message text and a name with a newline (for diff); a pretty-printed payload with raw C1, bidi, DEL
    p, d = golden()
    p["snapshot"]["session"]["messages"][0]["content"][0]["text"] = EVIL
    p["snapshot"]["session"]["config"]["name"] = "x\n" + EVIL
    pb = encode(p)
    files["message"] = write_pair(out, "message", pb, rebind(pb, d))
    p, d = golden()
    p["snapshot"]["session"]["z\u009b\u202e\x7f\u2028"] = 1
    files["pretty"] = write_pair(out, "pretty", orjson.dumps(p, option=orjson.OPT_INDENT_2), rebind(encode(p), d))
    return files


CASES = ("unknown-key", "enum-value", "descriptor-field", "ids", "tool-input", "message", "pretty")


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("options", [(), ("--all",), ("--progress",)])
def test_verify_text(evil, case, options, capsysbinary):
    code, out, err = run(capsysbinary, "verify", *options, *evil[case])
    assert code == 1, err
    assert_no_raw(out, err)
    assert "\nVERIFIED" not in out  # a newline in a value forges no verdict line


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_report_text_markdown_and_html(evil, case, fmt, capsysbinary):
    code, out, err = run(capsysbinary, "report", "--format", fmt, *evil[case])
    assert code == 1, err
    assert_no_raw(out, err)


@pytest.mark.parametrize("case", CASES)
def test_describe_and_canon_diff(evil, case, capsysbinary):
    payload, descriptor = evil[case]
    code, out, err = run(capsysbinary, "describe", payload)
    assert_no_raw(out, err)
    for f in (payload, descriptor):
        code, out, err = run(capsysbinary, "canon", "--diff", f)
        assert_no_raw(out, err)


@pytest.mark.parametrize("a, b, side", [("unknown-key", "message", 0), ("ids", "message", 0),
                                        ("tool-input", "message", 0), ("descriptor-field", "unknown-key", 1),
                                        ("enum-value", "message", 0)])
def test_diff_text(evil, a, b, side, capsysbinary):
    code, out, err = run(capsysbinary, "diff", evil[a][side], evil[b][side])
    assert_no_raw(out, err)


def test_explain(capsysbinary):
    code, out, err = run(capsysbinary, "explain", EVIL)
    assert code == 2 and out == ""
    assert err == f"checkpoint-inspector: unknown rule '{EVIL_SHOWN}'; see 'checkpoint-inspector rules'\n"
    code, out, err = run(capsysbinary, "explain", "p-canonical")
    assert code == 0 and err == ""
    assert_no_raw(out, err)


# ------------------------------------------------------------------ what the escaped lines say
def test_verify_shows_the_pointer_and_the_file_names_escaped(evil, capsysbinary):
    payload, descriptor = evil["unknown-key"]
    code, out, err = run(capsysbinary, "verify", payload, descriptor)
    lines = out.splitlines()
    assert lines[0].startswith("Not redacted: ")
    assert lines[1] == f"payload:    {payload.parent}/unknown\\x1b[31m\\x07\\u009b\\u202e.payload.json (2210 bytes)"
    assert f"  where:    payload /snapshot/session/{EVIL_SHOWN.replace('/', '~1')} (bytes 988..1047)" in lines
    payload, descriptor = evil["tool-input"]
    code, out, err = run(capsysbinary, "verify", payload, descriptor)
    assert out.splitlines()[6:11] == [
        "Root cause: P-CANONICAL (Payload is exactly its canonical JSON encoding)",
        "  code:     a3s.code.session_checkpoint.content_drift",
        "  message:  session checkpoint content drift: payload is not the exact canonical JSON encoding",
        f"  where:    payload /snapshot/session/messages/1/content/1/input/{EVIL_SHOWN.replace('/', '~1')} "
        "(bytes 24059..24062)",
        "  expected: 1.0",
    ]


def test_a_newline_in_a_value_stays_on_its_line(evil, capsysbinary):
    code, out, err = run(capsysbinary, "verify", *evil["descriptor-field"])
    assert code == 1
    shown = [line for line in out.splitlines() if "VERIFIED: the reference accepts" in line]
    assert shown and all(line.startswith("  ") and "\\nVERIFIED: the reference accepts" in line for line in shown)
    code, out, err = run(capsysbinary, "report", *evil["descriptor-field"])
    assert not any(line.startswith("VERIFIED") for line in out.splitlines())


def test_progress_escapes_the_root_cause_it_gives_early(evil, capsysbinary):
    code, out, err = run(capsysbinary, "verify", "--progress", *evil["enum-value"])
    assert code == 1
    first = err.splitlines()[1]
    assert first.startswith("[") and "NOT VERIFIED: P-PARSE failed" in first
    # progress lines carry no content: the value is a marker, so nothing of it can inject
    assert "unknown variant `[redacted: value, 36 bytes]`, expected one of `Unknown`, `Active`" in first
    assert EVIL_SHOWN not in first and "\x1b" not in err


def test_json_outputs_keep_the_exact_values(evil, capsysbinary):
    """Only text is escaped: JSON (and describe's canonical descriptor bytes) carry the values as they are."""
    payload, descriptor = evil["tool-input"]
    code, out, err = run(capsysbinary, "verify", "--format", "json", payload, descriptor)
    assert orjson.loads(out)["root_cause"]["location"]["pointer"] == (
        "/snapshot/session/messages/1/content/1/input/" + EVIL.replace("/", "~1"))
    code, out, err = run(capsysbinary, "diff", "--format", "json", evil["message"][0], evil["unknown-key"][0])
    assert {c["a_value"] for c in orjson.loads(out)["changes"] if isinstance(c.get("a_value"), str)} >= {EVIL}
    p, d = golden()
    p = orjson.loads(orjson.dumps(p).replace(b"session-checkpoint-1", "s\u202eabc".encode()))
    pb = encode(p)
    payload, _ = write_pair(payload.parent, "bidi-session", pb, rebind(pb, d, components=True))
    code, out, err = run(capsysbinary, "describe", payload)
    assert code == 0 and '"session_id":"s\u202eabc"' in out  # canonical JSON: exact bytes, by contract


def test_an_unknown_option_is_quoted_escaped(capsysbinary):
    """Arguments can hold anything too: argparse's 'unrecognized arguments' line quotes them escaped."""
    with pytest.raises(SystemExit) as e:
        main(["verify", "--\x1b[2J\u202ex", "p.json"])
    out, err = capsysbinary.readouterr()
    assert e.value.code == 2 and out == b""
    assert err.decode().splitlines()[-1] == ("checkpoint-inspector verify: error: unrecognized arguments: "
                                             "--\\x1b[2J\\u202ex")


# ------------------------------------------------------------------ NO_COLOR: nothing to turn off
@pytest.mark.parametrize("argv", [["verify", "broken.payload.json", "broken.descriptor.json"],
                                  ["verify", "--progress", "broken.payload.json", "broken.descriptor.json"],
                                  ["explain", "DS-SCHEMA"], ["rules"], ["--help"]])
def test_on_a_terminal_the_command_line_writes_no_colour_or_escape(argv):
    """NO_COLOR (no-color.org) is respected by never writing colour: run on a real terminal (a pty, where a
    program that colours would colour), with FORCE_COLOR and a colour TERM, the output holds no ESC byte."""
    import pty
    import subprocess
    import sys

    from tests.conftest import ROOT

    leader, follower = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "FORCE_COLOR": "1", "CLICOLOR_FORCE": "1"}
    env.pop("NO_COLOR", None)
    p = subprocess.Popen([sys.executable, "-m", "inspector", *argv], cwd=ROOT / "resources" / "samples",
                         stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env={**env, "PYTHONPATH": str(ROOT)})
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the program closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    code = p.wait(timeout=60)
    assert code == (1 if argv[0] == "verify" else 0)
    assert len(out) > 200 and b"\x1b" not in out
