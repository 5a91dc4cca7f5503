"""vpcat.place: the runtime's choice of a placement among free GPUs, the same
as the C API's (tests/c_api_place_test.cpp) on the same fixtures, with its
expected time, bound and the partial nodes before and after."""
import numpy as np
import pytest

import vpcat
from conftest import FIXTURES, SWITCH4

LEAFSPINE32 = FIXTURES / "catalogs" / "golden" / "pcie-gen4-2s4sw8g-32n-leafspine2to1.vpcat"

# gpu01 wholly free; gpu02 already runs a job on its odd GPUs (8 GPUs a node).
FOUR_NODE_FREE = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14]


def fragmented_free():
    """docs/examples/fragmented-free.txt as catalog GPU indexes (gpuNNN is node NNN-1, 8 GPUs each)."""
    listed = {3: [0, 5, 6], 6: [1, 2, 3, 4, 5], 11: list(range(8)), 14: [2, 3], 19: [4, 5, 6, 7],
              21: [0, 1, 2, 3], 27: list(range(8)), 30: [6, 7]}
    return [(h - 1) * 8 + g for h in range(1, 33) for g in listed.get(h, [0])]


def test_wide_slack_closes_the_partial_node(catalog):
    p = vpcat.place(catalog, FOUR_NODE_FREE, 4, slack=10)
    assert p.gpus.tolist() == [8, 10, 12, 14]
    assert p.partial_nodes_before == 1
    assert p.partial_nodes_after == 0
    assert p.node_count == 1
    assert p.free_gpus_before == 12
    assert p.candidates[p.choice].gpus.tolist() == p.gpus.tolist()
    fastest = vpcat.place(catalog, FOUR_NODE_FREE, 4, slack=0)
    assert fastest.choice == 0
    assert fastest.expected_us <= p.expected_us


def test_fragmented_cluster_of_the_docs():
    cat = vpcat.Catalog.open(LEAFSPINE32)
    free = fragmented_free()
    p = vpcat.place(cat, free, 16)
    # Three candidates put one GPU on each of sixteen nodes, all planned as
    # fast; the choice takes the last free GPU of sixteen nodes.
    whole = [(h - 1) * 8 for h in (1, 2, 4, 5, 7, 8, 9, 10, 12, 13, 15, 16, 17, 18, 20, 22)]
    assert p.gpus.tolist() == whole
    assert p.strategy == "balanced over 16 nodes, best fit"
    assert (p.partial_nodes_before, p.partial_nodes_after) == (30, 14)
    assert p.choice == 0
    assert len(p.candidates) == 12
    assert 0 < p.bound_us <= p.expected_us
    times = [c.expected_us for c in p.candidates]
    assert times == sorted(times)
    # No candidate within a wide slack leaves fewer partial nodes.
    wide = vpcat.place(cat, np.array(free, dtype=np.uint64), 16, slack=0.5)
    assert wide.gpus.tolist() == whole
    assert wide.choice == 0


def test_demand_matches_its_plan(catalog):
    """The chosen candidate's figures are those of a subset planner's plan of the demand there."""
    n = 6
    rng = np.random.default_rng(3)
    demand = rng.integers(0, 1 << 20, size=(n, n), dtype=np.uint64)
    np.fill_diagonal(demand, 0)
    p = vpcat.place(catalog, FOUR_NODE_FREE, n, demand=demand)
    plan = vpcat.Planner(catalog, gpus=p.gpus.tolist()).plan(demand)
    assert p.expected_us == plan.expected_us
    assert p.bound_us == plan.bound_us
    # No demand: uniform_bytes between every two ranks, as the matrix of it.
    uniform = np.full((n, n), 4096, dtype=np.uint64)
    np.fill_diagonal(uniform, 0)
    a = vpcat.place(catalog, FOUR_NODE_FREE, n, uniform_bytes=4096)
    b = vpcat.place(catalog, FOUR_NODE_FREE, n, demand=uniform)
    assert a.gpus.tolist() == b.gpus.tolist() and a.expected_us == b.expected_us


def test_bad_arguments(catalog):
    with pytest.raises(vpcat.SubsetError, match=r"13 GPUs asked for, 12 free"):
        vpcat.place(catalog, FOUR_NODE_FREE, 13)
    with pytest.raises(vpcat.SubsetError, match=r"4294967295 GPUs asked for, 12 free"):
        vpcat.place(catalog, FOUR_NODE_FREE, 2**32 - 1)  # no uniform matrix of that size built first
    with pytest.raises(vpcat.SubsetError, match=r"free GPU 1 is 32, the catalog has 32 GPUs"):
        vpcat.place(catalog, [3, 32], 1)
    with pytest.raises(vpcat.SubsetError, match=r"free GPU 5 is listed twice"):
        vpcat.place(catalog, [5, 9, 5], 1)
    with pytest.raises(vpcat.SubsetError):
        vpcat.place(catalog, FOUR_NODE_FREE, 0)
    with pytest.raises(vpcat.OptionsError, match=r"slack"):
        vpcat.place(catalog, FOUR_NODE_FREE, 4, slack=-1)
    with pytest.raises(vpcat.DemandError):
        vpcat.place(catalog, FOUR_NODE_FREE, 4, demand=np.zeros((3, 3), dtype=np.uint64))
    with pytest.raises(ValueError, match=r"uniform_bytes"):
        vpcat.place(catalog, FOUR_NODE_FREE, 4, uniform_bytes=0)
    with pytest.raises(TypeError):
        vpcat.place(catalog, [-1], 1)
