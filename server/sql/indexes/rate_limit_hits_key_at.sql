-- The previous release's rate window (unused since migration 0014; dropped with its table by the next release).
CREATE INDEX rate_limit_hits_key_at ON rate_limit_hits (key_id, at);
