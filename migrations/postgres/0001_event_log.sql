-- The append-only event log on PostgreSQL: the same columns, positions and checks as the
-- SQLite log's 0001 (docs/log-format.md; docs/postgres.md, "Schema"). Text compares byte by
-- byte (COLLATE "C"), so every order is the same on both backends.
CREATE TABLE events (
  seq             bigint PRIMARY KEY CHECK (seq >= 1),
  stream          text   COLLATE "C" NOT NULL CHECK (length(stream) > 0),
  stream_version  bigint NOT NULL CHECK (stream_version >= 0),
  event_id        bytea  NOT NULL UNIQUE CHECK (length(event_id) = 16),
  type            text   COLLATE "C" NOT NULL CHECK (length(type) > 0),
  schema_version  bigint NOT NULL CHECK (schema_version >= 1),
  recorded_at_us  bigint NOT NULL,
  metadata        bytea  NOT NULL,
  payload         bytea  NOT NULL,
  digest          bytea  NOT NULL CHECK (length(digest) = 32),
  prev_chain_hash bytea  NOT NULL CHECK (length(prev_chain_hash) = 32),
  chain_hash      bytea  NOT NULL CHECK (length(chain_hash) = 32),
  stream_hash     bytea  NOT NULL CHECK (length(stream_hash) = 32),
  UNIQUE (stream, stream_version)
);

CREATE INDEX events_by_time ON events (recorded_at_us);

-- Append-only: no UPDATE, no DELETE, no TRUNCATE, whoever asks. The privileges are revoked
-- too; the owner could grant them back, so the triggers stay the rule.
CREATE FUNCTION credledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'integrity_constraint_violation';
END
$$;

CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events
  FOR EACH ROW EXECUTE FUNCTION credledger_refuse_change();
CREATE TRIGGER events_refuse_delete BEFORE DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION credledger_refuse_change();
CREATE TRIGGER events_refuse_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION credledger_refuse_change();
REVOKE UPDATE, DELETE, TRUNCATE ON events FROM PUBLIC;

-- Positions: seq gap-free from 1, stream_version gap-free from 0 per stream, time strictly
-- increasing, and each event linked to its predecessor's chain hash.
CREATE FUNCTION events_check_append() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  previous events%ROWTYPE;
BEGIN
  SELECT * INTO previous FROM events ORDER BY seq DESC LIMIT 1;
  IF NEW.seq IS DISTINCT FROM COALESCE(previous.seq, 0) + 1 THEN
    RAISE EXCEPTION 'events.seq must be the next global position'
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.stream_version IS DISTINCT FROM
     (SELECT COALESCE(MAX(stream_version), -1) + 1 FROM events WHERE stream = NEW.stream) THEN
    RAISE EXCEPTION 'events.stream_version must be the next position of its stream'
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF EXISTS (SELECT 1 FROM events WHERE event_id = NEW.event_id) THEN
    RAISE EXCEPTION 'events.event_id must be new' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.recorded_at_us <= previous.recorded_at_us THEN
    RAISE EXCEPTION 'events.recorded_at_us must increase strictly'
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.prev_chain_hash IS DISTINCT FROM
     COALESCE(previous.chain_hash, '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea) THEN
    RAISE EXCEPTION 'events.prev_chain_hash must equal the previous chain_hash'
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER events_check_append BEFORE INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION events_check_append();

-- The highest schema version stored per event type, so start-up can refuse unknown types
-- and newer versions without scanning the log.
CREATE TABLE event_types (
  type               text   COLLATE "C" PRIMARY KEY,
  max_schema_version bigint NOT NULL
);

CREATE FUNCTION events_track_type() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_types AS t (type, max_schema_version) VALUES (NEW.type, NEW.schema_version)
  ON CONFLICT (type) DO UPDATE SET max_schema_version = excluded.max_schema_version
   WHERE excluded.max_schema_version > t.max_schema_version;
  RETURN NULL;
END
$$;

CREATE TRIGGER events_track_type AFTER INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION events_track_type();

-- Projection snapshots: state as of seq, kept so as-of queries start from the nearest one.
CREATE TABLE projection_snapshots (
  projection     text   COLLATE "C" NOT NULL,
  seq            bigint NOT NULL,
  schema_version bigint NOT NULL,
  state          bytea  NOT NULL,
  PRIMARY KEY (projection, seq)
);

-- The fence (docs/postgres.md, "The fence"): one row naming the writer's epoch, who holds it,
-- and the head it last committed. Every batch of the writer advances it with a
-- compare-and-set on the epoch, so a writer whose epoch was taken over commits nothing.
CREATE TABLE log_writer (
  id         boolean PRIMARY KEY DEFAULT true CHECK (id),
  epoch      bigint  NOT NULL CHECK (epoch >= 0),
  holder     text    COLLATE "C" NOT NULL,
  seq        bigint  NOT NULL CHECK (seq >= 0),
  chain_hash bytea   NOT NULL CHECK (length(chain_hash) = 32)
);
INSERT INTO log_writer (epoch, holder, seq, chain_hash)
  VALUES (0, '', 0, '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea);
CREATE TRIGGER log_writer_refuse_delete BEFORE DELETE ON log_writer
  FOR EACH ROW EXECUTE FUNCTION credledger_refuse_change();
CREATE TRIGGER log_writer_refuse_truncate BEFORE TRUNCATE ON log_writer
  FOR EACH STATEMENT EXECUTE FUNCTION credledger_refuse_change();

-- Advances the head of the writer at `writer_epoch` from seq `from_seq` to (`new_seq`,
-- `new_chain_hash`); raises SQLSTATE CL001 when another writer has taken the epoch since, and
-- CL002 when the head is not at `from_seq` (the writer's batch before this one did not commit).
CREATE FUNCTION log_writer_advance(writer_epoch bigint, from_seq bigint, new_seq bigint,
                                   new_chain_hash bytea)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE log_writer SET seq = new_seq, chain_hash = new_chain_hash
    WHERE epoch = writer_epoch AND seq = from_seq;
  IF NOT FOUND THEN
    IF EXISTS (SELECT 1 FROM log_writer WHERE epoch = writer_epoch) THEN
      RAISE EXCEPTION 'the log''s head is not seq %: the batch before this one did not commit',
        from_seq USING ERRCODE = 'CL002';
    END IF;
    RAISE EXCEPTION 'the log''s writer epoch is no longer %: another replica took over writing',
      writer_epoch USING ERRCODE = 'CL001';
  END IF;
END
$$;
