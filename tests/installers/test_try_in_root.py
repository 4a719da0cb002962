"""packaging/linux/try_in_root.sh's own check helper, run on its own (the script needs a Debian root and
root rights; its first run in one, round three, failed 6 of its 13 checks on correct output: an output-less
command checked against "^" and the MIME type's "+" read as a regex quantifier)."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "packaging" / "linux" / "try_in_root.sh"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _helpers() -> str:
    """The script's TYPE/TYPE_RE lines, its counters and its expect() function, without the root set-up."""
    text = SCRIPT.read_text(encoding="utf-8")
    types = "\n".join(line for line in text.splitlines() if re.match(r"TYPE(_RE)?=", line))
    expect = re.search(r"^expect\(\) \{\n.*?^\}\n", text, re.S | re.M)
    assert expect is not None, "try_in_root.sh has no expect() function"
    return f"set -euo pipefail\n{types}\npassed=0\nfailed=0\nout=$(mktemp)\n{expect.group(0)}"


def _run(body: str) -> list[str]:
    done = subprocess.run(["bash", "-c", _helpers() + body + '\necho "$passed passed, $failed failed"'],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_an_empty_pattern_checks_the_exit_code_of_a_silent_command():
    lines = _run('expect "silent ok" 0 "" true\nexpect "silent wrong exit" 0 "" false')
    assert "try_in_root: ok   silent ok" in lines
    assert any(line.startswith("try_in_root: FAIL silent wrong exit (exit 1") for line in lines)
    assert lines[-1] == "1 passed, 1 failed"


def test_the_checkpoint_type_pattern_takes_its_plus_literally():
    lines = _run('expect "exact type" 0 "^$TYPE_RE\\$" echo "$TYPE"\n'
                 'expect "plus missing" 0 "^$TYPE_RE\\$" echo application/vnd.a3s.code.session-checkpoint.v1json\n'
                 'expect "plain json" 0 "^$TYPE_RE\\$" echo application/json')
    assert "try_in_root: ok   exact type" in lines
    assert lines[-1] == "1 passed, 2 failed"


def test_every_check_of_the_script_uses_a_pattern_that_can_match():
    # "^" on an output-less command never matches (grep sees no line); the exit-code-only form is ""
    assert ' 0 "^" ' not in SCRIPT.read_text(encoding="utf-8")
