#!/bin/sh
# The system programs of the opt-in deployment test (`npm run test:deploy`), from Debian's packages, when
# they are missing: podman builds and runs the image; runc is the runtime it runs under here. Quick and
# silent when everything is there; it installs, never upgrades, and starts no service.
#
#   program            package      needed by
#   podman             podman       npm run image, npm run test:deploy
#   runc               runc         the containers of npm run test:deploy
#   debootstrap        debootstrap  the stand-ins for the public postgres, pgbouncer and haproxy images
set -eu

missing=''
need() { missing="$missing $1"; }
command -v podman > /dev/null 2>&1 || need podman
command -v runc > /dev/null 2>&1 || need runc
command -v debootstrap > /dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] || need debootstrap

[ -n "$missing" ] || exit 0
if ! command -v apt-get > /dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
  echo "provision-deploy: these Debian packages (or their equivalents) are missing:$missing" >&2
  echo "provision-deploy: install them as root: apt-get install -y --no-install-recommends$missing" >&2
  exit 1
fi
echo "provision-deploy: installing from Debian's packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=300 update -qq
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $missing > /dev/null
echo "provision-deploy: installed$missing" >&2
