# Sourced by .ci/run (and usable by hand): the official Peppol BIS Billing 3 validators, when
# their artefacts are there. The artefacts (OASIS UBL 2.1 XSD, CEN and OpenPEPPOL rules) are not
# in this repository and no package registry reachable here carries them; they can be laid
# beside it as ../shared/peppol-artefacts (the layout: test/support/official-validators.ts).
# Without them this does nothing, and CI runs without `npm run test:peppol`.
# The validators run the rules as precompiled XSLT (test/support/official-validators.ts); a
# folder that holds them as Schematron only (the data-only artefacts of ../shared since
# 2026-11-28) cannot run until the project compiles Schematron itself (issue 38), so it is
# named and left out rather than failing every run.
PEPPOL_ARTEFACTS_DIR="${PEPPOL_ARTEFACTS_DIR:-$(cd .. && pwd)/shared/peppol-artefacts}"
if [ -d "$PEPPOL_ARTEFACTS_DIR" ] && [ ! -f "$PEPPOL_ARTEFACTS_DIR/peppol/PEPPOL-EN16931-UBL.xslt" ]; then
  echo "CI: $PEPPOL_ARTEFACTS_DIR has no compiled rules (peppol/PEPPOL-EN16931-UBL.xslt): npm run test:peppol is not run (issue 38)"
  unset PEPPOL_ARTEFACTS_DIR
elif [ -d "$PEPPOL_ARTEFACTS_DIR" ]; then
  if [ ! -f /usr/share/java/Saxon-HE.jar ] || ! command -v xmllint >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      default-jre-headless libsaxonhe-java libxml2-utils >/dev/null
  fi
  export PEPPOL_ARTEFACTS_DIR
else
  unset PEPPOL_ARTEFACTS_DIR
fi
