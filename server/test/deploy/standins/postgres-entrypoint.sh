#!/bin/sh
# The stand-in for the postgres image's entrypoint, with the part of its interface compose.yaml uses:
# POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD_FILE, a data folder in /var/lib/postgresql/data that is
# initialised on the first start, and password (SCRAM) logins from the network.
set -eu
PGDATA=/var/lib/postgresql/data
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  # The secret is read as root, as the real image does, then the server runs as postgres.
  POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE")
  export POSTGRES_PASSWORD
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 > /dev/null
  rm -f "$pwfile"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait start > /dev/null
  createdb --username="$POSTGRES_USER" "$POSTGRES_DB"
  pg_ctl --pgdata="$PGDATA" --mode=fast --wait stop > /dev/null
fi
unset POSTGRES_PASSWORD
exec postgres -D "$PGDATA"
