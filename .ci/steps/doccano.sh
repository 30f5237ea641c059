#!/usr/bin/env bash
# doccano 1.8.4, the real annotation server the doccano tests start on 127.0.0.1.
# It lives in its own virtualenv (.venv-doccano) because it pins old pandas and
# SQLAlchemy; numpy<2 and marshmallow<4 are needed or nothing runs (shared/notes/doccano.md).
# The workbench never imports doccano: it talks to the server over plain HTTP.
# Idempotent: skips the install when the pinned version already answers.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.venv-doccano
if [ -x "$VENV/bin/doccano" ] && "$VENV/bin/python" -c 'import importlib.metadata as m,sys; sys.exit(m.version("doccano")!="1.8.4")' 2>/dev/null; then
    echo "doccano 1.8.4 already in $VENV"
    exit 0
fi
# With the workbench venv active, python3 -m venv still builds on the base interpreter.
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet 'doccano==1.8.4' 'numpy<2' 'marshmallow<4'
"$VENV/bin/doccano" --help >/dev/null
echo "doccano installed in $VENV"
