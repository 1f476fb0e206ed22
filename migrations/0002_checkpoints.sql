-- Signed checkpoints of the global chain (docs/audit.md, "Checkpoints"): the service's
-- Ed25519 signature over (seq, chain_hash, signed_at_us, key_id). Append-only like events.
CREATE TABLE checkpoints (
  seq          INTEGER PRIMARY KEY,
  chain_hash   BLOB    NOT NULL CHECK (length(chain_hash) = 32),
  signed_at_us INTEGER NOT NULL,
  key_id       TEXT    NOT NULL CHECK (length(key_id) > 0),
  signature    BLOB    NOT NULL CHECK (length(signature) > 0)
) STRICT;

CREATE TRIGGER checkpoints_refuse_update BEFORE UPDATE ON checkpoints
BEGIN
  SELECT RAISE(ABORT, 'checkpoints is append-only: UPDATE refused');
END;

CREATE TRIGGER checkpoints_refuse_delete BEFORE DELETE ON checkpoints
BEGIN
  SELECT RAISE(ABORT, 'checkpoints is append-only: DELETE refused');
END;

-- A checkpoint names an event of the log by its seq and chain hash, after every earlier one.
CREATE TRIGGER checkpoints_check_append BEFORE INSERT ON checkpoints
BEGIN
  SELECT RAISE(ABORT, 'checkpoints.seq must be above the newest checkpoint')
   WHERE NEW.seq <= (SELECT IFNULL(MAX(seq), 0) FROM checkpoints);
  SELECT RAISE(ABORT, 'checkpoints.chain_hash must be the chain_hash of the event at seq')
   WHERE NEW.chain_hash IS NOT (SELECT chain_hash FROM events WHERE seq = NEW.seq);
END;
