"""Set-up smoke test for the stand-in's runtime: one real generation in a child process.

A llama.cpp build with the wrong CPU paths (AMX on a virtualised host) loads the model and
then dies inside the first generation with a general protection fault and no Python
traceback. Run here, at the end of .ci/steps/llm-standin.sh, the failure names its cause
instead of reaching the tests as "Server disconnected without sending a response".

    python tests/ollama_standin/smoke.py        # exit 0 and one line, or exit 1 and the cause
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import sys
sys.path.insert(0, {here!r})
from server import packaged_gguf
from llama_cpp import Llama
llm = Llama(model_path=str(packaged_gguf()), n_ctx=512, n_threads=1, verbose=False)
out = llm.create_chat_completion(messages=[{{"role": "user", "content": "Say hello."}}],
                                 max_tokens=8, temperature=0.0, seed=1)
text = out["choices"][0]["message"]["content"]
assert isinstance(text, str), text
print("generated:", repr(text))
"""


def kernel_reason() -> str:
    """The kernel's last trap line, if this user may read the kernel log (often not in CI)."""
    try:
        log = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    traps = [line for line in log.splitlines() if "traps:" in line or "segfault" in line]
    return traps[-1] if traps else ""


def main() -> int:
    here = str(Path(__file__).resolve().parent)
    try:
        child = subprocess.run([sys.executable, "-c", CHILD.format(here=here)],
                               capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        print("llama.cpp smoke test: one 8-token generation did not finish in 300 s", file=sys.stderr)
        return 1
    if child.returncode == 0:
        print("llama.cpp smoke test passed,", child.stdout.strip())
        return 0
    if child.returncode < 0:
        name = signal.Signals(-child.returncode).name
        cause = f"killed by {name} during generation"
    else:
        cause = f"exit status {child.returncode}"
    print(f"llama.cpp smoke test FAILED: {cause}.", file=sys.stderr)
    if child.stderr.strip():
        print(child.stderr.strip()[-2000:], file=sys.stderr)
    reason = kernel_reason()
    if reason:
        print("kernel log:", reason, file=sys.stderr)
    print("A build with the host's native CPU paths (AMX) crashes on these machines; rebuild with\n"
          "  rm -rf .cache/wheels/llama-cpp-python-* && bash .ci/setup tests\n"
          "(GGML_NATIVE=OFF, AVX-512 and AMX off, no wheel cache; ../shared/notes/llama-cpp-build.md)",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
