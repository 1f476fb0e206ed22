-- Signed checkpoints of the global chain (docs/audit.md, "Checkpoints"), as the SQLite log's
-- 0002: the service's Ed25519 signature over (seq, chain_hash, signed_at_us, key_id).
-- Append-only like events.
CREATE TABLE checkpoints (
  seq          bigint PRIMARY KEY,
  chain_hash   bytea  NOT NULL CHECK (length(chain_hash) = 32),
  signed_at_us bigint NOT NULL,
  key_id       text   COLLATE "C" NOT NULL CHECK (length(key_id) > 0),
  signature    bytea  NOT NULL CHECK (length(signature) > 0)
);

CREATE TRIGGER checkpoints_refuse_update BEFORE UPDATE ON checkpoints
  FOR EACH ROW EXECUTE FUNCTION credledger_refuse_change();
CREATE TRIGGER checkpoints_refuse_delete BEFORE DELETE ON checkpoints
  FOR EACH ROW EXECUTE FUNCTION credledger_refuse_change();
CREATE TRIGGER checkpoints_refuse_truncate BEFORE TRUNCATE ON checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION credledger_refuse_change();
REVOKE UPDATE, DELETE, TRUNCATE ON checkpoints FROM PUBLIC;

-- A checkpoint names an event of the log by its seq and chain hash, after every earlier one.
CREATE FUNCTION checkpoints_check_append() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.seq <= (SELECT COALESCE(MAX(seq), 0) FROM checkpoints) THEN
    RAISE EXCEPTION 'checkpoints.seq must be above the newest checkpoint'
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.chain_hash IS DISTINCT FROM (SELECT chain_hash FROM events WHERE seq = NEW.seq) THEN
    RAISE EXCEPTION 'checkpoints.chain_hash must be the chain_hash of the event at seq'
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER checkpoints_check_append BEFORE INSERT ON checkpoints
  FOR EACH ROW EXECUTE FUNCTION checkpoints_check_append();
