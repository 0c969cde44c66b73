#!/bin/sh
# The one place that installs the system programs the tests need, from Debian's packages, when they are
# missing: `npm test` runs it first (pretest), so `npm ci && npm test` passes on a fresh Debian machine.
# Quick and silent when everything is there; it installs, never upgrades, and starts no service.
#
#   program                          package      needed by
#   /usr/bin/chromium                chromium     the reference page's browser test (or set CHROMIUM_PATH)
#   initdb, pg_basebackup (server)   postgresql   tests that run PostgreSQL clusters of their own
#   pgbouncer                        pgbouncer    tests of the server behind a connection pooler
#   haproxy                          haproxy      tests of several instances behind a load balancer
#   libfaketime.so.1                 libfaketime  the rate-limit test of two instances whose clocks disagree
#   systemd-analyze                  systemd      the check of server/deploy/systemd's unit (verify)
set -eu

missing=''
need() { missing="$missing $1"; }

if [ -n "${CHROMIUM_PATH:-}" ]; then
  [ -x "$CHROMIUM_PATH" ] || { echo "provision: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable" >&2; exit 1; }
else
  [ -x /usr/bin/chromium ] || need chromium
fi
# Debian keeps PostgreSQL's server programs out of PATH, in /usr/lib/postgresql/<version>/bin.
found_server_tools=''
for bin in /usr/lib/postgresql/*/bin; do
  if [ -x "$bin/initdb" ] && [ -x "$bin/pg_basebackup" ]; then found_server_tools=yes; fi
done
[ -n "$found_server_tools" ] || need postgresql
command -v pgbouncer > /dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || need pgbouncer
command -v haproxy > /dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || need haproxy
# Debian puts the preload library under the architecture's multiarch folder.
found_faketime=''
for library in /usr/lib/*/faketime/libfaketime.so.1; do
  if [ -f "$library" ]; then found_faketime=yes; fi
done
[ -n "$found_faketime" ] || need libfaketime
command -v systemd-analyze > /dev/null 2>&1 || need systemd

[ -n "$missing" ] || exit 0

if ! command -v apt-get > /dev/null 2>&1; then
  echo "provision: the tests need these Debian packages (or their equivalents), which are missing:$missing" >&2
  echo "provision: this is not a Debian-like system (no apt-get); install them with your package manager" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "provision: the tests need these Debian packages, which are missing:$missing" >&2
  echo "provision: install them as root, then run the tests again:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing" >&2
  exit 1
fi

echo "provision: installing from Debian's packages:$missing" >&2
# Installing a server package would start its service (PostgreSQL's main cluster, pgbouncer, haproxy):
# the tests run their own, so a policy-rc.d that refuses starts is in place for the install only.
policy=/usr/sbin/policy-rc.d
own_policy=''
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && own_policy=yes
fi
trap '[ -z "$own_policy" ] || rm -f "$policy"' EXIT
export DEBIAN_FRONTEND=noninteractive
# Another apt run (an unattended upgrade, a parallel job) may hold dpkg's lock for a while: wait for it.
apt-get -o DPkg::Lock::Timeout=300 update -qq
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $missing > /dev/null
echo "provision: installed$missing" >&2
