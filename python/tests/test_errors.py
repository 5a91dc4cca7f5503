"""Bad demands and options: Python exceptions with the planner's status."""
import numpy as np
import pytest

import vpcat


def square(n, dtype=np.uint64, value=1 << 20):
    return np.full((n, n), value, dtype=dtype)


@pytest.mark.parametrize("shape", [(32,), (31, 31), (33, 33), (32, 31), (2, 32, 32), (0, 0)])
def test_wrong_shape(planner, shape):
    with pytest.raises(vpcat.DemandError) as info:
        planner.plan(np.ones(shape, dtype=np.uint64))
    e = info.value
    assert isinstance(e, ValueError) and isinstance(e, vpcat.PlanError) and isinstance(e, vpcat.Error)
    assert (e.code, e.name) == (105, "demand_size")
    assert e.message.startswith("demand: demand size does not match the catalog (shape (")
    assert "expected (32, 32)" in e.message and e.cell is None


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8])
def test_negative_entry(planner, dtype):
    d = square(planner.gpu_count, dtype, 7)
    d[3, 5] = -2
    with pytest.raises(vpcat.DemandError) as info:
        planner.plan(d)
    e = info.value
    assert (e.code, e.name, e.cell) == (106, "bad_demand_value", (3, 5))
    assert e.message == "demand [3][5]: demand entry is not a byte count (-2: bytes must be a finite whole number >= 0)"


@pytest.mark.parametrize("value", [0.5, -1.0, np.nan, np.inf])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_entry_that_is_no_byte_count(planner, value, dtype):
    d = square(planner.gpu_count, dtype, 4096)
    d[1, 2] = value
    with pytest.raises(vpcat.DemandError) as info:
        planner.plan(d)
    assert (info.value.name, info.value.cell) == ("bad_demand_value", (1, 2))
    assert info.value.message.startswith("demand [1][2]: demand entry is not a byte count (")


def test_whole_floats_are_byte_counts(planner):
    n = planner.gpu_count
    plan = planner.plan(square(n, np.float64, 3.0 * (1 << 20)))
    assert not plan.demand_copied and plan.total_bytes == 3 * (1 << 20) * n * (n - 1)


def test_overflow(planner):
    d = square(planner.gpu_count, np.uint64, 0)
    d[0, 1] = np.uint64(1 << 63) + np.uint64(1)
    with pytest.raises(vpcat.DemandError) as info:
        planner.plan(d)
    assert info.value.name == "demand_overflow"
    d[0, 1] = 1 << 62
    d[2, 3] = 1 << 62
    d[4, 5] = 1 << 62
    with pytest.raises(vpcat.DemandError) as info:
        planner.plan(d)
    assert info.value.name == "demand_overflow"


@pytest.mark.parametrize("make", [
    lambda n: np.ones((n, n), dtype=bool),
    lambda n: np.ones((n, n), dtype=np.complex128),
    lambda n: np.full((n, n), "1"),
    lambda n: np.array([[object()] * n] * n),
    lambda n: np.ones((n, n), dtype=np.longdouble) if np.dtype(np.longdouble).itemsize > 8 else np.ones((n, n), dtype=bool),
    lambda n: np.zeros((n, n), dtype="datetime64[s]"),
])
def test_dtype_that_is_no_byte_count(planner, make):
    with pytest.raises(TypeError) as info:
        planner.plan(make(planner.gpu_count))
    assert info.value.args[0].startswith("demand: demand entry is not a byte count (dtype ")


def test_bad_options(planner):
    n = planner.gpu_count
    for field, value in (("latency_us", -1.0), ("latency_us", float("nan")), ("min_step_latencies", float("inf")),
                         ("chunk_align_bytes", 0), ("max_steps", 0)):
        o = vpcat.PlanOptions()
        setattr(o, field, value)
        with pytest.raises(vpcat.OptionsError) as info:
            planner.plan(square(n), o)
        e = info.value
        assert isinstance(e, ValueError) and (e.code, e.name) == (103, "bad_options")
        assert e.message.startswith(f"options.{field}: invalid plan option (")
    with pytest.raises(TypeError):
        vpcat.PlanOptions(max_steps=-1)
    with pytest.raises(TypeError):
        vpcat.PlanOptions(5.0)  # keywords only


def test_planner_needs_a_catalog():
    with pytest.raises(TypeError) as info:
        vpcat.Planner("cluster.vpcat")
    assert "vpcat.Catalog" in str(info.value)


def test_a_failed_plan_leaves_the_planner_usable(planner):
    n = planner.gpu_count
    with pytest.raises(vpcat.DemandError):
        planner.plan(np.ones((3, 3)))
    plan = planner.plan(square(n))
    assert plan.total_bytes == (1 << 20) * n * (n - 1)


def test_status_table():
    assert vpcat.STATUS["ok"] == 0 and vpcat.STATUS["bad_magic"] == 4
    assert vpcat.STATUS["demand_size"] == 105 and vpcat.STATUS["not_found"] == 203
    assert len(set(vpcat.STATUS.values())) == len(vpcat.STATUS)


def test_errors_pickle_and_print():
    import pickle
    e = vpcat.DemandError("demand [1][2]: x", 106, "bad_demand_value", None, None, (1, 2))
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is vpcat.DemandError and (back.code, back.name, back.cell) == (106, "bad_demand_value", (1, 2))
    assert str(back) == "demand [1][2]: x"
