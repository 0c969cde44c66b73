#!/usr/bin/env bash
# The operator's first ten minutes: from an empty PostgreSQL database to a customer, an API key, loads
# imported from NDJSON, a running server and a first API call with curl.
#
#   DATABASE_URL   an empty PostgreSQL database the server may own                        (required)
#   PORT           where the server listens on 127.0.0.1 (default 3000)
#   CUSTOMER       the customer's code (default acme)
#   LOADS_FILE     the NDJSON to import (default: the sample loads that sample-loads.mjs beside this
#                  script writes, dated from today so that the feed serves them whenever this runs)
#   KEEP_RUNNING=1 leave the server running in the foreground at the end (Ctrl-C stops it)
#
# The key is written to ./<customer>.key (readable by you only) and never printed: hand it to the
# customer over a channel you trust. It cannot be shown again; `loadfeed-server keys create` issues another.
set -euo pipefail

: "${DATABASE_URL:?set DATABASE_URL to an empty PostgreSQL database, e.g. postgres://postgres@127.0.0.1:5432/loadfeed}"
export DATABASE_URL
PORT="${PORT:-3000}"
CUSTOMER="${CUSTOMER:-acme}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOADS_FILE="${LOADS_FILE:-}"
KEY_FILE="$PWD/$CUSTOMER.key"
BASE_URL="http://127.0.0.1:$PORT"

command -v loadfeed-server > /dev/null || { echo "quickstart: loadfeed-server is not on PATH (install the @loadfeed/server tarball as README.md says, then add node_modules/.bin to PATH)" >&2; exit 2; }
step() { printf '\n== %s\n' "$*"; }

step "1. Create the tables"
loadfeed-server migrate

# A second run on the same database keeps what the first one made: the customer, and the key in
# $KEY_FILE while the database still has it unrevoked (its hint, the last characters, is how to tell).
step "2. Add the customer '$CUSTOMER'"
if loadfeed-server customers list --json | CODE="$CUSTOMER" node -e '
  const customers = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
  process.exit(customers.some((customer) => customer.code === process.env.CODE) ? 0 : 1);
'; then
  echo "customer '$CUSTOMER' exists already: kept"
else
  loadfeed-server customers add "$CUSTOMER" --name "Acme Freight Buyers"
fi

step "3. Issue an API key for '$CUSTOMER' (saved to $KEY_FILE)"
if [[ -s "$KEY_FILE" ]] && loadfeed-server keys list "$CUSTOMER" --json | KEY_FILE="$KEY_FILE" node -e '
  const fs = require("node:fs");
  const tail = fs.readFileSync(process.env.KEY_FILE, "utf8").trim().slice(-4);
  const keys = JSON.parse(fs.readFileSync(0, "utf8"));
  process.exit(keys.some((key) => key.revokedAt === null && key.hint.endsWith(tail)) ? 0 : 1);
'; then
  echo "the key in $KEY_FILE is issued and not revoked: kept"
else
  ( umask 077; loadfeed-server keys create "$CUSTOMER" --json | node -e '
    const issued = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
    process.stdout.write(issued.key);
    process.stderr.write(`issued key ${issued.id} for ${issued.customer}\n`);
  ' > "$KEY_FILE" )
fi

if [[ -n "$LOADS_FILE" ]]; then
  step "4. Import loads from $LOADS_FILE"
  loadfeed-server import "$CUSTOMER" "$LOADS_FILE"
else
  step "4. Import the sample loads (sample-loads.mjs, dated from today)"
  node "$HERE/sample-loads.mjs" | loadfeed-server import "$CUSTOMER" -
fi

step "5. Start the server on $BASE_URL"
# LOG_LEVEL=warn keeps the request log out of this walkthrough; a real deployment keeps the default (info).
PORT="$PORT" HOST=127.0.0.1 LOG_LEVEL="${LOG_LEVEL:-warn}" loadfeed-server start &
server=$!
trap 'kill "$server" 2> /dev/null; wait "$server" 2> /dev/null || true' EXIT
for _ in $(seq 1 60); do
  curl -fs "$BASE_URL/readyz" > /dev/null 2>&1 && break
  kill -0 "$server" 2> /dev/null || { echo "quickstart: the server did not start" >&2; exit 1; }
  sleep 0.5
done
curl -fs "$BASE_URL/readyz" > /dev/null || { echo "quickstart: the server is not ready after 30 s" >&2; exit 1; }

step "6. The first API call, as the customer makes it"
# The key goes in a header read from stdin, so it shows neither in the process list nor in this output.
printf 'Authorization: Bearer %s\n' "$(cat "$KEY_FILE")" |
  curl -fsS -H @- "$BASE_URL/api/v1/loads?pageSize=3"
echo

step "Done. The customer's key is in $KEY_FILE; the API reference is at $BASE_URL/api/v1/docs"
if [[ "${KEEP_RUNNING:-}" == 1 ]]; then
  echo "The server keeps running; Ctrl-C stops it."
  wait "$server"
fi
