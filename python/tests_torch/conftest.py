"""vpcat.torch tests (ctest python_torch): gloo ranks spawned by the tests.
Without torch.distributed they are skipped, except under CI (CI=true), where
scripts/install-deps.sh installs python3-torch and a skip would hide a gap."""
import os
import pathlib
import sys

import pytest

if os.environ.get("CI"):
    import torch.distributed  # noqa: F401  (fails the run when missing)
else:
    pytest.importorskip("torch.distributed")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

FIXTURES = pathlib.Path(os.environ.get("VP_FIXTURES_DIR", pathlib.Path(__file__).resolve().parents[2] / "fixtures"))
# Four nodes of eight GPUs on one switch: nodes gpu01..gpu04.
SWITCH4 = FIXTURES / "catalogs" / "golden" / "pcie-gen4-2s4sw8g-4n-switch.vpcat"
