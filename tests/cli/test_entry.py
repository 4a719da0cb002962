"""The real ``checkpoint-inspector`` entry point in a subprocess, without a display.

A mistyped command or an unknown option must never open the window (a headless CI job would
hang on it): exit 2 with usage. File names that are not UTF-8 survive every output, shown with
visible escapes. A crash exits 3, never 0/1, and never quotes payload content.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from inspector import entry
from inspector.checkpoint import display_path, display_text, file_uri
from tests.conftest import CASES, GOLDEN, ROOT

GP = GOLDEN / "payload-with-resume.json"
GD = GOLDEN / "descriptor-with-resume.json"
USAGE_HEAD = "usage: checkpoint-inspector [--new-window] [FILE ...]\n"


def _env() -> dict:
    """No display at all: if the window were opened it would fail or hang, never pass silently."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def cli(*argv, cwd=None, code: str | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m inspector ARGV`` (bytes or str arguments) with a timeout."""
    cmd = [sys.executable, "-c", code, *argv] if code else [sys.executable, "-m", "inspector", *argv]
    return subprocess.run(cmd, capture_output=True, env=_env(), cwd=cwd or ROOT, timeout=60)


# ------------------------------------------------------------------ mistyped commands, options
def test_mistyped_subcommand_suggests_the_command_and_exits_2():
    p = cli("verfy", str(GP), "--format", "json")
    err = p.stderr.decode()
    assert p.returncode == 2, err
    assert p.stdout == b""
    assert err.startswith(USAGE_HEAD)
    assert err.endswith("checkpoint-inspector: error: unknown command 'verfy', did you mean 'verify'? "
                        "(commands: verify, report, describe, canon, rules, explain, diff, timeline, restore, scan, audit; "
                        "or give files to open in the window)\n")


@pytest.mark.parametrize("argv, message", [
    (["--bogus"], "unknown option '--bogus'"),
    (["--selftest"], "unknown option '--selftest', did you mean '--self-test'?"),
    (["--verison"], "unknown option '--verison', did you mean '--version'?"),
    ([str(GP), "--format", "json"], "unknown option '--format'"),
    (["-x", str(GP)], "unknown option '-x'"),
    (["describ", str(GP)], "unknown command 'describ', did you mean 'describe'?"),
    (["frobnicate"], "unknown command 'frobnicate' (commands:"),
    (["missing.payload.json"], "missing.payload.json: no such file or folder"),
    ([str(GP), "verify"], "verify: no such file or folder"),
])
def test_anything_but_existing_files_exits_2_with_usage(argv, message):
    p = cli(*argv)
    err = p.stderr.decode()
    assert p.returncode == 2, err
    assert err.startswith(USAGE_HEAD) and f"checkpoint-inspector: error: {message}" in err


def test_subcommand_options_still_go_to_argparse():
    p = cli("verify", str(GP), "--formt", "json")
    assert p.returncode == 2
    err = p.stderr.decode()
    # The subcommand's usage (not the general one), and the option it was probably meant to be.
    assert err.startswith("usage: checkpoint-inspector verify [-h] [--format {text,json,sarif}]"), err
    assert err.endswith("checkpoint-inspector verify: error: unrecognized arguments: --formt json; "
                        "did you mean --format?\n"), err


@pytest.mark.parametrize("argv, tail", [
    (["report", "--formt=html", "--sha265-prefixes"], "report: error: unrecognized arguments: --formt=html "
                                                     "--sha265-prefixes; did you mean --format, --sha256-prefixes?\n"),
    (["rules", "--zzz"], "rules: error: unrecognized arguments: --zzz\n"),
    (["canon", str(GP), "--dfif"], "canon: error: unrecognized arguments: --dfif; did you mean --diff?\n"),
])
def test_unknown_subcommand_option_gets_that_subcommands_usage_and_a_hint(argv, tail):
    p = cli(*argv)
    err = p.stderr.decode()
    assert p.returncode == 2, err
    assert err.startswith(f"usage: checkpoint-inspector {argv[0]} "), err
    assert err.endswith(f"checkpoint-inspector {tail}"), err


def test_window_paths_decides_without_opening_anything(tmp_path):
    f = tmp_path / "a.json"
    f.write_bytes(b"{}")
    assert entry.window_paths([]) == ([], None)
    assert entry.window_paths([str(f), str(tmp_path)]) == ([str(f), str(tmp_path)], None)
    assert entry.window_paths(["--", str(f)]) == ([str(f)], None)
    assert entry.window_paths(["--", "verfy"]) == (None, "verfy: no such file or folder")
    assert entry.opens_window([str(f)]) is True
    assert entry.opens_window(["verfy"]) is False
    assert entry.opens_window([str(f), "--bogus"]) is False


def test_new_window_is_an_option_of_the_window_not_a_path(tmp_path):
    f = tmp_path / "a.json"
    f.write_bytes(b"{}")
    assert entry.window_paths(["--new-window", str(f)]) == ([str(f)], None)
    assert entry.wants_new_window(["--new-window", str(f)]) is True
    assert entry.opens_window([str(f), "--new-window"]) is True
    assert entry.wants_new_window([str(f)]) is False
    # after "--" it is a file name like any other
    assert entry.wants_new_window(["--", "--new-window"]) is False
    assert entry.window_paths(["--", "--new-window"]) == (None, "--new-window: no such file or folder")
    assert entry.window_paths(["--new-windw"]) == (None, "unknown option '--new-windw', did you mean '--new-window'?")


# ------------------------------------------------------------------ file names that are not UTF-8
@pytest.fixture
def latin1_pair(tmp_path):
    """The golden pair under Latin-1 names (byte 0xE9 is not UTF-8 on its own)."""
    base = os.fsencode(tmp_path)
    p, d = base + b"/caf\xe9.payload.json", base + b"/caf\xe9.descriptor.json"
    shutil.copyfile(GP, p)
    shutil.copyfile(GD, d)
    return tmp_path, p, d


def test_verify_text_with_latin1_names(latin1_pair):
    where, p, d = latin1_pair
    r = cli(b"caf\xe9.payload.json", b"caf\xe9.descriptor.json", cwd=where,
            code="import sys; from inspector.entry import main; raise SystemExit(main(['verify'] + sys.argv[1:]))")
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode("utf-8")  # valid UTF-8
    assert out.splitlines()[1:3] == ["payload:    caf\\xe9.payload.json (2090 bytes)",
                                    "descriptor: caf\\xe9.descriptor.json (1185 bytes)"]
    assert "VERIFIED: the reference accepts this checkpoint." in out


def test_verify_json_and_sarif_with_latin1_names(latin1_pair):
    where, p, d = latin1_pair
    r = cli("verify", p, d, "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    inputs = json.loads(r.stdout.decode("utf-8"))["inputs"]
    assert inputs["payload"]["path"] == display_path(p) == os.fsdecode(os.fsencode(where)) + "/caf\\xe9.payload.json"
    assert inputs["payload"]["uri"] == "file://" + str(where).replace(" ", "%20") + "/caf%E9.payload.json"
    assert inputs["descriptor"]["uri"].endswith("/caf%E9.descriptor.json")

    bad = os.fsencode(where) + b"/caf\xe9-bad.payload.json"
    shutil.copyfile(CASES / "25-p-flip-byte.payload.json", bad)
    r = cli("verify", bad, d, "--format", "sarif")
    assert r.returncode == 1, r.stderr.decode()
    log = json.loads(r.stdout.decode("utf-8"))
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for res in log["runs"][0]["results"] for loc in res["locations"]}
    assert uris == {file_uri(d), file_uri(bad)}
    assert file_uri(d).endswith("/caf%E9.descriptor.json") and file_uri(bad).endswith("/caf%E9-bad.payload.json")


def test_missing_and_existing_latin1_names_are_usage_errors_with_escapes(latin1_pair):
    where, p, d = latin1_pair
    r = cli("verify", os.fsencode(where) + b"/nicht-da-\xfc.json")
    assert r.returncode == 2
    assert r.stderr.decode("utf-8").endswith("/nicht-da-\\xfc.json: no such file\n")
    r = cli("describe", p, "-o", d)  # never overwrites; the name is shown escaped
    assert r.returncode == 2
    assert r.stderr.decode("utf-8").endswith("/caf\\xe9.descriptor.json exists; choose a new file name\n")
    new = os.fsencode(where) + b"/neu-\xe9.descriptor.json"
    assert cli("describe", p, "-o", new).returncode == 0
    assert open(new, "rb").read() == GD.read_bytes()
    r = cli("canon", p)
    assert r.returncode == 0 and r.stdout == GP.read_bytes()
    r = cli(os.fsencode(where) + b"/fehlt-\xe9")  # would-be window argument
    assert r.returncode == 2 and r.stderr.decode("utf-8").endswith("/fehlt-\\xe9: no such file or folder\n")


def test_control_characters_in_names_are_visible(tmp_path):
    name = tmp_path / "two\nlines\u202e.payload.json"
    shutil.copyfile(GP, name)
    r = cli("verify", str(name))
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().splitlines()[1].endswith("/two\\nlines\\u202e.payload.json (2090 bytes)")


@pytest.mark.parametrize("raw, shown", [
    (b"caf\xe9", "caf\\xe9"),
    (b"\xff\xfe\x80", "\\xff\\xfe\\x80"),
    ("caf\u00e9 ok".encode(), "caf\u00e9 ok"),   # valid UTF-8 is shown as is
    ("a\tb\x7f\u0085".encode(), "a\\tb\\x7f\\u0085"),  # the character U+0085, not the byte 0x85
    ("x\u2028y\ufeff".encode(), "x\\u2028y\\ufeff"),
    (b"back\\slash", "back\\slash"),
])
def test_display_path(raw, shown):
    assert display_path(raw) == display_path(os.fsdecode(raw)) == shown
    shown.encode("utf-8")
    assert display_text("plain") == "plain"


# ------------------------------------------------------------------ a crash is never a verdict
def test_a_crash_exits_3_and_quotes_no_payload_content():
    secret = "retain exact state"  # text inside the golden payload
    assert secret.encode() in GP.read_bytes()
    code = ("import sys\n"
            "from inspector.cli import render\n"
            "def boom(report, payload, descriptor, **kw):\n"
            "    raise ValueError(payload.data.decode()[:5000])\n"
            "render.to_text = boom\n"
            "from inspector.entry import main\n"
            "raise SystemExit(main(sys.argv[1:]))\n")
    r = cli("verify", str(GP), str(GD), code=code)
    err = r.stderr.decode()
    assert r.returncode == 3, err
    assert secret not in err and "Traceback" not in err
    assert err.startswith("checkpoint-inspector: internal error: ValueError at <string>:4 boom")
    assert "no verdict was reached (exit 3)" in err
    assert "3 inconclusive or internal error" in " ".join(cli("--help").stdout.decode().split())


def test_a_closed_stdout_keeps_the_verdict_exit_code():
    cmd = [sys.executable, "-m", "inspector", "verify", str(CASES / "25-p-flip-byte.payload.json"),
           str(CASES / "25-p-flip-byte.descriptor.json"), "--format", "json"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=ROOT)
    p.stdout.close()  # the reader is gone before anything is written
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 1, err
    assert "Traceback" not in err and "BrokenPipe" not in err


@pytest.mark.parametrize("case, code, root", [("01-valid", 0, None), ("25-p-flip-byte", 1, "X-BYTES")])
def test_the_command_line_exits_without_freeing_after_its_whole_output(case, code, root):
    """``python -m inspector verify`` (argv from the command line) keeps the parsed payload and ends the
    process itself once stdout is flushed: the whole report is written and the verdict's code kept."""
    p = cli("verify", str(CASES / f"{case}.payload.json"), str(CASES / f"{case}.descriptor.json"), "--format", "json")
    assert p.returncode == code, p.stderr
    out = json.loads(p.stdout)  # complete: the JSON document ends
    assert out["verified"] is (code == 0)
    assert (out["root_cause"] or {}).get("rule") == root
    assert p.stdout.endswith(b"}\n") and p.stderr == b""


@pytest.mark.parametrize("args", [("verify", str(GP), str(GD)), ("verify", str(GP), str(GD), "--format", "json"),
                                  ("canon", str(GP))])
@pytest.mark.parametrize("stdout, reason", [("closed", "standard output is closed"),
                                            ("/dev/full", "No space left on device")])
def test_output_that_cannot_be_written_is_not_a_verdict(args, stdout, reason):
    """Started with stdout closed (``>&-``) or on a full disk: the report never reached anyone, so the
    exit code is 3 with one line saying why, not the verdict's 0/1 and not an 'internal error'."""
    if stdout == "/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    redirect = ">&-" if stdout == "closed" else "> /dev/full"
    command = " ".join(f"'{a}'" for a in (sys.executable, "-m", "inspector", *args)) + " " + redirect
    p = subprocess.run(["/bin/sh", "-c", command], stderr=subprocess.PIPE, env=_env(), cwd=ROOT, timeout=120)
    assert p.returncode == 3
    assert p.stderr.decode() == f"checkpoint-inspector: cannot write the output: {reason}; nothing was reported (exit 3)\n"


def test_version_names_the_pinned_reference_and_the_rule_catalogue(capsys):
    """Issue 25: --version said only 0.1.0; it names the A3S Code release and commit, serde_json and the
    rule catalogue this build reproduces."""
    from inspector.checkpoint.rules.catalogue import catalogue_version
    from inspector.cli.main import main as cli_main

    with pytest.raises(SystemExit) as e:
        cli_main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out == (
        "checkpoint-inspector 0.1.0\nreference A3S Code 8.3.0 (commit 06c82e911df5ab16292cf16c3359f6656daf6e81), "
        f"serde_json 1.0.151; rule catalogue {catalogue_version()}\n")


# ------------------------------------------------------------------ a FIFO never blocks a command
fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


@fifo_only
@pytest.mark.parametrize("order", ["fifo-alone", "payload-first", "fifo-first"])
def test_verify_of_a_fifo_exits_2_at_once_with_the_reason(tmp_path, order):
    """A FIFO nobody writes to: opening it without O_NONBLOCK would wait for good (the 60 s timeout of
    ``cli`` would fail the test); it is refused by name, exit 2, nothing on stdout."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    args = {"fifo-alone": [fifo], "payload-first": [GP, fifo], "fifo-first": [fifo, GP]}[order]
    r = cli("verify", *map(str, args))
    assert (r.returncode, r.stdout) == (2, b"")
    assert r.stderr.decode() == f"checkpoint-inspector: {fifo}: is a FIFO (named pipe), not a file\n"


@fifo_only
def test_compare_and_scan_pass_a_fifo_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    r = cli("diff", str(GP), str(fifo))
    assert (r.returncode, r.stdout) == (2, b"")
    assert r.stderr.decode() == f"checkpoint-inspector: {fifo}: is a FIFO (named pipe), not a file\n"
    shutil.copyfile(GP, tmp_path / GP.name)
    shutil.copyfile(GD, tmp_path / GD.name)
    r = cli("scan", str(tmp_path), "--format", "json")
    assert r.returncode == 0, r.stderr
    assert "pipe.json" not in r.stdout.decode()  # (not a file: not listed, as a subfolder is not)


def test_with_no_stderr_a_usage_error_still_exits_2_and_a_verdict_keeps_its_code():
    """The windowed Windows executable has no standard error (``sys.stderr`` is None there), nor has a command
    started with it closed (``2>&-``): a message to it went nowhere and the command failed with exit 3 instead."""
    import subprocess
    import sys

    from tests.conftest import GOLDEN, ROOT

    def run(*argv):
        args = " ".join(f"'{a}'" for a in argv)
        return subprocess.run(["bash", "-c", f"'{sys.executable}' -m inspector {args} 2>&-"], cwd=ROOT,
                              capture_output=True, text=True)

    assert run("verfy").returncode == 2
    broken = run("verify", str(GOLDEN / "payload-with-resume.json"), str(GOLDEN / "descriptor-semantic-only.json"))
    assert broken.returncode == 1 and "NOT VERIFIED" in broken.stdout
    assert run("--version").returncode == 0
