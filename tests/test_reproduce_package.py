"""The reproduction specs ship inside the package (maturin packs every file under python/bufferlab
into the wheel): the installed package finds them without the source tree."""

import subprocess
import sys
import tomllib
from pathlib import Path

from bufferlab.reproduce import ITEMS
from bufferlab.reproduce.item import specs_dir

ROOT = Path(__file__).resolve().parents[1]


def test_every_spec_file_belongs_to_an_item_and_back():
    files = {p.name for p in specs_dir().glob("*.toml")}
    used = {it.spec for it in ITEMS.values() if it.spec}
    assert used == files


def test_installed_package_reads_its_specs_from_anywhere(tmp_path):
    # a fresh interpreter in a folder far from the source tree, as after `pip install bufferlab`
    code = (
        "from bufferlab.reproduce import ITEMS\n"
        "from bufferlab.reproduce.item import specs_dir\n"
        "n = sum(1 for it in ITEMS.values() if it.spec and it.sweeps('smoke'))\n"
        "print(n, specs_dir())\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    n, where = r.stdout.split()
    assert int(n) == sum(1 for it in ITEMS.values() if it.spec)
    assert Path(where).parts[-3:] == ("bufferlab", "reproduce", "specs")


def test_wheel_config_packs_the_package_folder_whole():
    m = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["maturin"]
    assert m["python-source"] == "python" and (ROOT / "python" / "bufferlab" / "reproduce" / "specs").is_dir()
    # nothing under the package is excluded from the wheel
    assert not [e for e in m.get("exclude", []) if "bufferlab" in str(e) or "toml" in str(e)]
