# The consumer's image. `docker run IMAGE` runs the webhook consumer; the same image runs the
# operational commands by name: reconcile, reconcile-schedule, replay, submit-invoice,
# copy-to-postgres, provider (the sandbox) and healthcheck. docs/deploying.md has the
# commands and the settings.
#
# The base image is a build argument so that a machine without a registry can pass a stand-in
# (.ci/docker.sh builds one). No "# syntax=" line: the classic builder would try to pull it.
ARG BASE_IMAGE=node:24-bookworm-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: better-sqlite3 loads the binary its package ships for Node 24, and its
# node-gyp fallback would need python and a compiler that a slim image does not have.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# Production dependencies only from here on. Also left out: `npm run dev` (a development tool;
# the benchmark in bench/ is not compiled at all), source maps, better-sqlite3's C sources (for
# a rebuild that never runs here) and its binaries for other systems.
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf dist/scripts/dev.* \
      node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
      node_modules/better-sqlite3/prebuilds/darwin-* node_modules/better-sqlite3/prebuilds/win32-* \
 && find dist -name '*.map' -delete

FROM ${BASE_IMAGE}
# The official image has the unprivileged user node (uid 1000); a stand-in base may not.
RUN (getent passwd node >/dev/null || useradd --uid 1000 --user-group --create-home node) \
 && mkdir -p /data \
 && chown node:node /data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Each command by name, on PATH: the compiled entry points carry a `#!/usr/bin/env node` line,
# resolve their imports from their own location, and so run from any working directory.
RUN chmod +x dist/src/main.js dist/scripts/*.js \
 && ln -s /app/dist/src/main.js /usr/local/bin/consumer \
 && for command in reconcile reconcile-schedule replay submit-invoice copy-to-postgres provider \
      healthcheck; do \
      ln -s "/app/dist/scripts/$command.js" "/usr/local/bin/$command"; \
    done
# /data holds the SQLite database (with its WAL files) and the imported documents. Secrets
# (WEBHOOK_SECRETS, API_TOKEN, ADMIN_TOKEN, ...) come from the environment at run time.
# OPERATIONS_PORT keeps /healthz, /readyz, /metrics and /admin off the webhook port, so that a
# gateway forwarding port 3000 can expose nothing else (set it empty to serve all on PORT).
#
# Memory, as `npm start` runs: glibc keeps two malloc arenas instead of up to eight per core,
# V8's young generation is capped at 2 MB semi-spaces and its old generation at 256 MB (which
# also makes V8 grow the heap by a third between collections instead of fourfold), and the
# store gives each SQLite connection a 2 MiB page cache; the consumer's peak RSS under the
# benchmark's load goes from 235-253 to under 150 MiB (docs/performance.md#memory).
# NODE_OPTIONS carries the V8 flags because the commands are node scripts started by their
# shebang; they apply to every node process of the image. Keep them if you set NODE_OPTIONS.
# It also loads the tracing start-up before each command (docs/operating.md#tracing): it does
# nothing, and loads no OpenTelemetry SDK, unless OTEL_EXPORTER_OTLP_ENDPOINT or
# OTEL_TRACES_EXPORTER asks for traces. The HEALTHCHECK runs without it (OTEL_SDK_DISABLED):
# a probe every 10 s would otherwise start an SDK and export a trace of its own each time.
ENV NODE_ENV=production \
    DATABASE_URL=sqlite:/data/consumer.db \
    DOCUMENTS_DIR=/data/documents \
    SINK_JOURNAL_FILE=/data/status-journal.jsonl \
    OPERATIONS_PORT=3001 \
    MALLOC_ARENA_MAX=2 \
    NODE_OPTIONS="--max-semi-space-size=2 --max-old-space-size=256 --import /app/dist/src/tracing/register.js"
VOLUME ["/data"]
# Numeric, so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
# 3000: the webhook path (PORT), for the gateway; 3001: /healthz, /readyz, /metrics and /admin
# (OPERATIONS_PORT), for probes, the scraper and operators only.
EXPOSE 3000 3001
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["env", "OTEL_SDK_DISABLED=true", "healthcheck"]
# Exec form: the consumer is PID 1 and gets SIGTERM itself (graceful shutdown, exit 0).
CMD ["consumer"]
