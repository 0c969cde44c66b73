#!/bin/sh
# Writes the compose file's secrets once, with a new random password, into secrets/ beside this file:
#   postgres_password         read by the postgres image (POSTGRES_PASSWORD_FILE)
#   pgbouncer_userlist.txt    PgBouncer's auth_file
#   loadfeed.env              DATABASE_URL and DATABASE_DIRECT_URL for the servers and the migration
# The folder is readable by its owner only; the files in it are world-readable so that the containers'
# own users (postgres, pgbouncer) can read them where they are mounted.
set -eu
cd "$(dirname "$0")"
if [ -e secrets ]; then echo "make-secrets: secrets/ exists already; remove it to start over" >&2; exit 1; fi
mkdir -m 700 secrets
password=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
printf '%s' "$password" > secrets/postgres_password
printf '"loadfeed" "%s"\n' "$password" > secrets/pgbouncer_userlist.txt
cat > secrets/loadfeed.env <<ENV
DATABASE_URL=postgres://loadfeed:$password@pgbouncer:6432/loadfeed
DATABASE_DIRECT_URL=postgres://loadfeed:$password@db:5432/loadfeed
ENV
chmod 644 secrets/postgres_password secrets/pgbouncer_userlist.txt
chmod 600 secrets/loadfeed.env
echo "make-secrets: wrote secrets/ (postgres_password, pgbouncer_userlist.txt, loadfeed.env)" >&2
