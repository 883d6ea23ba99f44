# Sourced by .ci/run after provision.sh (Node 24 on PATH): a Docker engine for the container
# tests (test/container), which fail in CI without one. Needs root, as CI runs.
#
# - Debian's docker.io, docker-compose (Compose v1) and debootstrap are installed when missing.
# - This run's own dockerd is started with its state under /tmp and stopped by PID on exit
#   (an EXIT trap: a later trap in .ci/run must call ci_docker_stop too).
# - No registry is reachable here, so the images the tests build on are stand-ins made from
#   Debian's archive and the npm registry: standin/node:24-bookworm-slim (Debian minbase, the
#   Node 24 binary provision.sh installed, npm 11, the CA bundle that outbound HTTPS needs),
#   standin/caddy:2 (Debian minbase, Debian's caddy binary, laid out like the official image)
#   and standin/postgres:15-bookworm (Debian's PostgreSQL 15 with an entry point doing what
#   the official image's does for docker/compose.postgres.yaml: .ci/standin-postgres).
#   They are built once and cached as a tarball under .ci/cache/images.
# Exports DOCKER_HOST, TESTCONTAINERS_RYUK_DISABLED (its image cannot be pulled),
# CONSUMER_BASE_IMAGE, CADDY_IMAGE and POSTGRES_IMAGE (the images test/container builds on or
# runs), and builds the images under test once before the tests (ci_docker_prebuild, in the
# background: .ci/run calls ci_docker_prebuilt to wait for it).

ci_docker_install() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  # The stand-in Node image gets this bundle (outbound HTTPS here needs the proxy's CA in it).
  [ -f /etc/ssl/certs/ca-certificates.crt ] || missing+=(ca-certificates)
  [ ${#missing[@]} -eq 0 ] && return 0
  # A neighbour's apt may hold the lock for a while: wait for it rather than fail.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
}

ci_docker_start() {
  CI_DOCKER_DIR=$(mktemp -d /tmp/ci-docker.XXXXXX)
  dockerd --data-root "$CI_DOCKER_DIR/data" --exec-root "$CI_DOCKER_DIR/exec" \
    -H "unix://$CI_DOCKER_DIR/docker.sock" --pidfile "$CI_DOCKER_DIR/dockerd.pid" \
    >"$CI_DOCKER_DIR/dockerd.log" 2>&1 &
  CI_DOCKERD_PID=$!
  trap ci_docker_stop EXIT
  # Bash runs the EXIT trap on a signal only when a trap makes it exit.
  trap 'exit 130' INT
  trap 'exit 143' TERM
  export DOCKER_HOST="unix://$CI_DOCKER_DIR/docker.sock"
  local deadline=$((SECONDS + 60))
  until docker info >/dev/null 2>&1; do
    if ! kill -0 "$CI_DOCKERD_PID" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "CI: dockerd did not start:" >&2
      tail -20 "$CI_DOCKER_DIR/dockerd.log" >&2
      return 1
    fi
    sleep 0.5
  done
}

ci_docker_stop() {
  [ -n "${CI_DOCKERD_PID:-}" ] || return 0
  # dockerd stops its containers and its containerd on SIGTERM; give it 30 s, then kill.
  kill "$CI_DOCKERD_PID" 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  while kill -0 "$CI_DOCKERD_PID" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  kill -9 "$CI_DOCKERD_PID" 2>/dev/null || true
  CI_DOCKERD_PID=
  # It leaves mounts behind (netns/default under its exec root at least): unmount them,
  # deepest first, before removing the folder, and never let rm cross into a mount.
  grep -o " $CI_DOCKER_DIR/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  rm -rf --one-file-system "$CI_DOCKER_DIR"
}

ci_docker_standins() {
  local cache=.ci/cache/images node_version postgres_key
  node_version=$(node --version)
  # A change to the PostgreSQL stand-in's files makes a new tarball.
  postgres_key=$(cat .ci/standin-postgres/* | sha256sum | cut -c1-12)
  local tarball="$cache/standins-node-$node_version-postgres-$postgres_key.tar"
  if [ -f "$tarball" ]; then
    docker load -q -i "$tarball" >/dev/null
    return 0
  fi
  local work
  work=$(mktemp -d /tmp/ci-standins.XXXXXX)
  debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >/dev/null
  # Closer to the official slim images: no downloaded packages, package lists, docs or manuals.
  rm -rf "$work"/rootfs/var/cache/apt/archives/*.deb "$work"/rootfs/var/lib/apt/lists/* \
    "$work"/rootfs/usr/share/doc/* "$work"/rootfs/usr/share/man/* "$work"/rootfs/usr/share/info/*
  tar -C "$work/rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' - standin/debian:bookworm-slim >/dev/null

  mkdir -p "$work/node"
  cp "$(command -v node)" "$work/node/node"
  (cd "$work/node" && npm pack -q npm@11 >/dev/null && mkdir npm && tar -xzf npm-*.tgz -C npm --strip-components=1)
  cp /etc/ssl/certs/ca-certificates.crt "$work/node/"
  docker build -q -t standin/node:24-bookworm-slim -f - "$work/node" >/dev/null <<'EOF'
FROM standin/debian:bookworm-slim
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
# Outbound HTTPS here passes a proxy with its own CA: npm in a build needs this to reach the registry.
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
EOF

  mkdir -p "$work/caddy"
  (cd "$work/caddy" && apt-get download -q caddy >/dev/null 2>&1 || { apt-get update -qq && apt-get download -q caddy >/dev/null; })
  dpkg-deb -x "$work"/caddy/caddy_*.deb "$work/caddy/root"
  cp "$work/caddy/root/usr/bin/caddy" "$work/caddy/caddy"
  docker build -q -t standin/caddy:2 -f - "$work/caddy" >/dev/null <<'EOF'
FROM standin/debian:bookworm-slim
COPY caddy /usr/bin/caddy
ENV XDG_CONFIG_HOME=/config XDG_DATA_HOME=/data
VOLUME /config /data
EXPOSE 80 443 2019
WORKDIR /srv
CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]
EOF
  # PostgreSQL from Debian's archive: the build reaches it as this machine does.
  docker build -q --network host -t standin/postgres:15-bookworm .ci/standin-postgres >/dev/null
  rm -rf "$work"
  mkdir -p "$cache"
  rm -f "$cache"/standins-*.tar
  # One tarball: the images share the Debian layers.
  docker save -o "$tarball" standin/node:24-bookworm-slim standin/caddy:2 \
    standin/postgres:15-bookworm
}

# The images test/container builds (same tags and arguments as test/container/support/images.ts),
# built before the tests so that the tests' own builds are all cache hits: two builds running
# npm ci and tsc would otherwise compete for this machine's two cores with the timing-sensitive
# tests beside them.
ci_docker_prebuild() {
  docker build -q --network host --build-arg "BASE_IMAGE=$CONSUMER_BASE_IMAGE" \
    -t invoicing-webhook-consumer:test . >/dev/null
  docker build -q --network host --build-arg "CADDY_IMAGE=$CADDY_IMAGE" \
    -t invoicing-webhook-gateway:test docker/gateway >/dev/null
}

ci_docker_install
ci_docker_start
ci_docker_standins
export TESTCONTAINERS_RYUK_DISABLED=true
export CONSUMER_BASE_IMAGE=standin/node:24-bookworm-slim
export CADDY_IMAGE=standin/caddy:2
export POSTGRES_IMAGE=standin/postgres:15-bookworm
# The images under test build in the background while chromium.sh, peppol.sh and npm ci run
# (the build's context is the sources, never node_modules: .dockerignore); .ci/run waits for
# them with ci_docker_prebuilt before the tests. Built one after the other, that was a minute.
ci_docker_prebuild >"$CI_DOCKER_DIR/prebuild.log" 2>&1 &
CI_PREBUILD_PID=$!
ci_docker_prebuilt() {
  if ! wait "$CI_PREBUILD_PID"; then
    echo "CI: the images under test did not build:" >&2
    tail -30 "$CI_DOCKER_DIR/prebuild.log" >&2
    return 1
  fi
}
docker version --format 'Docker engine {{.Server.Version}}'
