"""Rescaling without restart in vpcat.torch: new groups, a grown catalog
installed while the ranks run; the interposer's settings and voice."""
import os
import shutil
import subprocess

import pytest

import workers
from conftest import SWITCH4


def test_new_groups_and_a_grown_catalog(tmp_path):
    tool = os.environ.get("VP_CATALOG_TOOL")
    if not tool:
        pytest.skip("VP_CATALOG_TOOL (vp-catalog) not given: ctest sets it")
    installed, staged = tmp_path / "installed.vpcat", tmp_path / "staged.vpcat"
    shutil.copyfile(SWITCH4, installed)
    subprocess.run([tool, "resize", str(SWITCH4), "--nodes", "gpu[01-06]", "--out", str(staged)], check=True,
                   stdout=subprocess.DEVNULL)
    env = {"VPCAT_CATALOG": str(installed), "VPCAT_RANK_MAP": "0,1,8,9,16,17,24,25", "VPCAT_DEBUG": "INFO",
           "VPCAT_DEBUG_RANKS": "all", "VPCAT_LATENCY_US": "3"}
    workers.spawn(workers.elastic, 8, env, str(installed), str(staged))


def test_strict_refuses_a_bad_setting():
    env = {"VPCAT_CATALOG": str(SWITCH4), "VPCAT_RANK_MAP": "0-1", "VPCAT_STRICT": "1", "VPCAT_LATENCY_US": "fast"}
    workers.spawn(workers.bad_setting, 2, env)
