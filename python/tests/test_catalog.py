"""vpcat.Catalog: open, properties, corrupt files."""
import pathlib

import pytest

import vpcat
from conftest import CORRUPT, QUAD_RAIL4, SWITCH4


def test_open_properties(catalog):
    assert catalog.gpu_count == 32
    assert catalog.node_count == 4
    assert catalog.node_names == ["gpu01", "gpu02", "gpu03", "gpu04"]
    assert catalog.node_types == ["pcie-gen4-2s4sw8g"]
    assert catalog.format_version == vpcat.FORMAT_VERSION
    assert catalog.fabric["kind"] == "single_switch"
    assert catalog.provenance["tool"] == "vp-analyze"
    assert catalog.path == str(SWITCH4)
    assert catalog.file_size == SWITCH4.stat().st_size
    assert list(catalog.node_of_gpu) == [g // 8 for g in range(32)]
    gpu = catalog.gpu(9)
    assert (gpu["node"], gpu["local_index"], gpu["device_name"]) == (1, 1, "cuda1")
    assert catalog.gpu(-1)["node"] == 3
    with pytest.raises(IndexError):
        catalog.gpu(32)


def test_read_only_properties(catalog):
    with pytest.raises(AttributeError):
        catalog.gpu_count = 3


def test_format_1_0_and_pathlike():
    cat = vpcat.Catalog.open(pathlib.Path(QUAD_RAIL4))
    assert cat.format_version == (1, 0)
    assert cat.fabric["kind"] == "rail"
    assert len(cat.node_names) == cat.node_count


def test_from_bytes_equals_open(catalog):
    copy = vpcat.Catalog.from_bytes(SWITCH4.read_bytes())
    assert copy.path is None
    assert copy.gpu_count == catalog.gpu_count and copy.node_names == catalog.node_names


# Every corrupt fixture raises CatalogError with the verifier's exact message.
@pytest.mark.parametrize("path", sorted(CORRUPT.glob("*.vpcat")), ids=lambda p: p.stem)
def test_corrupt_fixture(path):
    expected = path.with_suffix(".expected").read_text().strip()
    with pytest.raises(vpcat.CatalogError) as info:
        vpcat.Catalog.open(path)
    e = info.value
    assert e.message == expected
    assert str(e) == e.message
    assert 0 < e.code < 100 and vpcat.STATUS[e.name] == e.code
    assert isinstance(e, vpcat.Error) and not isinstance(e, vpcat.PlanError)
    with pytest.raises(vpcat.CatalogError) as again:
        vpcat.Catalog.from_bytes(path.read_bytes())
    assert again.value.code == e.code


def test_section_and_offset():
    with pytest.raises(vpcat.CatalogError) as info:
        vpcat.Catalog.open(CORRUPT / "bad-section-checksum.vpcat")
    e = info.value
    assert (e.name, e.section, e.offset) == ("bad_section_checksum", "patterns", 0x138)
    assert e.cell is None


def test_missing_file(tmp_path):
    with pytest.raises(vpcat.CatalogError) as info:
        vpcat.Catalog.open(tmp_path / "none.vpcat")
    assert info.value.name == "io_error" and str(tmp_path / "none.vpcat") in info.value.message


def test_bad_path_types():
    with pytest.raises(ValueError):
        vpcat.Catalog.open(str(SWITCH4) + "\0.other")
    with pytest.raises(TypeError):
        vpcat.Catalog.open(42)


def test_limit_option():
    with pytest.raises(vpcat.CatalogError) as info:
        vpcat.Catalog.open(SWITCH4, max_file_size=1000)
    assert info.value.name == "file_too_large"
    with pytest.raises(vpcat.CatalogError) as info:
        vpcat.Catalog.from_bytes(SWITCH4.read_bytes(), max_file_size=1000)
    assert info.value.name == "file_too_large"
