"""Shared fixtures of the vpcat binding's tests (ctest python_binding sets
PYTHONPATH to the built module and VP_FIXTURES_DIR to fixtures/)."""
import os
import pathlib

import numpy as np
import pytest

import vpcat

FIXTURES = pathlib.Path(os.environ.get("VP_FIXTURES_DIR", pathlib.Path(__file__).resolve().parents[2] / "fixtures"))
# Four nodes of the evaluation platform (8 GPUs each) on one switch.
SWITCH4 = FIXTURES / "catalogs" / "golden" / "pcie-gen4-2s4sw8g-4n-switch.vpcat"
# Four "quad" nodes on a rail fabric (the corrupt fixtures' base), format 1.0.
QUAD_RAIL4 = FIXTURES / "catalogs" / "format-1.0" / "quad-rail4.vpcat"
CORRUPT = FIXTURES / "corrupt"


@pytest.fixture(scope="session")
def catalog():
    return vpcat.Catalog.open(SWITCH4)


@pytest.fixture(scope="session")
def planner(catalog):
    return vpcat.Planner(catalog)


def delivered(plan, n):
    """Bytes per (origin, final) summed over every transfer of the plan."""
    out = np.zeros((n, n), dtype=np.uint64)
    np.add.at(out, (plan.origin, plan.final), plan.bytes)
    return out


def off_diagonal(demand):
    d = np.array(demand, dtype=np.uint64)
    np.fill_diagonal(d, 0)
    return d


def skewed(n, seed=7):
    """A Zipf-skewed MoE-like demand: a few hot destination GPUs."""
    rng = np.random.default_rng(seed)
    weight = 1.0 / np.arange(1, n + 1) ** 1.2
    hot = rng.permutation(n)
    d = np.outer(rng.integers(1, 4, n), weight[hot]) * (1 << 20)
    return d.astype(np.uint64)
