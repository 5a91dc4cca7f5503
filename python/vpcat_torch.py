"""vpcat.torch: torch.distributed.all_to_all_single planned by VarioPath.

    import vpcat
    vpcat.torch.all_to_all_single(output, input, output_split_sizes, input_split_sizes, group=None)

Same meaning and argument order as torch.distributed.all_to_all_single
(split sizes in elements of dim 0; equal splits when omitted). Per call:

1. the counts: every rank all-gathers its row of bytes (one int64 per rank),
   so every rank holds the group's whole demand matrix;
2. the plan: the planner of the ranks' GPUs (the catalog VPCAT_CATALOG, ranks
   mapped to GPUs exactly as the MPI executor maps them: VPCAT_RANK_MAP, or
   host names and CUDA_VISIBLE_DEVICES; docs/mpi.md) plans it; while the
   counts repeat their plan is reused (the last PLAN_CACHE count matrices);
3. the steps: one after the other, each a torch.distributed.batch_isend_irecv
   of its messages (isend/irecv where the backend lacks batching). A payload
   relayed through another rank is staged there and forwarded in a later step.

Where the catalog does not fit the group (no VPCAT_CATALOG, more ranks than
GPUs, a host not in the catalog, a bad VPCAT_* value, a planner error) the
call runs on torch's own all_to_all_single instead (an isend/irecv fan-out
where the backend has none), said once per group by a warning on its rank 0;
with VPCAT_STRICT=1 (rank 0's value) every rank raises RuntimeError instead.

Settings are the MPI interposer's variables, read by its own parser (the
binding's vpcat._env_settings; docs/mpi.md "Settings"): VPCAT_DEBUG,
VPCAT_DEBUG_RANKS, VPCAT_STRICT and the planner's options (VPCAT_LATENCY_US,
VPCAT_MAX_STEPS, ...), the values of the group's rank 0, read when a group is
first used. VPCAT_DEBUG=INFO prints, in the interposer's words, the settings
(once per process), the catalog (when a process opens one) and each group's
rank-to-GPU map.

A new membership (a group of torch.distributed.new_group, a default group
after destroy_process_group and init_process_group) is set up at its first
call: VPCAT_CATALOG, VPCAT_RANK_MAP and the settings are read again then, and
the catalog file is opened again when its name or the file (device, inode,
size, modification time) changed, so running processes take a catalog grown
by `vp-catalog resize` without re-analysis and without a restart.
docs/engines.md "Rescaling without restart".

Loaded by `vpcat.torch` (the compiled module imports it on first use only).
"""
import os
import socket
import sys
import threading
import time
import warnings
from collections import OrderedDict, deque

import numpy as np
import torch
import torch.distributed as dist

import vpcat as _vpcat

__all__ = ["all_to_all_single", "set_plan_options", "stats", "release", "Step", "resolve", "run_steps"]

_VISIBLE_VARS = ("CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")
# An offset for tags, so that ours never match an application's messages.
_TAG_BASE = 0x5643 << 8
# Plans kept per group, the most recently used first: an MoE layer alternates
# a few count matrices (the counts themselves, dispatch, its transpose for the
# combine), each reused while the router's counts repeat.
PLAN_CACHE = 16


class Step:
    """One step of a plan in ranks: hops (src, dst, origin, final, bytes)."""

    __slots__ = ("hops",)

    def __init__(self, hops):
        self.hops = list(hops)


def _global_rank(group, r):
    if group is None or group is dist.group.WORLD:
        return r
    if hasattr(dist, "get_global_rank"):
        return dist.get_global_rank(group, r)
    return dist.distributed_c10d._get_global_rank(group, r)


# ---- the plan in ranks, resolved for one rank (as mpi/src/exec.cpp resolve) ----


class _Resolved:
    """What rank `me` does: per step, receives then sends; each a list of
    segments (kind, stream, offset, length) of its message, in order."""

    __slots__ = ("steps", "arena_bytes")

    def __init__(self):
        self.steps = []  # [(recvs, sends)], each a list of (peer, nbytes, segs, tag)
        self.arena_bytes = 0


SEND, RECV, ARENA = 0, 1, 2


def resolve(steps, ranks, me, send_len, recv_len, demand=None):
    """Simulate the plan `steps` (a list of Step, hops in ranks) over `ranks`
    ranks and list what rank `me` does. A payload origin -> final is a byte
    stream: its first hops (src == origin) take its next bytes in plan order,
    a hop into a relay stages them there, a hop out of a relay takes the oldest
    bytes staged there (received in an earlier step). send_len[f] / recv_len[o]:
    this rank's stream lengths. With `demand` (ranks x ranks bytes), checks
    that the plan delivers exactly it. Raises ValueError when the plan cannot
    run (every rank with the same inputs raises the same)."""
    out = _Resolved()
    cursor = {}  # (origin, final) -> first-hop bytes so far
    arena = {}  # relay rank -> staging bytes so far
    staged = {}  # (relay, origin, final) -> deque of [payload_offset, len, arena_offset, step]
    tag = 0
    for s, step in enumerate(steps):
        recvs, sends = [], []
        for (src, dst, origin, final, nbytes) in step.hops:
            if not (0 <= src < ranks and 0 <= dst < ranks and 0 <= origin < ranks and 0 <= final < ranks) or \
                    src == dst or nbytes <= 0 or origin == final or dst == origin or src == final:
                raise ValueError("step %d: hop %d->%d of payload %d->%d: not a valid hop" % (s, src, dst, origin, final))
            tag += 1
            pieces = []  # (payload_offset, len, arena_offset at src)
            if src == origin:
                c = cursor.get((origin, final), 0)
                pieces.append((c, nbytes, 0))
                cursor[(origin, final)] = c + nbytes
            else:
                q = staged.get((src, origin, final))
                need = nbytes
                while need > 0:
                    if not q or q[0][3] >= s:
                        raise ValueError("step %d: hop %d->%d of payload %d->%d forwards bytes rank %d has not "
                                         "received in an earlier step" % (s, src, dst, origin, final, src))
                    front = q[0]
                    take = min(front[1], need)
                    pieces.append((front[0], take, front[2]))
                    front[0] += take
                    front[2] += take
                    front[1] -= take
                    need -= take
                    if front[1] == 0:
                        q.popleft()
            recv_segs, send_segs = [], []
            for (poff, plen, aoff) in pieces:
                dst_arena = 0
                if dst != final:
                    dst_arena = arena.get(dst, 0)
                    arena[dst] = dst_arena + plen
                    staged.setdefault((dst, origin, final), deque()).append([poff, plen, dst_arena, s])
                if src == me:
                    if src == origin:
                        if poff + plen > send_len[final]:
                            raise ValueError("step %d: hop %d->%d sends past the %d bytes of the payload"
                                             % (s, src, dst, send_len[final]))
                        send_segs.append((SEND, final, poff, plen))
                    else:
                        send_segs.append((ARENA, 0, aoff, plen))
                if dst == me:
                    if dst == final:
                        if poff + plen > recv_len[origin]:
                            raise ValueError("step %d: hop %d->%d delivers past the %d bytes rank %d expects from "
                                             "rank %d" % (s, src, dst, recv_len[origin], me, origin))
                        recv_segs.append((RECV, origin, poff, plen))
                    else:
                        recv_segs.append((ARENA, 0, dst_arena, plen))
            if dst == me:
                recvs.append((src, nbytes, recv_segs, tag))
            if src == me:
                sends.append((dst, nbytes, send_segs, tag))
        out.steps.append((recvs, sends))
    for key, q in staged.items():
        for st in q:
            if st[1] > 0:
                raise ValueError("the plan leaves %d bytes of payload %d->%d at relay rank %d"
                                 % (st[1], key[1], key[2], key[0]))
    if demand is not None:
        for o in range(ranks):
            for f in range(ranks):
                if o != f and cursor.get((o, f), 0) != int(demand[o][f]):
                    raise ValueError("the plan moves %d bytes of payload %d->%d, the demand %d"
                                     % (cursor.get((o, f), 0), o, f, int(demand[o][f])))
    out.arena_bytes = arena.get(me, 0)
    return out


def _post(ops, group, batched):
    if not ops:
        return
    if batched:
        for w in dist.batch_isend_irecv(ops):
            w.wait()
        return
    works = [op.op(op.tensor, op.peer, op.group, op.tag) for op in ops]
    for w in works:
        w.wait()


def run_steps(resolved, send_at, recv_at, group=None, batched=True):
    """Run a resolved plan: send_at[f] / recv_at[o] are 1-D uint8 tensors
    (this rank's stream to f, from o). Per step: the receives and sends at
    once, then wait; a message of several segments goes through a temporary."""
    me_arena = torch.empty(resolved.arena_bytes, dtype=torch.uint8)

    def where(seg):
        kind, stream, off, length = seg
        if kind == SEND:
            return send_at[stream][off:off + length]
        if kind == RECV:
            return recv_at[stream][off:off + length]
        return me_arena[off:off + length]

    for recvs, sends in resolved.steps:
        ops, scatter = [], []
        for (peer, nbytes, segs, tag) in recvs:
            buf = where(segs[0]) if len(segs) == 1 else torch.empty(nbytes, dtype=torch.uint8)
            if len(segs) > 1:
                scatter.append((buf, segs))
            ops.append(dist.P2POp(dist.irecv, buf, _global_rank(group, peer), group, _TAG_BASE + tag))
        for (peer, nbytes, segs, tag) in sends:
            buf = where(segs[0]) if len(segs) == 1 else torch.cat([where(g) for g in segs])
            ops.append(dist.P2POp(dist.isend, buf, _global_rank(group, peer), group, _TAG_BASE + tag))
        _post(ops, group, batched)
        for buf, segs in scatter:
            at = 0
            for g in segs:
                where(g).copy_(buf[at:at + g[3]])
                at += g[3]


# ---- per group: the catalog, the rank map, the planner, its plans ----


class _Stats:
    def __init__(self):
        self.calls = 0
        self.planned = 0  # calls that made a new plan
        self.reused = 0  # calls that found their plan in the cache
        self.fallbacks = 0
        self.fallback_reason = None

    def as_dict(self):
        return dict(calls=self.calls, planned=self.planned, reused=self.reused, fallbacks=self.fallbacks,
                    fallback_reason=self.fallback_reason)


_LEVELS = {"NONE": 0, "WARN": 1, "INFO": 2}


def _say(settings, level, rank, text):
    """One line in the MPI interposer's shape (mpi/src/pmpi_log.cpp):
    host:pid:tid [rank] VPCAT LEVEL what; filtered by VPCAT_DEBUG and
    VPCAT_DEBUG_RANKS."""
    if _LEVELS[level] > _LEVELS[settings["debug"]] or (rank != 0 and not settings["debug_all_ranks"]):
        return
    sys.stderr.write("%s:%d:%d [%d] VPCAT %s %s\n" % (socket.gethostname(), os.getpid(), threading.get_native_id(),
                                                     rank, level, text))
    sys.stderr.flush()


def _file_identity(path):
    """What says a catalog file changed: device, inode, size, modification time."""
    try:
        st = os.stat(path)
    except OSError as e:
        return "stat: %s" % e.strerror
    return "%d:%d:%d:%d" % (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class _Process:
    """What this process keeps across groups: the catalog it last opened
    (and from which name and file identity), whether the settings were said."""

    def __init__(self):
        self.catalog_key = None
        self.catalog = None
        self.catalog_error = None
        self.settings_said = False


_process = _Process()


def _open_catalog(key, settings, rank):
    """The catalog of `key` (path, identity: rank 0's), opened again when the
    key changed since this process last opened one; (catalog, None) or (None, why)."""
    p = _process
    if key != p.catalog_key:
        replacing = p.catalog_key is not None
        p.catalog_key, p.catalog, p.catalog_error = key, None, None
        t0 = time.perf_counter()
        try:
            p.catalog = _vpcat.Catalog.open(key[0])
        except (_vpcat.Error, OSError, ValueError) as e:
            p.catalog_error = "%s: %s" % (key[0], e)
        ms = (time.perf_counter() - t0) * 1e3
        if p.catalog is not None:
            c = p.catalog
            names = ",".join(c.node_names)
            if len(names) > 120:
                names = names[:120] + "..."
            args = ("new " if replacing else "", key[0]) + tuple(c.format_version) + tuple(c.writer_version) + \
                (c.gpu_count, c.node_count, names, ms)
            _say(settings, "INFO", rank, "%scatalog %s: format %d.%d, written by vpcat %d.%d.%d, %d GPUs on %d nodes "
                 "(%s), opened and verified in %.1f ms" % args)
    return p.catalog, p.catalog_error


class _Context:
    def __init__(self, group):
        self.group = group
        self.size = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        self.stats = _Stats()
        self.reason = None  # why the group falls back; None when VarioPath serves it
        self.warned = False
        self.options = None
        self.planner = None
        self.planner_gpu = None  # rank -> planner GPU
        self.rank_of_planner_gpu = None
        self.cache = OrderedDict()  # counts matrix bytes -> _Resolved for this rank
        self.batched = hasattr(dist, "batch_isend_irecv")
        self.torch_alltoall = None  # whether the backend has all_to_all_single (fallback); None: untried
        self.setup_ms = 0.0  # the new membership to its planner: gather, catalog, map, subset planner
        self._setup()

    def _setup(self):
        # Every rank reports its host and visible devices; rank 0's VPCAT_*
        # variables and catalog file count (as in libvpcat_mpi and the interposer).
        t0 = time.perf_counter()
        host = os.environ.get("VPCAT_HOSTNAME") or socket.gethostname()
        var, value = "", ""
        for v in _VISIBLE_VARS:
            if os.environ.get(v):
                var, value = v, os.environ[v]
                break
        env = None
        key = None
        if self.rank == 0:
            env = {k: v for k, v in os.environ.items() if k.startswith("VPCAT_")}
            path = env.get("VPCAT_CATALOG")
            key = (path, _file_identity(path)) if path else None
        mine = (host, var, value, env, key)
        infos = [None] * self.size
        dist.all_gather_object(infos, mine, group=self.group)
        env, key = infos[0][3], infos[0][4]
        settings = _vpcat._env_settings(env)
        self.settings = settings
        self.strict = settings["strict"]
        if settings["error"] is None:
            self.options = settings["plan"]
            if not _process.settings_said:
                _process.settings_said = True
                plan_set = settings["plan_set"]
                _say(settings, "INFO", self.rank, "settings: strict %d, plan mode every (every rank plans); plan "
                     "options %s%s" % (1 if self.strict else 0, settings["plan_text"],
                                       " (from %s)" % plan_set if plan_set else ""))
        rank_map = env.get("VPCAT_RANK_MAP") or None
        reason = None
        gpus = None
        if settings["error"] is not None:
            reason = settings["error"]
        elif key is None:
            reason = "VPCAT_CATALOG is not set"
        else:
            cat, reason = _open_catalog(key, settings, self.rank)
            if cat is not None:
                try:
                    world_ranks = [_global_rank(self.group, r) for r in range(self.size)]
                    gpus = list(_vpcat._map_ranks(cat, [i[:3] for i in infos], rank_map, world_ranks,
                                                  dist.get_world_size()))
                    held = sorted(gpus)
                    self.planner = _vpcat.Planner(cat, gpus=held)
                    index = {g: k for k, g in enumerate(held)}
                    self.planner_gpu = [index[g] for g in gpus]
                    self.rank_of_planner_gpu = [0] * self.size
                    for r, pg in enumerate(self.planner_gpu):
                        self.rank_of_planner_gpu[pg] = r
                except (ValueError, _vpcat.Error, OSError) as e:
                    reason = "%s: %s" % (key[0], e)
        # Fall back on every rank when any rank cannot plan (a file readable on some hosts only).
        reasons = [None] * self.size
        dist.all_gather_object(reasons, reason, group=self.group)
        bad = [(r, x) for r, x in enumerate(reasons) if x]
        if bad:
            r, x = bad[0]
            self.reason = x if r == 0 else "rank %d: %s" % (r, x)
            self.planner = None
            gpus = None
        self.gpu_of_rank = gpus  # catalog GPU of every rank (None when falling back)
        self.setup_ms = (time.perf_counter() - t0) * 1e3
        if gpus is not None:
            _say(settings, "INFO", self.rank, "group of %d ranks: ranks -> GPUs %s (%s), ready in %.1f ms"
                 % (self.size, _vpcat._format_rank_map(gpus), "VPCAT_RANK_MAP" if rank_map else "by host name",
                    self.setup_ms))
            if settings["debug_all_ranks"]:
                g = _process.catalog.gpu(gpus[self.rank])
                names = _process.catalog.node_names
                node = names[g["node"]] if g["node"] < len(names) and names[g["node"]] else str(g["node"])
                _say(settings, "INFO", self.rank, "rank %d -> GPU %d: node %s, local GPU %d%s"
                     % (self.rank, gpus[self.rank], node, g["local_index"],
                        ", " + g["device_name"] if g["device_name"] else ""))

    def say_fallback_once(self, reason):
        """Count a call on torch's collective; rank 0 warns on the group's first.
        VPCAT_STRICT=1: raise instead (on every rank: the reason is the group's)."""
        if self.strict:
            raise RuntimeError("vpcat.torch: all_to_all_single cannot run through VarioPath (VPCAT_STRICT=1, no "
                               "fallback to torch.distributed): %s" % reason)
        self.stats.fallbacks += 1
        self.stats.fallback_reason = reason
        if not self.warned:
            self.warned = True
            if self.rank == 0:
                warnings.warn("vpcat.torch: all_to_all_single runs on torch.distributed (%s)" % reason,
                              RuntimeWarning, stacklevel=3)

    def plan(self, matrix):
        """What this rank does for `matrix` (ranks x ranks bytes, int64): a
        _Resolved plan, from the cache while the same counts come again."""
        key = matrix.tobytes()
        hit = self.cache.get(key)
        if hit is not None:
            self.cache.move_to_end(key)
            self.stats.reused += 1
            return hit
        n = self.size
        demand = np.zeros((n, n), dtype=np.uint64)
        pg = np.asarray(self.planner_gpu)
        demand[np.ix_(pg, pg)] = matrix
        np.fill_diagonal(demand, 0)
        steps = []
        if demand.any():
            plan = self.planner.plan(demand, self.options) if self.options is not None else self.planner.plan(demand)
            rk = np.asarray(self.rank_of_planner_gpu)
            src, dst = rk[plan.src], rk[plan.dst]
            origin, final = rk[plan.origin], rk[plan.final]
            nbytes = plan.bytes
            first, size = plan.step_first, plan.step_size
            for s in range(plan.step_count):
                a, b = int(first[s]), int(first[s]) + int(size[s])
                steps.append(Step(zip(src[a:b].tolist(), dst[a:b].tolist(), origin[a:b].tolist(),
                                      final[a:b].tolist(), nbytes[a:b].tolist())))
        self.stats.planned += 1
        me = self.rank
        resolved = resolve(steps, n, me, matrix[me].tolist(), matrix[:, me].tolist(), matrix)
        self.cache[key] = resolved
        while len(self.cache) > PLAN_CACHE:
            self.cache.popitem(last=False)
        return resolved


_contexts = {}


def _context(group):
    key = group if group is not None else dist.group.WORLD
    ctx = _contexts.get(key)
    if ctx is None:
        ctx = _contexts[key] = _Context(group)
    return ctx


def release(group=None):
    """Forget the group's plans and planner (local; call it before
    destroy_process_group). A later call on a group of the same object sets
    it up again: VPCAT_CATALOG, VPCAT_RANK_MAP and the settings read anew."""
    _contexts.pop(group if group is not None else dist.group.WORLD, None)


def set_plan_options(options, group=None):
    """Plan options (a vpcat.PlanOptions, or None for the planner's defaults)
    for the group's later calls, instead of those of the environment
    (VPCAT_LATENCY_US, ...); a collective call on the group the first time
    (it sets the group up). docs/engines.md "Plan options"."""
    if options is not None and options.nic_loopback:
        raise ValueError("vpcat.torch: nic_loopback routes between ranks of one host, which "
                         "torch.distributed cannot force (docs/planner.md)")
    ctx = _context(group)
    ctx.options = options
    ctx.cache.clear()


def stats(group=None):
    """Counters of the group's calls: calls, planned, reused, fallbacks,
    fallback_reason; and setup_ms, what setting the group up took on this rank
    (the all-gathers of hosts and settings, the catalog, the rank map, the
    subset planner)."""
    ctx = _context(group)
    return dict(ctx.stats.as_dict(), setup_ms=ctx.setup_ms)


# ---- the collective ----


def _splits(sizes, rows, n, what):
    if sizes is None:
        if rows % n:
            raise ValueError("vpcat.torch.all_to_all_single: %s has %d rows, not divisible by the group's %d ranks"
                             % (what, rows, n))
        return [rows // n] * n
    sizes = [int(x) for x in sizes]
    if len(sizes) != n or any(x < 0 for x in sizes) or sum(sizes) != rows:
        raise ValueError("vpcat.torch.all_to_all_single: %s split sizes %s: want %d sizes >= 0 summing to its %d rows"
                         % (what, sizes, n, rows))
    return sizes


def _row_bytes(t):
    inner = 1
    for d in t.shape[1:]:
        inner *= d
    return inner * t.element_size()


def _bytes_of(t):
    """A 1-D uint8 view of a contiguous tensor (its bytes, no copy)."""
    flat = t.reshape(-1)
    if flat.numel() == 0:
        return torch.empty(0, dtype=torch.uint8)
    return flat.view(torch.uint8)


def _torch_fallback(ctx, output, input, out_splits, in_splits, group):
    if ctx.torch_alltoall is not False:
        try:
            dist.all_to_all_single(output, input, out_splits, in_splits, group=group)
            ctx.torch_alltoall = True
            return
        except RuntimeError:
            if ctx.torch_alltoall:
                raise
            ctx.torch_alltoall = False  # the backend lacks it (gloo on some builds): the same on every rank
    # A fan-out of isend/irecv: every pair in one batch.
    n, me = ctx.size, ctx.rank
    src = _bytes_of(input.contiguous())
    dst_t = output if output.is_contiguous() else torch.empty_like(output, memory_format=torch.contiguous_format)
    dst = _bytes_of(dst_t)
    ib, ob = _row_bytes(input), _row_bytes(output)
    ioff = np.concatenate([[0], np.cumsum(in_splits)]) * ib
    ooff = np.concatenate([[0], np.cumsum(out_splits)]) * ob
    ops = []
    for p in range(n):
        if p == me:
            dst[int(ooff[p]):int(ooff[p + 1])].copy_(src[int(ioff[p]):int(ioff[p + 1])])
            continue
        if ooff[p + 1] > ooff[p]:
            ops.append(dist.P2POp(dist.irecv, dst[int(ooff[p]):int(ooff[p + 1])], _global_rank(group, p), group,
                                  _TAG_BASE))
        if ioff[p + 1] > ioff[p]:
            ops.append(dist.P2POp(dist.isend, src[int(ioff[p]):int(ioff[p + 1])], _global_rank(group, p), group,
                                  _TAG_BASE))
    _post(ops, group, ctx.batched)
    if dst_t is not output:
        output.copy_(dst_t)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None):
    """torch.distributed.all_to_all_single (CPU tensors: what the backend's
    isend/irecv take), planned by VarioPath: rank i's input rows
    [sum(input_split_sizes[:j]), ... + input_split_sizes[j]) land in rank j's
    output at its output_split_sizes[i] rows. output and input have the same
    dtype and the same shape past dim 0. A collective call on the group."""
    if output.dtype != input.dtype or tuple(output.shape[1:]) != tuple(input.shape[1:]):
        raise ValueError("vpcat.torch.all_to_all_single: output %s %s and input %s %s differ past dim 0"
                         % (output.dtype, tuple(output.shape), input.dtype, tuple(input.shape)))
    ctx = _context(group)
    ctx.stats.calls += 1
    n, me = ctx.size, ctx.rank
    if input.dim() == 0 or output.dim() == 0:
        raise ValueError("vpcat.torch.all_to_all_single: tensors of at least one dimension")
    in_rows, out_rows = input.shape[0], output.shape[0]
    in_splits = _splits(input_split_sizes, in_rows, n, "input")
    out_splits = _splits(output_split_sizes, out_rows, n, "output")
    if ctx.reason is not None:
        ctx.say_fallback_once(ctx.reason)
        _torch_fallback(ctx, output, input, out_splits, in_splits, group)
        return

    # 1. The counts: every rank's row of bytes, and what it expects to
    # receive, so that every rank finds a mismatch (and raises the same).
    rb = _row_bytes(input)
    row = torch.tensor([x * rb for x in in_splits] + [x * rb for x in out_splits], dtype=torch.int64)
    rows = [torch.empty(2 * n, dtype=torch.int64) for _ in range(n)]
    dist.all_gather(rows, row, group=group)
    both = torch.stack(rows).numpy()
    matrix, expected = both[:, :n], both[:, n:]  # expected[r][o]: bytes rank r expects from o
    if not (matrix.T == expected).all():
        r = int(np.nonzero((matrix.T != expected).any(axis=1))[0][0])
        raise ValueError("vpcat.torch.all_to_all_single: rank %d expects %s bytes from the ranks, they send it %s"
                         % (r, expected[r].tolist(), matrix[:, r].tolist()))
    matrix = np.ascontiguousarray(matrix)

    # 2. The plan (a cached one while the counts repeat). A plan the planner
    # refuses (the same on every rank): this call on torch's collective.
    try:
        resolved = ctx.plan(matrix)
    except (_vpcat.Error, ValueError) as e:
        ctx.say_fallback_once("planning: %s" % e)
        _torch_fallback(ctx, output, input, out_splits, in_splits, group)
        return

    # 3. The steps, byte-exact on the streams' bytes.
    src = _bytes_of(input.contiguous())
    dst_t = output if output.is_contiguous() else torch.empty_like(output, memory_format=torch.contiguous_format)
    dst = _bytes_of(dst_t)
    ioff = np.concatenate([[0], np.cumsum(matrix[me])]).tolist()
    ooff = np.concatenate([[0], np.cumsum(matrix[:, me])]).tolist()
    send_at = [src[ioff[p]:ioff[p + 1]] for p in range(n)]
    recv_at = [dst[ooff[p]:ooff[p + 1]] for p in range(n)]
    if ioff[me + 1] > ioff[me]:
        recv_at[me].copy_(send_at[me])
    run_steps(resolved, send_at, recv_at, group, ctx.batched)
    if dst_t is not output:
        output.copy_(dst_t)
