#!/usr/bin/env python3
"""Plan the AlltoAllv of an MoE layer's token dispatch with vpcat.

A router picks the top-k experts of every token; each expert lives on one GPU
and each token is held by one GPU. Every (token, expert) pair whose expert is
on another GPU sends the token's hidden state there: that is the demand
matrix D[src][dst] (bytes). vpcat plans it into contention-free steps.

    python3 moe_router.py CATALOG.vpcat [--tokens 4096] [--top-k 2]
                         [--experts-per-gpu 4] [--hidden 4096] [--dtype-bytes 2]
                         [--skew 1.2] [--seed 1] [--allow-shared]
"""
import argparse
import sys

import numpy as np

import vpcat


def router_top_k(tokens, experts, k, skew, rng):
    """The top-k expert ids of every token (tokens x k, int64), as a router's
    softmax gives them: logits with a Zipf-like popularity (exponent `skew`)
    plus Gumbel noise, so a few experts are hot and each token's k experts
    are distinct."""
    popularity = np.log(1.0 / np.arange(1, experts + 1) ** skew)
    popularity = popularity[rng.permutation(experts)]  # hot experts anywhere
    logits = popularity + rng.gumbel(size=(tokens, experts))
    return np.argpartition(-logits, k - 1, axis=1)[:, :k]


def dispatch_demand(top_k, token_gpu, expert_gpu, gpus, bytes_per_token):
    """The demand matrix (gpus x gpus, uint64 bytes) of sending every token
    to the GPUs of its top-k experts. A token that picks two experts on one
    GPU is sent there once; a token's own GPU needs no transfer (the planner
    ignores the diagonal)."""
    token = np.repeat(np.arange(top_k.shape[0]), top_k.shape[1])
    pairs = np.unique(token * gpus + expert_gpu[top_k.reshape(-1)])  # one copy per (token, destination GPU)
    src = token_gpu[pairs // gpus]
    dst = pairs % gpus
    counts = np.bincount(src * gpus + dst, minlength=gpus * gpus)
    return (counts.reshape(gpus, gpus) * bytes_per_token).astype(np.uint64)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("catalog")
    ap.add_argument("--tokens", type=int, default=4096, help="tokens in the batch (all GPUs together)")
    ap.add_argument("--top-k", type=int, default=2)
    ap.add_argument("--experts-per-gpu", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=4096, help="hidden size (elements per token)")
    ap.add_argument("--dtype-bytes", type=int, default=2, help="bytes per element (2: bf16)")
    ap.add_argument("--skew", type=float, default=1.2, help="Zipf exponent of expert popularity")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--allow-shared", action="store_true", help="PlanOptions.allow_shared")
    args = ap.parse_args(argv)

    try:
        cat = vpcat.Catalog.open(args.catalog)
    except vpcat.CatalogError as e:
        print(f"moe_router: {e.message}", file=sys.stderr)
        return 2
    gpus = cat.gpu_count
    experts = gpus * args.experts_per_gpu
    if not 1 <= args.top_k <= experts:
        print(f"moe_router: --top-k {args.top_k}: must be in 1..{experts} (the experts)", file=sys.stderr)
        return 1
    rng = np.random.default_rng(args.seed)

    expert_gpu = np.arange(experts) // args.experts_per_gpu  # expert e on GPU e // experts_per_gpu
    token_gpu = np.arange(args.tokens) % gpus                # tokens spread over the GPUs
    top_k = router_top_k(args.tokens, experts, args.top_k, args.skew, rng)
    demand = dispatch_demand(top_k, token_gpu, expert_gpu, gpus, args.hidden * args.dtype_bytes)

    planner = vpcat.Planner(cat, vpcat.PlanOptions(allow_shared=args.allow_shared))
    plan = planner.plan(demand)

    # Every byte delivered exactly once per (origin, final).
    got = np.zeros_like(demand)
    np.add.at(got, (plan.origin, plan.final), plan.bytes)
    want = demand.copy()
    np.fill_diagonal(want, 0)
    if not np.array_equal(got, want):
        print("moe_router: the plan does not deliver the demand", file=sys.stderr)
        return 4

    recv = want.sum(axis=0)
    print(f"catalog: {cat.gpu_count} GPUs on {cat.node_count} nodes ({', '.join(cat.node_names)})")
    print(f"router: {args.tokens} tokens, top-{args.top_k} of {experts} experts, {args.hidden * args.dtype_bytes} bytes/token")
    print(f"demand: {int(want.sum())} bytes off the diagonal; busiest receiver GPU {int(recv.argmax())} "
          f"gets {int(recv.max())} bytes ({recv.max() / max(recv.mean(), 1):.2f}x the mean)")
    print(f"plan: {plan.step_count} steps, {plan.transfer_count} transfers, expected {plan.expected_us:.1f} us"
          f"{' (last step shared)' if plan.step_shared.any() else ''}")
    for i in range(min(plan.step_count, 3)):
        sl = plan.step_slice(i)
        pairs = ", ".join(f"{s}->{d}" for s, d in zip(plan.src[sl][:4], plan.dst[sl][:4]))
        more = " ..." if plan.step_size[i] > 4 else ""
        print(f"  step {i}: {plan.step_size[i]} transfers, {plan.step_expected_us[i]:.1f} us: {pairs}{more}")
    print("every byte delivered once: yes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
