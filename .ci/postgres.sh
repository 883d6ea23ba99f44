# Sourced by .ci/run: PostgreSQL's server binaries for the store tests, which start a private
# cluster of their own in a temporary folder (test/support/postgres-global.ts) and stop it at
# the end, and PgBouncer, which test/integration/store/postgres-pooler.test.ts starts in front
# of it on a port of its own. Installed from Debian when missing (about 6 s, and a second more
# for PgBouncer's 0.3 MB); no service of the machine is used.
missing=""
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  missing="postgresql"
fi
if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
  missing="$missing pgbouncer"
fi
if [ -n "$missing" ]; then
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086
  apt-get install -y -q $missing >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q $missing >/dev/null; }
fi
