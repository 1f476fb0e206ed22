-- Snapshots bound to the log (docs/audit.md, "Snapshots"): every snapshot carries the
-- chain_hash of the event at its seq, the SHA-256 of its state bytes, and the service's Ed25519
-- signature over them with the key id, so that a snapshot edited in the file, moved to another
-- seq or copied from another log is refused when it is loaded.
--
-- The rows written before this migration carry no seal and cannot be trusted: they are
-- dropped with the old table. Snapshots are only a cache of the folds of the log; projectors
-- rebuild from the log and write sealed snapshots again as they follow it.
DROP TABLE projection_snapshots;

CREATE TABLE projection_snapshots (
  projection     TEXT    NOT NULL,
  seq            INTEGER NOT NULL,
  schema_version INTEGER NOT NULL,
  state          BLOB    NOT NULL,
  chain_hash     BLOB    NOT NULL CHECK (length(chain_hash) = 32),
  state_sha256   BLOB    NOT NULL CHECK (length(state_sha256) = 32),
  key_id         TEXT    NOT NULL CHECK (length(key_id) > 0),
  signature      BLOB    NOT NULL CHECK (length(signature) > 0),
  PRIMARY KEY (projection, seq)
) STRICT;

-- A snapshot names an event of the log by its seq and chain hash. This guards against
-- mistakes only: the table is not append-only, and loading checks every seal.
CREATE TRIGGER projection_snapshots_check_chain BEFORE INSERT ON projection_snapshots
BEGIN
  SELECT RAISE(ABORT, 'projection_snapshots.chain_hash must be the chain_hash of the event at seq')
   WHERE NEW.chain_hash IS NOT (SELECT chain_hash FROM events WHERE seq = NEW.seq);
END;
