"""python/examples/moe_layer.py: the toy MoE layer through vpcat.torch equals
the same layer on torch's all_to_all_single, on 4 gloo ranks on two nodes."""
import pathlib
import subprocess
import sys

from conftest import SWITCH4

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "moe_layer.py"


def test_moe_layer_equals_torch_collective():
    r = subprocess.run([sys.executable, str(EXAMPLE), "--catalog", str(SWITCH4), "--ranks", "4",
                        "--rank-map", "0-1,8-9", "--steps", "2"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("equal to torch's all_to_all_single on every rank: yes; "
                          "close to the dense reference: yes") == 2, r.stdout
    assert "vpcat.torch: 8 calls, 7 planned, 1 reused, 0 fell back" in r.stdout, r.stdout


def test_moe_layer_bad_arguments():
    r = subprocess.run([sys.executable, str(EXAMPLE), "--top-k", "99"], capture_output=True, text=True)
    assert r.returncode == 2 and "--top-k" in r.stderr


def test_torch_timing_runs():
    timing = EXAMPLE.parent / "torch_timing.py"
    r = subprocess.run([sys.executable, str(timing), str(SWITCH4), "--ranks", "2", "--calls", "1", "--rescale", "1"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "new groups, 1 repetitions" in r.stdout and "random 3/4" in r.stdout, r.stdout
    calls = r.stdout.split("new groups")[0]
    assert r.stdout.startswith("2 ranks, 1 calls, ") and calls.count(" ms") == 4, r.stdout
