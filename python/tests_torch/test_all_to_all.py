"""vpcat.torch.all_to_all_single on gloo: byte-exact on every rank."""
import workers
from conftest import SWITCH4


def test_sixteen_ranks_on_four_nodes_planned():
    # Four ranks on each of the four nodes (this host plays all of them: an explicit map).
    env = {"VPCAT_CATALOG": str(SWITCH4), "VPCAT_RANK_MAP": "0-3,8-11,16-19,24-27"}
    workers.spawn(workers.planned_cases, 16, env)


def test_two_ranks_by_host_planned():
    env = {"VPCAT_CATALOG": str(SWITCH4), "VPCAT_HOSTNAME": "gpu02"}
    workers.spawn(workers.planned_cases, 2, env)


def test_fallback_and_relays():
    env = {"VPCAT_CATALOG": str(SWITCH4), "VPCAT_HOSTNAME": "login9"}
    workers.spawn(workers.fallback_and_relays, 3, env)
