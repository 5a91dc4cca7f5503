"""python/examples/moe_router.py: run as a program and its functions checked."""
import pathlib
import subprocess
import sys

import numpy as np

from conftest import QUAD_RAIL4, SWITCH4

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "moe_router.py"
sys.path.insert(0, str(EXAMPLE.parent))
import moe_router  # noqa: E402


def run(*args):
    return subprocess.run([sys.executable, str(EXAMPLE), *map(str, args)], capture_output=True, text=True)


def test_example_runs():
    for catalog, extra in ((SWITCH4, []), (QUAD_RAIL4, ["--allow-shared", "--top-k", "3"])):
        r = run(catalog, "--tokens", 2048, *extra)
        assert r.returncode == 0, r.stderr
        assert "every byte delivered once: yes" in r.stdout
        assert "plan: " in r.stdout and "steps" in r.stdout


def test_example_errors(tmp_path):
    bad = tmp_path / "bad.vpcat"
    bad.write_bytes(b"not a catalog")
    r = run(bad)
    assert r.returncode == 2 and ("file is truncated" in r.stderr or "not a .vpcat file" in r.stderr)
    r = run(SWITCH4, "--top-k", 0)
    assert r.returncode == 1 and "--top-k 0" in r.stderr


def test_dispatch_demand_counts_each_token_once_per_gpu():
    # 3 tokens on GPUs 0, 1, 0; 4 experts, 2 per GPU (experts 0-1 on GPU 0, 2-3 on GPU 1).
    top_k = np.array([[2, 3], [0, 3], [1, 0]])
    d = moe_router.dispatch_demand(top_k, np.array([0, 1, 0]), np.array([0, 0, 1, 1]), 2, 10)
    # token 0 (GPU 0) -> GPU 1 once (experts 2 and 3); token 1 (GPU 1) -> GPU 0 and GPU 1;
    # token 2 (GPU 0) -> GPU 0 once.
    assert d.dtype == np.uint64 and d.tolist() == [[10, 10], [10, 10]]


def test_router_top_k_is_distinct_and_skewed():
    rng = np.random.default_rng(0)
    top = moe_router.router_top_k(5000, 16, 2, 1.5, rng)
    assert top.shape == (5000, 2) and np.all(top[:, 0] != top[:, 1])
    load = np.bincount(top.ravel(), minlength=16)
    assert load.max() > 3 * load.min()  # a Zipf exponent of 1.5: hot and cold experts


def test_plan_timing_runs():
    timing = EXAMPLE.parent / "plan_timing.py"
    r = subprocess.run([sys.executable, str(timing), str(SWITCH4), "--calls", "1"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("32 GPUs on 4 nodes, 1 calls each")
    assert r.stdout.count("us/call") == 6 and "copied=True" in r.stdout and "copied=False" in r.stdout
