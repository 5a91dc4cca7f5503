"""vpcat.torch.all_to_all_single on gloo: byte-exact on every rank."""
import functools

import workers
from conftest import SWITCH4


def test_sixteen_ranks_on_four_nodes_and_subgroups():
    # Four ranks on each of the four nodes, by host name and visible device
    # (this host plays all of them); subgroups of 5 and 2 ranks.
    env = functools.partial(workers.with_catalog, str(SWITCH4))
    workers.spawn(workers.sixteen, 16, env)


def test_strict_refuses_instead_of_falling_back():
    env = {"VPCAT_CATALOG": str(SWITCH4), "VPCAT_HOSTNAME": "login9", "VPCAT_STRICT": "1"}
    workers.spawn(workers.strict_refusal, 2, env)


def test_fallback_and_relays():
    # A host the catalog lacks: torch's own collective, said once.
    env = {"VPCAT_CATALOG": str(SWITCH4), "VPCAT_HOSTNAME": "login9"}
    workers.spawn(workers.fallback_and_relays, 3, env)
