#!/usr/bin/env bash
# Headless Debian Chromium and its matching chromedriver, for the dashboard's
# end-to-end test (tests/dashboard/test_browser.py drives it with selenium).
# Debian packages only: no browser download at run time. Idempotent.
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    echo "chromium and chromedriver already installed"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# fonts-dejavu-core: readable text in screenshots on a bare image.
apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
chromium --version
