#!/usr/bin/env python3
"""A toy MoE layer whose dispatch and combine run through vpcat.torch.

Every rank holds `--tokens` tokens and `--experts-per-rank` experts (a linear
map each). The router (a linear map, softmax, top-k) picks k experts per
token; the layer

1. sorts the (token, expert) pairs by the rank of their expert: the input
   split sizes are the pairs per destination rank;
2. exchanges the split sizes (an all_to_all_single of one count per rank) and
   dispatches the tokens' hidden states and their expert ids;
3. applies each local expert to the rows it received;
4. combines: the results go back (the split sizes swapped) and each token
   sums its k results weighted by the router's probabilities.

The same layer runs on torch.distributed.all_to_all_single and on a dense
reference (every rank evaluating every expert on its own tokens); the
VarioPath run must equal the torch run bit for bit and the reference within
rounding. Ranks are gloo processes on this machine:

    PYTHONPATH=build-test/python python3 python/examples/moe_layer.py \\
        --catalog fixtures/catalogs/golden/pcie-gen4-2s4sw8g-4n-switch.vpcat \\
        --ranks 4 --rank-map 0-1,8-9

(--rank-map plays VPCAT_RANK_MAP: which catalog GPU each rank stands for; on
a real cluster the ranks map by host name, docs/mpi.md.)
"""
import argparse
import os
import sys
import tempfile


def router(x, w_router, k):
    """Top-k expert ids and their weights (softmax over the k logits)."""
    import torch
    logits = x @ w_router
    top_v, top_i = torch.topk(logits, k, dim=1)
    return top_i, torch.softmax(top_v, dim=1)


def experts_weights(n_experts, hidden, seed):
    import torch
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n_experts, hidden, hidden, generator=g) / hidden ** 0.5


def moe_forward(x, w_router, w_experts, k, experts_per_rank, a2a, group=None):
    """The layer on one rank: dispatch and combine through `a2a` (an
    all_to_all_single(output, input, output_split_sizes, input_split_sizes, group))."""
    import torch
    import torch.distributed as dist
    ranks = dist.get_world_size(group)
    me = dist.get_rank(group)
    tokens, hidden = x.shape
    top_i, top_w = router(x, w_router, k)
    expert = top_i.reshape(-1)  # one entry per (token, slot)
    token = torch.arange(tokens).repeat_interleave(k)
    dest = torch.div(expert, experts_per_rank, rounding_mode="floor")
    order = torch.argsort(dest, stable=True)
    send_x = x[token[order]]
    send_e = expert[order]
    in_splits = torch.bincount(dest, minlength=ranks)
    # The split sizes: what each rank will receive from each (the counts the
    # router produced; they stay on the host).
    out_splits = torch.empty_like(in_splits)
    a2a(out_splits, in_splits, None, None, group)
    in_list, out_list = in_splits.tolist(), out_splits.tolist()
    recv_x = torch.empty(sum(out_list), hidden, dtype=x.dtype)
    recv_e = torch.empty(sum(out_list), dtype=send_e.dtype)
    a2a(recv_x, send_x, out_list, in_list, group)  # dispatch
    a2a(recv_e, send_e, out_list, in_list, group)
    local = recv_e - me * experts_per_rank
    y = torch.zeros_like(recv_x)
    for e in range(experts_per_rank):
        rows = (local == e).nonzero().reshape(-1)
        if rows.numel():
            y[rows] = recv_x[rows] @ w_experts[me * experts_per_rank + e]
    back = torch.empty_like(send_x)
    a2a(back, y, in_list, out_list, group)  # combine
    per_pair = torch.empty_like(back)
    per_pair[order] = back
    return (per_pair.reshape(tokens, k, hidden) * top_w.unsqueeze(-1)).sum(dim=1)


def dense_reference(x, w_router, w_experts, k):
    """Every expert on every token here: the layer without communication."""
    import torch
    top_i, top_w = router(x, w_router, k)
    out = torch.zeros_like(x)
    for slot in range(k):
        y = torch.einsum("th,thj->tj", x, w_experts[top_i[:, slot]])
        out += top_w[:, slot:slot + 1] * y
    return out


def torch_a2a(output, input, output_split_sizes, input_split_sizes, group):
    import torch.distributed as dist
    dist.all_to_all_single(output, input, output_split_sizes, input_split_sizes, group=group)


def worker(rank, ranks, store, args, env):
    os.environ.update(env)
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=ranks)
    import vpcat
    try:
        n_experts = ranks * args.experts_per_rank
        g = torch.Generator().manual_seed(args.seed)
        w_router = torch.randn(args.hidden, n_experts, generator=g)
        # A few hot experts, as trained routers have: skew the router's bias.
        w_router[:, : max(1, n_experts // 8)] += 1.5
        w_experts = experts_weights(n_experts, args.hidden, args.seed + 1)
        x = torch.randn(args.tokens, args.hidden, generator=torch.Generator().manual_seed(args.seed * 100 + rank))
        for step in range(args.steps):
            xs = x + step
            ours = moe_forward(xs, w_router, w_experts, args.top_k, args.experts_per_rank,
                               vpcat.torch.all_to_all_single)
            theirs = moe_forward(xs, w_router, w_experts, args.top_k, args.experts_per_rank, torch_a2a)
            ref = dense_reference(xs, w_router, w_experts, args.top_k)
            same = torch.equal(ours, theirs)
            close = torch.allclose(ours, ref, rtol=1e-4, atol=1e-4)
            flags = torch.tensor([int(same), int(close)])
            dist.all_reduce(flags, op=dist.ReduceOp.MIN)
            if rank == 0:
                print("step %d: equal to torch's all_to_all_single on every rank: %s; "
                      "close to the dense reference: %s" % (step, "yes" if flags[0] else "NO",
                                                             "yes" if flags[1] else "NO"), flush=True)
            if not (flags[0] and flags[1]):
                raise SystemExit(1)
        s = vpcat.torch.stats()
        if rank == 0:
            print("vpcat.torch: %d calls, %d planned, %d reused, %d fell back%s"
                  % (s["calls"], s["planned"], s["reused"], s["fallbacks"],
                     " (%s)" % s["fallback_reason"] if s["fallback_reason"] else ""), flush=True)
        dist.barrier()
    finally:
        dist.destroy_process_group()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--catalog", help="the cluster's catalog (VPCAT_CATALOG; without it: torch's collective)")
    p.add_argument("--rank-map", help="VPCAT_RANK_MAP: the catalog GPU of each rank (default: by host name)")
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--experts-per-rank", type=int, default=2)
    p.add_argument("--top-k", type=int, default=2)
    p.add_argument("--steps", type=int, default=2, help="forward passes (new tokens each)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    if args.ranks < 1 or args.top_k < 1 or args.top_k > args.ranks * args.experts_per_rank:
        p.error("want --ranks >= 1 and 1 <= --top-k <= ranks x experts-per-rank")
    import torch.multiprocessing as mp
    env = {}
    if args.catalog:
        env["VPCAT_CATALOG"] = args.catalog
    if args.rank_map:
        env["VPCAT_RANK_MAP"] = args.rank_map
    fd, store = tempfile.mkstemp(prefix="vpcat-moe-store-")
    os.close(fd)
    os.unlink(store)
    print("MoE layer: %d ranks x %d experts, top-%d, %d tokens of %d per rank"
          % (args.ranks, args.experts_per_rank, args.top_k, args.tokens, args.hidden), flush=True)
    try:
        mp.spawn(worker, args=(args.ranks, store, args, env), nprocs=args.ranks, join=True)
    except mp.ProcessRaisedException as e:
        print(e, file=sys.stderr)
        return 1
    except mp.ProcessExitedException:
        return 1
    finally:
        if os.path.exists(store):
            os.unlink(store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
