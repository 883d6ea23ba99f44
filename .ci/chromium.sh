# Sourced by .ci/run (and usable by hand): Debian's Chromium for the browser tests in
# test/browser, which drive it with playwright-core. Browsers cannot be downloaded here
# (`npx playwright install` has no route out), so the distribution's package is the browser.
# fonts-liberation is only a recommendation of the package; without it text in the console's
# screenshots renders as boxes.
if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    chromium fonts-liberation >/dev/null
fi
export CHROMIUM_PATH=/usr/bin/chromium
"$CHROMIUM_PATH" --version 2>/dev/null
