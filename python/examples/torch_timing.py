#!/usr/bin/env python3
"""Per-call cost of vpcat.torch.all_to_all_single against torch's own, on gloo
ranks of this machine (forked), and where vpcat.torch's time goes: the counts
all-gather, a new plan (planning + resolving it for the rank), the steps.

    PYTHONPATH=build-test/python python3 python/examples/torch_timing.py CATALOG --ranks 8 [--calls 20] [--rescale K]

Ranks map to the catalog's first GPUs of as many nodes as needed, four per node.
Prints rank 0's medians (ms). On a machine with fewer cores than ranks, every
step waits for the scheduler: the absolute times are this machine's, not a
GPU server's.
"""
import argparse
import os
import statistics
import tempfile
import time


def worker(rank, ranks, store, args):
    import numpy as np
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=ranks)
    import vpcat_torch as vt
    rng = np.random.default_rng(1)
    splits = rng.integers(0, 64, (ranks, ranks))
    inp = torch.randn(int(splits[rank].sum()), args.hidden)
    out = torch.empty(int(splits[:, rank].sum()), args.hidden)
    a, b = splits[:, rank].tolist(), splits[rank].tolist()
    vt.all_to_all_single(out, inp, a, b)  # set up the group, plan once
    ctx = vt._context(None)
    t = {"torch": [], "vpcat (plan reused)": [], "counts all_gather": [], "new plan + resolve": []}
    for _ in range(args.calls):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_to_all_single(out, inp, a, b)
        t["torch"].append(time.perf_counter() - t0)
        dist.barrier()
        t0 = time.perf_counter()
        vt.all_to_all_single(out, inp, a, b)
        t["vpcat (plan reused)"].append(time.perf_counter() - t0)
        row = torch.tensor(b, dtype=torch.int64)
        rows = [torch.empty(ranks, dtype=torch.int64) for _ in range(ranks)]
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_gather(rows, row)
        t["counts all_gather"].append(time.perf_counter() - t0)
        m = torch.stack(rows).numpy() * inp.shape[1] * 4
        ctx.cache.clear()
        t0 = time.perf_counter()
        ctx.plan(m)
        t["new plan + resolve"].append(time.perf_counter() - t0)
    if rank == 0:
        steps = len(ctx.plan(m).steps)
        print("%d ranks, %d calls, %d steps in the plan; medians on rank 0:" % (ranks, args.calls, steps))
        for k, v in t.items():
            print("  %-22s %8.2f ms" % (k, statistics.median(v) * 1e3))
    if args.rescale:
        rescale(rank, ranks, args, rng)
    dist.barrier()
    dist.destroy_process_group()


def rescale(rank, ranks, args, rng):
    """New memberships (docs/engines.md "Rescaling without restart"): groups of
    part of the ranks (rank 0 in each), their set-up (counts of nothing: the
    all-gathers of hosts and settings, the catalog, the rank map, the subset
    planner) and their first call; rank 0's medians over --rescale repetitions."""
    import numpy as np
    import torch
    import torch.distributed as dist
    import vpcat_torch as vt
    others = [r for r in range(1, ranks)]
    kinds = [("one node removed", [r for r in range(ranks) if r // 4 != 1]),
             ("half", list(range(ranks // 2))),
             ("random 3/4", [0] + sorted(rng.choice(others, size=3 * ranks // 4 - 1, replace=False).tolist()))]
    if rank == 0:
        print("new groups, %d repetitions; medians (max) on rank 0, ms:" % args.rescale)
        print("  %-18s %5s %18s %18s %18s" % ("group", "ranks", "new_group (torch)", "vpcat set-up", "first call"))
    for name, members in kinds:
        t_new, t_setup, t_first = [], [], []
        for _ in range(args.rescale):
            dist.barrier()
            t0 = time.perf_counter()
            g = dist.new_group(members)
            t_new.append(time.perf_counter() - t0)
            if rank in members:
                n = len(members)
                me = members.index(rank)
                splits = np.random.default_rng(7).integers(0, 16, (n, n))
                inp = torch.randn(int(splits[me].sum()), args.hidden)
                out = torch.empty(int(splits[:, me].sum()), args.hidden)
                t0 = time.perf_counter()
                vt.all_to_all_single(out, inp, splits[:, me].tolist(), splits[me].tolist(), group=g)
                t_first.append(time.perf_counter() - t0)
                t_setup.append(vt.stats(g)["setup_ms"] / 1e3)
                vt.release(g)
            dist.destroy_process_group(g)
        if rank == 0:
            f = lambda v: "%8.2f (%7.2f)" % (statistics.median(v) * 1e3, max(v) * 1e3)
            print("  %-18s %5d %18s %18s %18s" % (name, len(members), f(t_new), f(t_setup), f(t_first)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("catalog")
    p.add_argument("--ranks", type=int, default=8)
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--rescale", type=int, default=0, metavar="K",
                   help="also time K new groups of each kind (one node removed, half, a random 3/4)")
    args = p.parse_args()
    import torch.multiprocessing as mp
    nodes = (args.ranks + 3) // 4
    os.environ["VPCAT_CATALOG"] = args.catalog
    import vpcat
    cat = vpcat.Catalog.open(args.catalog)
    per_node = cat.gpu_count // cat.node_count
    gpus = [n * per_node + g for n in range(nodes) for g in range(4)][: args.ranks]
    os.environ["VPCAT_RANK_MAP"] = ",".join(map(str, gpus))
    fd, store = tempfile.mkstemp(prefix="vpcat-timing-store-")
    os.close(fd)
    os.unlink(store)
    try:
        mp.start_processes(worker, args=(args.ranks, store, args), nprocs=args.ranks, start_method="fork")
    finally:
        if os.path.exists(store):
            os.unlink(store)


if __name__ == "__main__":
    main()
