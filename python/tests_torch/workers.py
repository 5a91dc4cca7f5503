"""What the spawned ranks of the vpcat.torch tests run (importable by the
children of torch.multiprocessing.spawn). Every rank generates every rank's
input from a seed, so it knows its expected output without a collective."""
import os
import tempfile
import time
import warnings

import numpy as np
import torch
import torch.distributed as dist


def init(rank, world, store_file, env):
    os.environ.update(env(rank) if callable(env) else env)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + store_file, rank=rank, world_size=world)


def spawn(fn, world, env, *args, timeout=120):
    """Run fn(rank, world, *args) on `world` gloo ranks (forked); a failure on any
    rank fails the caller. `env`: the ranks' environment, or a function of the
    rank giving it. Ranks still running after `timeout` seconds are killed."""
    import torch.multiprocessing as mp
    fd, store = tempfile.mkstemp(prefix="vpcat-torch-store-")
    os.close(fd)
    os.unlink(store)
    try:
        # fork: the children start with torch imported (spawn re-imports it in
        # each, 1-2 s of CPU per rank on this machine's 2 cores); the parent
        # has no process group and, under ctest, OMP_NUM_THREADS=1.
        ctx = mp.start_processes(_entry, args=(world, store, env, fn, args), nprocs=world, join=False,
                                 start_method="fork")
        deadline = time.monotonic() + timeout
        while not ctx.join(timeout=1):  # raises when a rank failed
            if time.monotonic() > deadline:  # a rank waits for a message that never comes
                for p in ctx.processes:
                    p.kill()
                raise TimeoutError("%s on %d ranks: not done after %d s" % (fn.__name__, world, timeout))
    finally:
        if os.path.exists(store):
            os.unlink(store)


def _entry(rank, world, store, env, fn, args):
    init(rank, world, store, env)
    try:
        fn(rank, world, *args)
        dist.barrier()
    finally:
        dist.destroy_process_group()


# ---- cases: (name, dtype, inner shape, splits matrix [src][dst] in rows) ----

def random_splits(world, seed, high=6, zero_frac=0.3):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, high, (world, world))
    s[rng.random((world, world)) < zero_frac] = 0
    return s


def moe_skewed(world, seed, tokens=24, k=2):
    """Top-k routing with a Zipf-hot set of ranks: a few ranks receive most."""
    rng = np.random.default_rng(seed)
    w = 1.0 / np.arange(1, world + 1) ** 1.3
    w = w[rng.permutation(world)]
    w /= w.sum()
    s = np.zeros((world, world), dtype=np.int64)
    for src in range(world):
        dests = rng.choice(world, size=(tokens, k), p=w)
        np.add.at(s[src], dests.reshape(-1), 1)
    return s


def rank_input(src, rows, inner, dtype, seed):
    g = torch.Generator().manual_seed(seed * 1000 + src)
    shape = (rows,) + tuple(inner)
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype) if not dtype.is_complex else \
            torch.randn(shape, generator=g, dtype=dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    info = torch.iinfo(dtype)
    return torch.randint(max(info.min, -2**31), min(info.max, 2**31 - 1), shape, generator=g, dtype=torch.int64).to(dtype)


def expected_output(me, splits, inner, dtype, seed):
    parts = []
    for src in range(splits.shape[0]):
        inp = rank_input(src, int(splits[src].sum()), inner, dtype, seed)
        off = int(splits[src, :me].sum())
        parts.append(inp[off:off + int(splits[src, me])])
    return torch.cat(parts)


def same_bytes(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.numel() == 0:
        return True
    return torch.equal(a.contiguous().reshape(-1).view(torch.uint8), b.contiguous().reshape(-1).view(torch.uint8))


def run_case(me, world, splits, inner, dtype, seed, a2a, non_contiguous=False, equal=False, out_strided=False,
             group=None):
    if group is not None:
        me, world = dist.get_rank(group), dist.get_world_size(group)
    assert splits.shape == (world, world)
    inp = rank_input(me, int(splits[me].sum()), inner, dtype, seed)
    if non_contiguous:  # the same values in a transposed buffer
        inp = inp.transpose(0, -1).contiguous().transpose(0, -1) if inp.dim() > 1 else inp.repeat_interleave(2)[::2]
        assert not inp.is_contiguous() or inp.numel() <= 1
    rows_out = int(splits[:, me].sum())
    if out_strided:
        big = torch.zeros((rows_out, 2) + tuple(inner), dtype=dtype)
        out = big[:, 0]
    else:
        out = torch.empty((rows_out,) + tuple(inner), dtype=dtype)
    if equal:
        a2a(out, inp, group=group)
    else:
        a2a(out, inp, splits[:, me].tolist(), splits[me].tolist(), group=group)
    want = expected_output(me, splits, inner, dtype, seed)
    assert same_bytes(out, want), "rank %d: dtype %s seed %d: output differs" % (me, dtype, seed)


def planned_cases(me, world):
    """On VarioPath's path: random and skewed splits, dtypes, empty splits,
    non-contiguous input and output, equal splits, the plan reused."""
    import vpcat
    a2a = vpcat.torch.all_to_all_single
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback here
        run_case(me, world, random_splits(world, 1), (3,), torch.float32, 1, a2a)
        run_case(me, world, moe_skewed(world, 2), (8,), torch.bfloat16, 2, a2a)
        run_case(me, world, moe_skewed(world, 3), (), torch.int64, 3, a2a)
        run_case(me, world, random_splits(world, 4, zero_frac=0.8), (2, 2), torch.uint8, 4, a2a)
        zero = random_splits(world, 5)
        zero[1 % world, :] = 0
        zero[:, (world - 1)] = 0  # a rank that sends nothing, one that receives nothing
        run_case(me, world, zero, (5,), torch.float64, 5, a2a)
        run_case(me, world, np.zeros((world, world), dtype=np.int64), (4,), torch.float32, 6, a2a)
        run_case(me, world, random_splits(world, 7), (3, 2), torch.int16, 7, a2a, non_contiguous=True)
        run_case(me, world, random_splits(world, 8), (4,), torch.complex64, 8, a2a, out_strided=True)
        run_case(me, world, np.full((world, world), 2), (3,), torch.bool, 9, a2a, equal=True)
        before = vpcat.torch.stats()
        rs = random_splits(world, 10)
        for seed in (11, 12, 13):  # the same counts: one plan, reused
            run_case(me, world, rs, (6,), torch.float16, seed, a2a)
        after = vpcat.torch.stats()
        assert after["planned"] - before["planned"] == 1, (before, after)
        assert after["reused"] - before["reused"] == 2, (before, after)
        assert after["fallbacks"] == 0, after
        # Two count matrices in turn (a dispatch and its combine): both plans kept.
        a, b = random_splits(world, 14), random_splits(world, 15)
        for splits, seed in ((a, 16), (b, 17), (a, 18), (b, 19)):
            run_case(me, world, splits, (2,), torch.float32, seed, a2a)
        last = vpcat.torch.stats()
        assert (last["planned"] - after["planned"], last["reused"] - after["reused"]) == (2, 2), (after, last)


def fallback_cases(me, world):
    """A catalog that does not fit (a host it lacks): torch's collective, or
    the isend/irecv fan-out, said once on rank 0; still byte-exact."""
    import vpcat
    vt = vpcat.torch
    a2a = vt.all_to_all_single
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_case(me, world, random_splits(world, 21), (3,), torch.float32, 21, a2a)
        run_case(me, world, moe_skewed(world, 22), (), torch.int32, 22, a2a)
    said = [w for w in caught if "vpcat.torch" in str(w.message)]
    assert len(said) == (1 if me == 0 else 0), [str(w.message) for w in said]
    if me == 0:
        assert "login9" in str(said[0].message) and "match none of the job's hosts" in str(said[0].message), str(said[0].message)
    ctx = vt._context(None)
    assert ctx.reason is not None and vt.stats()["fallbacks"] == 2
    # The backend without all_to_all_single, and without batching: the fan-out.
    ctx.torch_alltoall, ctx.batched = False, False
    run_case(me, world, random_splits(world, 23, zero_frac=0.5), (2,), torch.float64, 23, a2a, non_contiguous=True)
    ctx.batched = True
    run_case(me, world, moe_skewed(world, 24), (4,), torch.bfloat16, 24, a2a)


def relay_cases(me, world):
    """A plan with a relay (payload 0 -> 2 through rank 1, in two pieces over
    two steps), run by run_steps: both batched and isend/irecv."""
    from vpcat_torch import Step, resolve, run_steps
    assert world == 3
    demand = np.array([[0, 10, 7], [3, 0, 0], [0, 5, 0]])
    steps = [Step([(0, 1, 0, 2, 4), (0, 1, 0, 1, 10), (2, 1, 2, 1, 5)]),
             Step([(1, 2, 0, 2, 4), (0, 1, 0, 2, 3), (1, 0, 1, 0, 3)]),
             Step([(1, 2, 0, 2, 3)])]
    for batched in (True, False):
        g = torch.Generator().manual_seed(99 + me)
        src = torch.randint(0, 256, (int(demand[me].sum()),), generator=g, dtype=torch.int64).to(torch.uint8)
        out = torch.zeros(int(demand[:, me].sum()), dtype=torch.uint8)
        ioff = np.concatenate([[0], np.cumsum(demand[me])])
        ooff = np.concatenate([[0], np.cumsum(demand[:, me])])
        r = resolve(steps, 3, me, demand[me].tolist(), demand[:, me].tolist(), demand)
        run_steps(r, [src[ioff[p]:ioff[p + 1]] for p in range(3)], [out[ooff[p]:ooff[p + 1]] for p in range(3)],
                  None, batched)
        want = []
        for o in range(3):
            go = torch.Generator().manual_seed(99 + o)
            so = torch.randint(0, 256, (int(demand[o].sum()),), generator=go, dtype=torch.int64).to(torch.uint8)
            off = int(demand[o, :me].sum())
            want.append(so[off:off + int(demand[o, me])] if o != me else torch.zeros(0, dtype=torch.uint8))
        got = torch.cat([out[ooff[o]:ooff[o + 1]] for o in range(3) if o != me])
        assert torch.equal(got, torch.cat([w for o, w in enumerate(want) if o != me])), (me, batched)


def sixteen(me, world):
    """16 ranks, four per node, mapped by host name and CUDA_VISIBLE_DEVICES;
    then two subgroups of 5 and 2 ranks (group ranks are not global ranks)."""
    import vpcat
    planned_cases(me, world)
    g5 = dist.new_group([0, 3, 5, 10, 15])
    g2 = dist.new_group([2, 13])
    a2a = vpcat.torch.all_to_all_single
    for group, members in ((g5, [0, 3, 5, 10, 15]), (g2, [2, 13])):
        if me not in members:
            continue
        n = len(members)
        run_case(me, n, random_splits(n, 31), (3,), torch.float32, 31, a2a, group=group)
        run_case(me, n, moe_skewed(n, 32), (), torch.int64, 32, a2a, group=group, non_contiguous=True)
        run_case(me, n, np.full((n, n), 3), (2,), torch.bfloat16, 33, a2a, group=group, equal=True)
        st = vpcat.torch.stats(group)
        assert st["fallbacks"] == 0 and st["planned"] == 3, st
    # A plan the planner refuses (one channel step cannot carry 5 ranks'
    # all-to-all): that call on torch's collective, said once, the next ones
    # planned again.
    if me in (0, 3, 5, 10, 15):
        vpcat.torch.set_plan_options(vpcat.PlanOptions(max_steps=1, channels_only=True), group=g5)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run_case(me, 5, np.full((5, 5), 2), (3,), torch.float32, 34, a2a, group=g5)
        said = [str(w.message) for w in caught if "vpcat.torch" in str(w.message)]
        assert len(said) == (1 if me == 0 else 0) and all("step_limit" in x or "steps" in x for x in said), said
        vpcat.torch.set_plan_options(None, group=g5)
        run_case(me, 5, np.full((5, 5), 2), (3,), torch.float32, 35, a2a, group=g5)
        st = vpcat.torch.stats(g5)
        assert (st["fallbacks"], st["planned"]) == (1, 4) and "planning" in st["fallback_reason"], st
    # Split sizes that disagree: every rank raises the same error (no hang).
    try:
        bad = np.full((world, world), 1)
        out = torch.empty(world + (1 if me == 7 else 0), 2)
        outs = [1] * world + ([1] if me == 7 else [])
        outs = outs[:world - 1] + [sum(outs[world - 1:])]
        a2a(out, torch.zeros(world, 2), outs, bad[me].tolist())
        raise AssertionError("a mismatch went through")
    except ValueError as e:
        assert "rank 7 expects" in str(e), str(e)


def with_catalog(catalog, rank):
    """Rank r on node gpu0{1 + r // 4}, its visible GPU r % 4."""
    return {"VPCAT_CATALOG": catalog, "VPCAT_HOSTNAME": "gpu0%d" % (1 + rank // 4),
            "CUDA_VISIBLE_DEVICES": str(rank % 4)}


def strict_refusal(me, world):
    """VPCAT_STRICT=1 and a catalog of other hosts: every rank raises, naming why."""
    import vpcat
    x = torch.arange(world, dtype=torch.float32)
    try:
        vpcat.torch.all_to_all_single(torch.empty(world), x)
    except RuntimeError as e:
        assert "VPCAT_STRICT=1, no fallback to torch.distributed" in str(e), str(e)
        assert "match none of the job's hosts" in str(e) and "login9" in str(e), str(e)
    else:
        raise AssertionError("rank %d: no error under VPCAT_STRICT=1" % me)


def fallback_and_relays(me, world):
    fallback_cases(me, world)
    relay_cases(me, world)


# ---- rescaling without restart (docs/engines.md "Rescaling without restart") ----

def elastic(me, world, installed, staged):
    """8 ranks on the 4-node catalog `installed` with a world-indexed
    VPCAT_RANK_MAP; groups of 4 and 6 of them; then `staged` (the catalog
    grown onto 6 nodes by vp-catalog resize) renamed over `installed`, the
    map set anew, and the default group set up again (vpcat.torch.release).
    Byte-exact throughout; what VPCAT_DEBUG=INFO says on stderr (read here:
    every rank captures its own)."""
    import io
    import re
    import sys
    import vpcat
    vt = vpcat.torch
    a2a = vt.all_to_all_single
    said = io.StringIO()
    sys.stderr, stderr = said, sys.stderr
    try:
        run_case(me, world, moe_skewed(world, 41), (3,), torch.float32, 41, a2a)
        assert vt._context(None).options.latency_us == 3.0  # VPCAT_LATENCY_US, the interposer's parser
        g4 = dist.new_group([4, 5, 6, 7])  # shrink to 4 ...
        g6 = dist.new_group([0, 1, 2, 3, 4, 5])  # ... and grow to 6
        if me >= 4:
            run_case(me, 4, random_splits(4, 42), (2,), torch.int32, 42, a2a, group=g4)
        if me < 6:
            run_case(me, 6, moe_skewed(6, 43), (), torch.float64, 43, a2a, group=g6, non_contiguous=True)
        # The grown catalog installed over the file in use, a map onto the new nodes.
        dist.barrier()
        if me == 0:
            os.rename(staged, installed)
        dist.barrier()
        os.environ["VPCAT_RANK_MAP"] = "0-3,40-43"
        vt.release()
        run_case(me, world, random_splits(world, 44), (4,), torch.bfloat16, 44, a2a)
        for group, members in ((None, range(world)), (g4, range(4, 8)), (g6, range(6))):
            if me in members:
                st = vt.stats(group)
                assert st["fallbacks"] == 0 and st["planned"] >= 1 and st["setup_ms"] > 0, st
        assert vt._context(None).gpu_of_rank == [0, 1, 2, 3, 40, 41, 42, 43], vt._context(None).gpu_of_rank
    finally:
        sys.stderr = stderr
    lines = said.getvalue().splitlines()
    p = r"^[^ :]+:[0-9]+:[0-9]+ \[0\] VPCAT INFO "

    def has(regex):
        assert any(re.search(regex, x) for x in lines), (me, regex, lines)

    if me == 0:
        has(p + r"settings: strict 0, plan mode every \(every rank plans\); plan options max_steps=[0-9]+ latency_us=3 "
            r".* \(from VPCAT_LATENCY_US=3\)$")
        has(p + r"catalog .*installed\.vpcat: format 1\.[0-9]+, written by vpcat [0-9.]+, 32 GPUs on 4 nodes "
            r"\(gpu01,gpu02,gpu03,gpu04\), opened and verified in")
        has(p + r"group of 8 ranks: ranks -> GPUs 0-1,8-9,16-17,24-25 \(VPCAT_RANK_MAP\), ready in")
        has(p + r"group of 6 ranks: ranks -> GPUs 0-1,8-9,16-17 \(VPCAT_RANK_MAP\), ready in")
        has(p + r"new catalog .*installed\.vpcat: format 1\.[0-9]+, written by vpcat [0-9.]+, 48 GPUs on 6 nodes")
        has(p + r"group of 8 ranks: ranks -> GPUs 0-3,40-43 \(VPCAT_RANK_MAP\), ready in")
        assert sum("settings:" in x for x in lines) == 1, lines
    if me == 4:  # rank 0 of the group of 4
        has(p + r"group of 4 ranks: ranks -> GPUs 16-17,24-25 \(VPCAT_RANK_MAP\), ready in")
    if me == 3:  # VPCAT_DEBUG_RANKS=all: every rank says its own GPU
        has(r"\[3\] VPCAT INFO rank 3 -> GPU 9: node gpu02, local GPU 1")


def bad_setting(me, world):
    """A bad VPCAT_* value under VPCAT_STRICT=1: every rank raises, naming it."""
    import vpcat
    try:
        vpcat.torch.all_to_all_single(torch.empty(world), torch.arange(world, dtype=torch.float32))
    except RuntimeError as e:
        assert 'VPCAT_LATENCY_US="fast": not a number >= 0' in str(e), str(e)
    else:
        raise AssertionError("rank %d: no error for VPCAT_LATENCY_US=fast under VPCAT_STRICT=1" % me)
