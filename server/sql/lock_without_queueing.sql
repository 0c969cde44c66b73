-- Run by src/db/sql-definitions.ts before the files of order.txt, in their transaction: a function of the
-- session's temporary schema (gone with the session, never part of the schema) that a file calls before
-- DDL that needs ACCESS EXCLUSIVE on a table. A waiting ACCESS EXCLUSIVE request would stop every reader
-- of the table behind it while a long writer runs; this asks for 100 ms at a time instead, so readers pass
-- until the writers are done.
CREATE OR REPLACE FUNCTION pg_temp.lock_without_queueing(target regclass) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  lock_timeout_before text := current_setting('lock_timeout');
BEGIN
  LOOP
    BEGIN
      SET LOCAL lock_timeout = '100ms';
      EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', target);
      EXIT;
    EXCEPTION WHEN lock_not_available THEN
      PERFORM pg_sleep(0.2);
    END;
  END LOOP;
  PERFORM set_config('lock_timeout', lock_timeout_before, true);
END
$$;
