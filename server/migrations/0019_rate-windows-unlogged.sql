-- Up Migration
-- The rate-limit windows are written on every admitted request and matter for a minute: they are kept
-- out of the write-ahead log. Logged, each request wrote its window row's new version to the WAL (a few
-- hundred bytes: at 1,000 requests a second, over a gigabyte an hour that every standby replays and every
-- archive keeps), and its backend spent 3-6% of the admission's CPU on it (server/README.md, Benchmark).
-- What is given up: after a crash, and on a standby promoted to primary, the windows start empty, so a key
-- may make up to twice its limit in the minute that follows (before, a crash already forgot the counts
-- not yet flushed: the window's commits are asynchronous). A standby never reads them: admissions run on
-- the primary. The hits table (unused since 0014) goes first: a logged table may not reference an
-- unlogged one. Each table is rewritten under its exclusive lock: they hold a row per key.
ALTER TABLE rate_limit_hits SET UNLOGGED;
ALTER TABLE rate_limit_windows SET UNLOGGED;

-- Down Migration
ALTER TABLE rate_limit_windows SET LOGGED;
ALTER TABLE rate_limit_hits SET LOGGED;
