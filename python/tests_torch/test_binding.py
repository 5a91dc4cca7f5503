"""The binding's side of vpcat.torch: CPU tensors as demands without a copy,
the rank map of the MPI executor, the lazy import."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import vpcat
from conftest import SWITCH4


@pytest.fixture(scope="module")
def cat():
    return vpcat.Catalog.open(SWITCH4)


def test_cpu_tensor_is_read_in_place(cat):
    planner = vpcat.Planner(cat, gpus=list(range(8)))
    for dtype in (torch.int64, torch.float64):
        d = torch.full((8, 8), 1 << 20, dtype=dtype)
        d.fill_diagonal_(0)
        plan = planner.plan(d)
        assert not plan.demand_copied
        got = np.zeros((8, 8), dtype=np.uint64)
        np.add.at(got, (plan.origin, plan.final), plan.bytes)
        assert (got == d.numpy().astype(np.uint64)).all()


def test_tensor_shares_memory_with_the_view():
    # What the binding reads: numpy.from_dlpack of the tensor, the same memory.
    d = torch.zeros((4, 4), dtype=torch.int64)
    a = np.from_dlpack(d)
    d[1, 2] = 7
    assert a[1, 2] == 7 and a.ctypes.data == d.data_ptr()


def test_other_tensors_are_converted(cat):
    planner = vpcat.Planner(cat, gpus=list(range(8)))
    d = torch.full((8, 8), 4096, dtype=torch.int32)
    assert planner.plan(d).demand_copied  # int32: converted, as a NumPy int32 would be
    t = torch.full((8, 16), 4096, dtype=torch.int64)[:, ::2]  # strided
    assert planner.plan(t).demand_copied
    with pytest.raises(vpcat.DemandError):
        planner.plan(torch.full((8, 8), -1, dtype=torch.int64))


def test_rank_map_explicit_and_by_host(cat):
    infos = [("gpu02", "", "")] * 3
    assert vpcat._map_ranks(cat, infos) == [8, 9, 10]
    assert vpcat._map_ranks(cat, [("gpu03.cluster", "CUDA_VISIBLE_DEVICES", "5")]) == [21]
    assert vpcat._map_ranks(cat, infos, "8-9,0") == [8, 9, 0]
    with pytest.raises(ValueError, match="rank 1 .host \"login1\".: host not among the catalog's 4 node names"):
        vpcat._map_ranks(cat, [("gpu01", "", ""), ("login1", "", "")])
    # A catalog of other hosts (or without host names): refused as such,
    # unless the rank map is given.
    with pytest.raises(ValueError, match="the catalog's node names match none of the job's hosts: its 4 nodes are "
                                         "gpu01, gpu02, gpu03, ..., the job's 2 hosts are login1, login2"):
        vpcat._map_ranks(cat, [("login1", "", ""), ("login2", "", "")])
    assert vpcat._map_ranks(cat, [("login1", "", ""), ("login2", "", "")], "0,1") == [0, 1]
    with pytest.raises(ValueError, match="both map to GPU 3"):
        vpcat._map_ranks(cat, infos, "3,3,4")
    with pytest.raises(ValueError, match="one rank per GPU"):
        vpcat._map_ranks(cat, [("gpu01", "", "")] * 33)


def test_import_vpcat_does_not_import_torch():
    code = "import sys, vpcat; assert 'torch' not in sys.modules; vpcat.torch; assert 'torch' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, env=os.environ)
    assert vpcat.torch.all_to_all_single.__module__ == "vpcat_torch"
