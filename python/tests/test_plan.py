"""vpcat.Planner and vpcat.Plan: delivery, arrays, zero copy, options, threads."""
import sys
import threading
import time

import numpy as np
import pytest

import vpcat
from conftest import delivered, off_diagonal, skewed


def uniform(n, nbytes=1 << 20):
    return np.full((n, n), nbytes, dtype=np.uint64)


@pytest.mark.parametrize("shape", ["uniform", "skewed"])
@pytest.mark.parametrize("allow_shared", [False, True])
def test_every_byte_delivered_once(planner, shape, allow_shared):
    n = planner.gpu_count
    demand = uniform(n) if shape == "uniform" else skewed(n)
    plan = planner.plan(demand, vpcat.PlanOptions(allow_shared=allow_shared))
    assert np.array_equal(delivered(plan, n), off_diagonal(demand))
    assert plan.total_bytes == int(off_diagonal(demand).sum()) == int(plan.bytes.sum())
    assert plan.gpus == n and len(plan) == plan.step_count > 0
    assert np.all(plan.bytes > 0)
    # No relays in this version: every hop is its payload's whole path.
    assert np.array_equal(plan.src, plan.origin) and np.array_equal(plan.dst, plan.final)
    assert plan.expected_us == pytest.approx(float(plan.step_expected_us.sum()))
    assert 5.0 < plan.bound_us <= plan.expected_us * (1 + 1e-12)


def test_array_dtypes_and_shapes(planner):
    plan = planner.plan(skewed(planner.gpu_count))
    t, s = plan.transfer_count, plan.step_count
    expected = {"src": np.uint32, "dst": np.uint32, "origin": np.uint32, "final": np.uint32, "bytes": np.uint64,
                "solo_gbps": np.float64, "src_nic": np.uint16, "dst_nic": np.uint16, "steps": np.uint32}
    for name, dtype in expected.items():
        a = getattr(plan, name)
        assert a.dtype == dtype and a.shape == (t,), name
    for name, dtype in {"step_first": np.uint64, "step_size": np.uint32, "step_ports": np.uint32,
                        "step_expected_us": np.float64, "step_shared": np.bool_}.items():
        a = getattr(plan, name)
        assert a.dtype == dtype and a.shape == (s,), name
    assert plan.transfers.shape == (t,) and plan.transfers.dtype.itemsize == 40
    assert plan.transfers.dtype.names == ("src", "dst", "origin", "final", "bytes", "solo_gbps", "src_nic", "dst_nic")


def test_steps_tile_the_transfers(planner):
    plan = planner.plan(skewed(planner.gpu_count))
    first, size = plan.step_first.astype(np.int64), plan.step_size.astype(np.int64)
    assert first[0] == 0 and np.array_equal(first[1:], np.cumsum(size)[:-1])
    assert int(size.sum()) == plan.transfer_count
    assert np.array_equal(plan.steps, np.repeat(np.arange(plan.step_count), size))
    for i in (0, plan.step_count - 1, -1):
        sl = plan.step_slice(i)
        assert np.all(plan.steps[sl] == (i % plan.step_count))
    with pytest.raises(IndexError):
        plan.step_slice(plan.step_count)


def test_channel_steps_are_one_port(planner):
    plan = planner.plan(skewed(planner.gpu_count), vpcat.PlanOptions(channels_only=True))
    assert not plan.step_shared.any() and np.all(plan.step_ports == 1)
    for i in range(plan.step_count):
        sl = plan.step_slice(i)
        assert len(np.unique(plan.src[sl])) == plan.step_size[i]
        assert len(np.unique(plan.dst[sl])) == plan.step_size[i]


def test_shared_step_flag(planner):
    plan = planner.plan(uniform(planner.gpu_count), vpcat.PlanOptions(channels_only=True, allow_shared=True))
    shared = plan.step_shared
    assert shared.any() == (plan.step_ports.max() > 1)
    if shared.any():  # only ever the last step
        assert shared[-1] and not shared[:-1].any()


@pytest.mark.parametrize("per_pair", [1024, 1 << 20])
def test_default_plans_flag_every_step_that_shares(planner, per_pair):
    n = planner.gpu_count
    plan = planner.plan(uniform(n, per_pair))
    assert np.array_equal(delivered(plan, n), off_diagonal(uniform(n, per_pair)))
    assert not (plan.step_ports > 1)[~plan.step_shared].any()  # a step with several ports per GPU says it shares


def test_arrays_are_read_only_views_of_the_plan(planner):
    plan = planner.plan(uniform(planner.gpu_count))
    for name in ("src", "dst", "origin", "final", "bytes", "solo_gbps", "src_nic", "step_first", "step_shared"):
        a = getattr(plan, name)
        assert a.base is plan, name
        assert not a.flags.writeable, name
        with pytest.raises(ValueError):
            a[0] = 0
    # Every field array is a view into the one transfer table.
    table = plan.transfers
    assert table.base is plan
    for name in ("src", "bytes", "dst_nic"):
        assert np.shares_memory(table, getattr(plan, name))
        assert np.array_equal(table[name], getattr(plan, name))
    assert np.shares_memory(plan.src, table["src"])
    assert not np.shares_memory(plan.src, plan.dst)


def test_views_keep_the_plan_alive(planner):
    n = planner.gpu_count
    demand = skewed(n)
    src = planner.plan(demand).bytes  # the Plan object itself is gone
    expected = planner.plan(demand).bytes.copy()
    for _ in range(3):
        planner.plan(uniform(n, 12345))  # allocations that would reuse freed memory
    assert np.array_equal(src, expected)


def test_demand_read_in_place_or_converted(planner):
    n = planner.gpu_count
    base = skewed(n)
    reference = planner.plan(base)
    cases = {
        "uint64": (base, False),
        "int64": (base.astype(np.int64), False),
        "float64": (base.astype(np.float64), False),
        "uint32": (base.astype(np.uint32), True),
        "int16 small": ((base >> 20).astype(np.int16) << 0, True),
        "fortran": (np.asfortranarray(base), True),
        "transposed twice": (base.T.copy().T, True),
        "big-endian": (base.astype(">u8"), True),
        "list": (base.tolist(), True),
    }
    for name, (demand, copied) in cases.items():
        plan = planner.plan(demand)
        assert plan.demand_copied == copied, name
        want = off_diagonal(np.asarray(demand).astype(np.uint64))
        assert np.array_equal(delivered(plan, n), want), name
    same = planner.plan(np.ascontiguousarray(base))
    assert np.array_equal(same.bytes, reference.bytes)  # deterministic


def test_read_only_demand_is_accepted(planner):
    d = uniform(planner.gpu_count)
    d.setflags(write=False)
    assert not planner.plan(d).demand_copied


def test_zero_demand_gives_no_steps(planner):
    n = planner.gpu_count
    d = np.zeros((n, n), dtype=np.uint64)
    np.fill_diagonal(d, 99)  # a GPU's own bytes never move
    plan = planner.plan(d)
    assert plan.step_count == 0 and plan.transfer_count == 0 and plan.total_bytes == 0
    assert plan.src.shape == (0,) and plan.steps.shape == (0,)


def test_options(planner, catalog):
    n = planner.gpu_count
    o = vpcat.PlanOptions(latency_us=2.5, chunk_align_bytes=4096, min_chunk_bytes=8192)
    assert (o.latency_us, o.chunk_align_bytes, o.allow_shared) == (2.5, 4096, False)
    assert "latency_us=2.5" in repr(o) and "nic_loopback=False" in repr(o)
    assert vpcat.PlanOptions(nic_loopback=True).nic_loopback and not o.nic_loopback
    plan = planner.plan(skewed(n) * 4096, o)
    assert np.array_equal(delivered(plan, n), off_diagonal(skewed(n) * 4096))
    p2 = vpcat.Planner(catalog, vpcat.PlanOptions(allow_shared=True))
    assert p2.options.allow_shared and p2.catalog is catalog
    assert not o.channels_only and vpcat.PlanOptions(channels_only=True).channels_only
    p2.options = vpcat.PlanOptions(max_steps=1, channels_only=True)
    with pytest.raises(vpcat.PlanError) as info:
        p2.plan(skewed(n))
    assert info.value.name == "step_limit" and info.value.code == vpcat.STATUS["step_limit"]


def test_route_queries(planner, catalog):
    plan = planner.plan(uniform(planner.gpu_count))
    links = planner.route_links(plan, 0)
    assert links.dtype == np.uint64 and links.size >= 1
    # Inter-node transfers leave through a NIC, intra-node ones do not.
    inter = np.nonzero(catalog.node_of_gpu[plan.src] != catalog.node_of_gpu[plan.dst])[0]
    intra = np.nonzero(catalog.node_of_gpu[plan.src] == catalog.node_of_gpu[plan.dst])[0]
    assert np.all(plan.src_nic[inter] != vpcat.NO_NIC) and np.all(plan.src_nic[intra] == vpcat.NO_NIC)
    assert planner.route_forwarders(plan, -1).dtype == np.uint64
    with pytest.raises(IndexError):
        planner.route_links(plan, plan.transfer_count)
    other = vpcat.Planner(catalog)
    with pytest.raises(ValueError):
        other.route_links(plan, 0)


def test_planning_in_threads(catalog):
    """Planning releases the GIL: threads plan at once (one Planner each, and
    several threads sharing one Planner), and Python code keeps running."""
    n = catalog.gpu_count
    demands = [skewed(n, seed) for seed in range(6)]
    expected = [delivered(vpcat.Planner(catalog).plan(d), n) for d in demands]
    shared = vpcat.Planner(catalog)
    results, errors = {}, []
    ticks = [0]
    done = threading.Event()

    def work(k, planner):
        try:
            for _ in range(3):
                results[k] = delivered(planner.plan(demands[k]), n)
        except Exception as e:  # reported below
            errors.append(e)

    def ticker():
        while not done.is_set():
            ticks[0] += 1

    threads = [threading.Thread(target=work, args=(k, shared if k % 2 else vpcat.Planner(catalog)))
               for k in range(len(demands))]
    t = threading.Thread(target=ticker)
    t.start()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    done.set()
    t.join()
    assert not errors
    for k in range(len(demands)):
        assert np.array_equal(results[k], expected[k])
        assert np.array_equal(results[k], off_diagonal(demands[k]))
    assert ticks[0] > 0


def test_gil_released_while_planning(catalog):
    """With a switch interval far longer than the test, a thread gets the GIL
    only when its holder releases it. The ticker hands it back at once
    (sleep(0)); the main thread does nothing but plan, so the ticker can only
    tick while a plan() call has released the GIL."""
    planner = vpcat.Planner(catalog, vpcat.PlanOptions(channels_only=True))  # channel steps: a long search
    demand = skewed(catalog.gpu_count) * 64
    ticks = [0]
    stop = threading.Event()
    running = threading.Event()

    def ticker():
        running.set()
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0)

    old = sys.getswitchinterval()
    th = threading.Thread(target=ticker)
    th.start()
    running.wait()
    sys.setswitchinterval(1000.0)
    try:
        before = ticks[0]
        for _ in range(20):
            planner.plan(demand)
        during = ticks[0] - before
    finally:
        sys.setswitchinterval(old)
        stop.set()
        th.join()
    assert during > 0


def test_subset_planner(catalog):
    """A planner over a job's GPUs (docs/subsets.md): ranks in the order given,
    gpu_map back to the catalog, every byte delivered, bad subsets named."""
    gpus = [9, 8, 10, 30, 31, 2]
    sub = vpcat.Planner(catalog, gpus=gpus)
    assert sub.gpu_count == 6
    assert list(sub.gpu_map) == gpus
    n = sub.gpu_count
    demand = np.full((n, n), 1 << 20, dtype=np.uint64)
    np.fill_diagonal(demand, 0)
    plan = sub.plan(demand)
    assert np.array_equal(delivered(plan, n), demand)
    with pytest.raises(vpcat.SubsetError) as info:
        vpcat.Planner(catalog, gpus=[9, 30, 8])
    assert info.value.name == "bad_subset" and info.value.code == vpcat.STATUS["bad_subset"] == 111
    assert "node 1 is listed twice" in str(info.value)
    with pytest.raises(vpcat.SubsetError):
        vpcat.Planner(catalog, gpus=[])
    with pytest.raises(vpcat.DemandError):
        sub.plan(np.zeros((32, 32), dtype=np.uint64))


def test_subset_planners_keep_derivations():
    """A Catalog keeps its partial nodes' derivations for every subset Planner
    on it (docs/subsets.md "Kept across planners"): a second planner of the
    same fragmented subset, which reuses them, plans transfer for transfer as
    a planner on a freshly opened catalog, which derives them afresh."""
    from conftest import SWITCH4
    gpus = [0, 1, 2, 9, 10, 11, 12, 13, 17, 20, 25, 26, 27, 28, 29, 30]  # four partial nodes
    n = len(gpus)
    demand = skewed(n, seed=3)
    shared = vpcat.Catalog.open(SWITCH4)
    plans = []
    for cat in (shared, shared, vpcat.Catalog.open(SWITCH4)):
        plan = vpcat.Planner(cat, gpus=gpus).plan(demand)
        assert np.array_equal(delivered(plan, n), off_diagonal(demand))
        plans.append(plan)
    for other in plans[1:]:
        assert other.step_count == plans[0].step_count
        assert other.expected_us == plans[0].expected_us
        assert np.array_equal(other.transfers, plans[0].transfers)


class _Device:
    def __init__(self, kind):
        self.type = kind

    def __str__(self):
        return self.type + ":0"


class _DeviceTensor:
    """A stand-in for a CUDA tensor (no GPU here): what the binding looks at."""

    def __init__(self, kind, dl_type):
        self.device = _Device(kind)
        self._dl = dl_type

    def __dlpack_device__(self):
        return (self._dl, 0)

    def __dlpack__(self, stream=None):
        raise AssertionError("a device tensor must be refused before it is read")


@pytest.mark.parametrize("kind,dl_type", [("cuda", 2), ("cpu", 2), ("cuda", 1)])
def test_device_tensor_refused_with_advice(planner, kind, dl_type):
    with pytest.raises(TypeError, match="pass the counts on the host"):
        planner.plan(_DeviceTensor(kind, dl_type))
