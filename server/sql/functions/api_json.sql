-- The previous release's page statements read `l.api_json`; with no such column PostgreSQL reads that as
-- api_json(l), so its instances keep serving the same pages while and after this applies.
CREATE OR REPLACE FUNCTION api_json(l loads) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT load_json(l)
$$;
