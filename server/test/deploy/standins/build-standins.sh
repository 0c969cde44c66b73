#!/bin/sh
# Builds stand-ins for the public images compose.yaml names (postgres, edoburu/pgbouncer, haproxy), which
# this machine cannot pull: one Debian bookworm root (debootstrap, minbase, with Debian's postgresql-15,
# pgbouncer and haproxy), imported three times with each image's entrypoint, user and paths.
#   localhost/loadfeed-standin-postgres, -pgbouncer, -haproxy
# It prints the seconds it took. Debian's mirror is the one apt uses here (DEBIAN_MIRROR overrides it).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
engine=${CONTAINER_ENGINE:-podman}
mirror=${DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2> /dev/null | head -1)}
mirror=${mirror:-http://deb.debian.org/debian}
started=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

debootstrap --variant=minbase --include=postgresql-15,pgbouncer,haproxy bookworm "$work/root" "$mirror" > "$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; exit 1; }
root="$work/root"
# The package's own cluster and caches are not part of the stand-in: the entrypoint makes its data folder.
rm -rf "$root/var/lib/postgresql/15" "$root/etc/postgresql/15" "$root/var/cache/apt" "$root/var/lib/apt/lists" "$root/usr/share/doc" "$root/usr/share/man"
mkdir -p "$root/usr/local/etc/haproxy" "$root/etc/pgbouncer"
install -m 0755 "$here/postgres-entrypoint.sh" "$root/usr/local/bin/docker-entrypoint.sh"
tar -C "$root" -cf "$work/root.tar" .

path='PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
"$engine" import --quiet --change "ENV $path" --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' --change 'CMD ["postgres"]' \
  "$work/root.tar" localhost/loadfeed-standin-postgres > /dev/null
"$engine" import --quiet --change "ENV $path" --change 'USER postgres' \
  --change 'ENTRYPOINT ["/usr/sbin/pgbouncer", "/etc/pgbouncer/pgbouncer.ini"]' \
  "$work/root.tar" localhost/loadfeed-standin-pgbouncer > /dev/null
"$engine" import --quiet --change "ENV $path" --change 'USER haproxy' \
  --change 'ENTRYPOINT ["/usr/sbin/haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]' \
  "$work/root.tar" localhost/loadfeed-standin-haproxy > /dev/null
echo "$(($(date +%s) - started))"
