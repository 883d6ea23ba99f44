# Sourced by .ci/run (and usable by hand): the official Peppol BIS Billing 3 validators, when
# their artefacts are there. The artefacts (OASIS UBL 2.1 XSD, CEN and OpenPEPPOL rules) are not
# in this repository and no package registry reachable here carries them; they can be laid
# beside it as ../shared/peppol-artefacts (the layout: test/support/official-validators.ts).
# Without them this does nothing, and CI runs without `npm run test:peppol`.
PEPPOL_ARTEFACTS_DIR="${PEPPOL_ARTEFACTS_DIR:-$(cd .. && pwd)/shared/peppol-artefacts}"
if [ -d "$PEPPOL_ARTEFACTS_DIR" ]; then
  if [ ! -f /usr/share/java/Saxon-HE.jar ] || ! command -v xmllint >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      default-jre-headless libsaxonhe-java libxml2-utils >/dev/null
  fi
  export PEPPOL_ARTEFACTS_DIR
else
  unset PEPPOL_ARTEFACTS_DIR
fi
