"""Where an open's paths go (inspector/session/routing.py), and the session readers never blocking on a FIFO:
a FIFO given with a file is left out with its reason and the file opens; alone it is refused by name."""

import os
import shutil
import threading

import pytest

from inspector.checkpoint.diagnostic import InspectorError
from inspector.session import compare_loading, engine, folderscan, routing
from inspector.session.routing import Route
from tests.conftest import GOLDEN, SAMPLES

GP = GOLDEN / "payload-with-resume.json"
GD = GOLDEN / "descriptor-with-resume.json"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _in_worker(fn, seconds=60.0):
    """``fn()`` on a worker thread (the routing refuses the main thread), failing when it blocks."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001
            out["error"] = e
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"blocked for over {seconds} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return str(path)


def test_a_fifo_with_a_payload_is_left_out_and_the_payload_loads(fifo):
    said = f"{fifo}: is a FIFO (named pipe), not a file"
    assert _in_worker(lambda: routing.route_paths([str(GP), fifo])) == Route("load", [str(GP)], [said])
    assert _in_worker(lambda: routing.route_paths([fifo, str(GP)])) == Route("load", [str(GP)], [said])


def test_a_fifo_alone_or_with_another_is_refused_by_name(fifo, tmp_path):
    said = f"{fifo}: is a FIFO (named pipe), not a file"
    assert _in_worker(lambda: routing.route_paths([fifo])) == Route("refuse", [], [said], said)
    other = tmp_path / "other.json"
    os.mkfifo(other)
    said2 = f"{other}: is a FIFO (named pipe), not a file"
    assert _in_worker(lambda: routing.route_paths([fifo, str(other)])) == \
        Route("refuse", [], [said, said2], f"{said}; {said2}")


def test_folders_pairs_and_comparisons_route_as_before(fifo, tmp_path):
    assert _in_worker(lambda: routing.route_paths([str(tmp_path)])) == Route("folder", [str(tmp_path)])
    assert _in_worker(lambda: routing.route_paths([str(tmp_path), str(GP)])) == Route("refuse", message=routing.MIX)
    assert _in_worker(lambda: routing.route_paths([str(GP), str(GD)])) == Route("load", [str(GP), str(GD)])
    broken = str(SAMPLES / "broken.payload.json")
    assert _in_worker(lambda: routing.route_paths([str(GP), broken, fifo])) == \
        Route("compare", [str(GP), broken], [f"{fifo}: is a FIFO (named pipe), not a file"])
    three = [str(GP), str(GD), broken]
    assert _in_worker(lambda: routing.route_paths(three)) == Route("refuse", message=(
        "3 files were given; open one payload and its descriptor (or drop the folder that holds them)."))
    missing = str(tmp_path / "gone.json")  # the load says "no such file"
    assert _in_worker(lambda: routing.route_paths([missing])) == Route("load", [missing])


def test_routing_and_same_kind_refuse_the_gui_thread():
    with pytest.raises(RuntimeError):
        routing.route_paths([str(GP)])
    with pytest.raises(RuntimeError):
        compare_loading.same_kind([str(GP), str(GP)])


def test_same_kind_reads_no_fifo(fifo):
    assert _in_worker(lambda: compare_loading.same_kind([str(GP), fifo])) is None
    assert _in_worker(lambda: compare_loading.same_kind([str(GP), str(SAMPLES / "broken.payload.json")])) == "payload"
    assert _in_worker(lambda: compare_loading.same_kind_as(fifo, str(GD), [str(GP)])) == fifo


def test_a_large_export_wrapper_is_not_a_payload_by_its_size(tmp_path):
    """Over 1 MiB a file is a payload by its size, unless it opens as an SDK export wrapper: a wrapper holds both
    halves, so two large wrappers are not two payloads to compare (the roles of inspector.checkpoint.roles)."""
    import json

    from inspector.checkpoint.sdk_export import wrap

    inner = json.loads(wrap(GP.read_bytes(), GD.read_bytes()))
    big = tmp_path / "export.json"
    big.write_text(json.dumps({**inner, "note": "x" * (2 << 20)}))
    large_payload = tmp_path / "large.payload.json"
    large_payload.write_bytes(GP.read_bytes()[:-1] + b" " * (2 << 20) + b"}")
    assert _in_worker(lambda: compare_loading.same_kind([str(big), str(big)])) is None
    assert _in_worker(lambda: compare_loading.same_kind([str(large_payload), str(GP)])) == "payload"


def test_the_load_refuses_a_fifo_by_name(fifo):
    with pytest.raises(InspectorError) as e:  # (UnreadableInput: the window says its diagnostics as they are)
        _in_worker(lambda: engine.load_paths([str(GP), fifo]))
    assert e.value.diagnostics() == f"{fifo}: is a FIFO (named pipe), not a file"


def test_a_payload_opened_alone_beside_a_fifo_is_loaded(tmp_path):
    p = tmp_path / "run.payload.json"
    shutil.copyfile(GP, p)
    os.mkfifo(tmp_path / "run.descriptor.json")  # where its descriptor would be
    a = _in_worker(lambda: engine.load_paths([str(p)]))
    assert a.payload.path == str(p) and a.descriptor is None
    assert a.pairing == "No descriptor that matches run.payload.json was found beside it."


def test_a_folder_scan_passes_a_fifo_by(tmp_path):
    shutil.copyfile(GP, tmp_path / GP.name)
    shutil.copyfile(GD, tmp_path / GD.name)
    os.mkfifo(tmp_path / "a-pipe.json")
    rows = _in_worker(lambda: folderscan.scan_folder(str(tmp_path)), 120)
    assert [(os.path.basename(r.payload), os.path.basename(r.descriptor), r.verified) for r in rows] == [
        (GP.name, GD.name, True)]
