# Sourced by .ci/run (and usable by hand): the official Peppol BIS Billing 3 validators, when
# their artefacts are there. The artefacts (OASIS UBL 2.1 XSD, the CEN and OpenPEPPOL rules as
# Schematron, the official examples) are data from elsewhere, never committed; CI lays them beside
# the repository as ../shared/peppol-artefacts (the layout: test/support/official-validators.ts,
# docs/peppol.md#official-validators). With them, this installs Java, Saxon-HE and xmllint and
# .ci/run runs `npm run test:peppol` after `npm test`; without them it does nothing.
PEPPOL_ARTEFACTS_DIR="${PEPPOL_ARTEFACTS_DIR:-$(cd .. && pwd)/shared/peppol-artefacts}"
if [ -d "$PEPPOL_ARTEFACTS_DIR" ]; then
  if [ ! -f /usr/share/java/Saxon-HE.jar ] || ! command -v xmllint >/dev/null || ! command -v java >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      default-jre-headless libsaxonhe-java libxml2-utils >/dev/null
  fi
  export PEPPOL_ARTEFACTS_DIR
else
  unset PEPPOL_ARTEFACTS_DIR
fi
