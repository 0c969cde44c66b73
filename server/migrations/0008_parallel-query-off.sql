-- Up Migration

-- Parallel query off for every session of this database: the feed's index-only scans are short, and
-- under concurrency parallel workers lowered throughput. The server used to ask for it per session with
-- the `options` startup parameter, which a transaction-mode pooler cannot carry (PgBouncer refuses an
-- unknown startup parameter, or drops it when told to ignore it), and a SET on a pooled connection would
-- leak to whichever client gets that connection next. A database setting reaches every new session,
-- through any pooler, and standbys replay it. Only the database's owner (or a superuser) may set it; a
-- migration run by another role leaves it to the operator (server/README.md) rather than failing.
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET max_parallel_workers_per_gather = 0', current_database());
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'parallel query stays on: only the owner of database % may run ALTER DATABASE % SET max_parallel_workers_per_gather = 0', current_database(), current_database();
END
$$;

-- Down Migration

DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I RESET max_parallel_workers_per_gather', current_database());
EXCEPTION WHEN insufficient_privilege THEN
  NULL;
END
$$;
