#!/usr/bin/env bash
# Runs the loadfeed conformance kit against a deployment named by environment variables, as a CI step.
# It starts nothing: the deployment is already running somewhere. The job fails when a required check
# fails (exit 1), the kit cannot run (exit 2: bad settings, deployment unreachable, key refused) or
# required checks could not run (exit 3: too few rows, a missing second key, too small a budget), and
# the reports stay in $LOADFEED_REPORT_DIR for the CI to keep as artifacts, whatever the outcome.
#
#   LOADFEED_BASE_URL      the deployment, e.g. https://loads.example.com            (required)
#   LOADFEED_API_KEY       a key of a test customer that has some loads               (required)
#   LOADFEED_SECOND_KEY    a key of ANOTHER customer: enables the isolation checks     (optional)
#   LOADFEED_REVOKED_KEY   a revoked key: enables the revocation check                (optional)
#   LOADFEED_REPORT_DIR    where the reports go (default: conformance-report)
#   LOADFEED_NO_EXHAUST=1  skip the checks that spend the key's whole rate limit       (optional)
#   LOADFEED_CONFORMANCE   the kit's command (default: loadfeed-conformance on PATH)
#
# Arguments go to the kit unchanged, e.g. `run-conformance.sh --grep rate-limit/`.
set -euo pipefail

: "${LOADFEED_BASE_URL:?set LOADFEED_BASE_URL to the deployment to test}"
: "${LOADFEED_API_KEY:?set LOADFEED_API_KEY to a key of a test customer}"
export LOADFEED_REPORT_DIR="${LOADFEED_REPORT_DIR:-conformance-report}"
kit="${LOADFEED_CONFORMANCE:-loadfeed-conformance}"

if ! command -v "${kit%% *}" > /dev/null; then
  echo "run-conformance: ${kit%% *} is not on PATH: install @loadfeed/conformance and add node_modules/.bin to PATH" >&2
  exit 2
fi
[[ -n "${LOADFEED_SECOND_KEY:-}" ]] || echo "run-conformance: LOADFEED_SECOND_KEY is not set: the isolation checks are skipped"
[[ -n "${LOADFEED_REVOKED_KEY:-}" ]] || echo "run-conformance: LOADFEED_REVOKED_KEY is not set: the revocation check is skipped"

# Keys travel in the environment only: never on a command line, where the process list shows them.
status=0
$kit "$@" || status=$?

echo "run-conformance: reports in ${LOADFEED_REPORT_DIR} (html/index.html, junit.xml, report.json, exchanges.json)"
case "$status" in
  0) echo "run-conformance: every required check passed" ;;
  1) echo "run-conformance: a required check failed: see the reports" >&2 ;;
  3) echo "run-conformance: incomplete: required checks could not run; the summary says why and what would let them" >&2 ;;
  *) echo "run-conformance: the kit could not run (exit $status)" >&2 ;;
esac
exit "$status"
