"""adapters/mtc's docstring lists the EMAT model's modules and says truly which import torch (issue 11
item 5). The package also holds the generator over the model (generator.py), which the docstring
leaves out: its text is hashed into the checkpoints' build key, so it keeps what it said when the
model lived in workbench/emat (issue 25)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import workbench.adapters.mtc

EMAT = Path(workbench.adapters.mtc.__file__).parent


def test_the_docstring_lists_every_module_and_no_other():
    from workbench.adapters.mtc.build import _BUILD_SOURCES
    listed = set(re.findall(r"^\s{4}(\w+\.py)\s", workbench.adapters.mtc.__doc__, re.M))
    model_modules = {f"{name}.py" for name in _BUILD_SOURCES} - {"__init__.py"}
    assert listed == model_modules
    # Every module of the package is the model's (hashed into the build key) or the generator.
    assert {p.name for p in EMAT.glob("*.py")} == model_modules | {"__init__.py", "generator.py"}


def test_modules_said_to_be_light_import_without_torch():
    light = re.search(r"it\); ([\w, ]+?) do not", " ".join(workbench.adapters.mtc.__doc__.split())).group(1)
    modules = [m.strip() for m in re.split(r",| and ", light) if m.strip()]
    assert "build" in modules and "settings" in modules
    code = ("import sys\n" + "".join(f"import workbench.adapters.mtc.{m}\n" for m in modules)
            + "import workbench.cli\nprint('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
