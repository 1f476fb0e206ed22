-- Snapshots bound to the log (docs/audit.md, "Snapshots"), as the SQLite log's 0003: every
-- snapshot carries the chain_hash of the event at its seq, the SHA-256 of its state bytes, and
-- the service's Ed25519 signature over them with the key id. Rows without a seal cannot be
-- trusted and go with the old table; projectors write sealed snapshots again.
DROP TABLE projection_snapshots;

CREATE TABLE projection_snapshots (
  projection     text   COLLATE "C" NOT NULL,
  seq            bigint NOT NULL,
  schema_version bigint NOT NULL,
  state          bytea  NOT NULL,
  chain_hash     bytea  NOT NULL CHECK (length(chain_hash) = 32),
  state_sha256   bytea  NOT NULL CHECK (length(state_sha256) = 32),
  key_id         text   COLLATE "C" NOT NULL CHECK (length(key_id) > 0),
  signature      bytea  NOT NULL CHECK (length(signature) > 0),
  PRIMARY KEY (projection, seq)
);

-- A snapshot names an event of the log by its seq and chain hash. This guards against
-- mistakes only: the table is not append-only, and loading checks every seal.
CREATE FUNCTION projection_snapshots_check_chain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.chain_hash IS DISTINCT FROM (SELECT chain_hash FROM events WHERE seq = NEW.seq) THEN
    RAISE EXCEPTION
      'projection_snapshots.chain_hash must be the chain_hash of the event at seq'
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER projection_snapshots_check_chain BEFORE INSERT OR UPDATE ON projection_snapshots
  FOR EACH ROW EXECUTE FUNCTION projection_snapshots_check_chain();
