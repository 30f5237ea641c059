"""`workbench generate -g intact` refuses what it cannot do before a run exists: maskL, an unknown
attacker, a remote host."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.store import RunStore


@pytest.mark.parametrize("args,message", [
    ([], "--mode repL"),  # the default mode is maskL
    (["--mode", "repL", "-o", "attacker=oracle"], "attacker must be one of mlm, ollama"),
    (["--mode", "repL", "-o", "host=http://10.1.2.3:11434"], "allow_remote"),
    (["--mode", "repL", "-o", "candidates=0"], "candidates must be within 1..20"),
])
def test_intact_refuses_before_storing_anything(tmp_path, args, message):
    path = tmp_path / "runs.sqlite"
    result = CliRunner().invoke(main, ["generate", "-c", "pgv-pii-en", "--docs", "gv-eng-swe-66_ENG", "-g", "intact",
                                       "--tagger", "spacy", "--store", str(path), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not path.exists() or RunStore(path).runs() == []
