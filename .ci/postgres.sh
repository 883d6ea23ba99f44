# Sourced by .ci/run: PostgreSQL's server binaries for the store tests, which start a private
# cluster of their own in a temporary folder (test/support/postgres-global.ts) and stop it at
# the end. Installed from Debian when missing (about 6 s); no service of the machine is used.
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q postgresql >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q postgresql >/dev/null; }
fi
