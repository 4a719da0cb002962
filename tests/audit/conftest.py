"""The real parts the audit tests share: one Dask ``LocalCluster`` of 2 worker processes for the module that
asks for it (started and stopped by the tests), and the CLI run as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed", reason="the audit needs Dask (the audit extra)")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of 2 worker processes (1 thread each), for one test module."""
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}) as c:
        yield c


def cli(*args, timeout=180, **kw):
    """``checkpoint-inspector ARGS`` in a subprocess (the real CLI)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], capture_output=True, timeout=timeout,
                          env=env, stdin=subprocess.DEVNULL, cwd=ROOT, **kw)


def records(path) -> list[dict]:
    """The records of a JSON Lines RESULTS file."""
    return [json.loads(line) for line in Path(path).read_text("utf-8").splitlines()]


def by_key(recs: list[dict]) -> dict:
    """Records by their locations (each once: a duplicate fails the test)."""
    out = {}
    for r in recs:
        k = (r["payload"], r["descriptor"], r["other"])
        assert k not in out, f"record written twice: {k}"
        out[k] = r
    return out
