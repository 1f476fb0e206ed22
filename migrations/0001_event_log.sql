-- The append-only event log (DESIGN section 3; encoding in docs/log-format.md).
CREATE TABLE events (
  seq             INTEGER PRIMARY KEY,
  stream          TEXT    NOT NULL CHECK (length(stream) > 0),
  stream_version  INTEGER NOT NULL CHECK (stream_version >= 0),
  event_id        BLOB    NOT NULL UNIQUE CHECK (length(event_id) = 16),
  type            TEXT    NOT NULL CHECK (length(type) > 0),
  schema_version  INTEGER NOT NULL CHECK (schema_version >= 1),
  recorded_at_us  INTEGER NOT NULL,
  metadata        BLOB    NOT NULL,
  payload         BLOB    NOT NULL,
  digest          BLOB    NOT NULL CHECK (length(digest) = 32),
  prev_chain_hash BLOB    NOT NULL CHECK (length(prev_chain_hash) = 32),
  chain_hash      BLOB    NOT NULL CHECK (length(chain_hash) = 32),
  stream_hash     BLOB    NOT NULL CHECK (length(stream_hash) = 32),
  UNIQUE (stream, stream_version)
) STRICT;

CREATE INDEX events_by_time ON events (recorded_at_us);

-- Append-only: no UPDATE, no DELETE. INSERT OR REPLACE can only replace through a conflict
-- on seq, (stream, stream_version) or event_id, and events_check_append refuses all three
-- before the conflict is resolved, whether or not the connection has recursive_triggers on.
CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events
BEGIN
  SELECT RAISE(ABORT, 'events is append-only: UPDATE refused');
END;

CREATE TRIGGER events_refuse_delete BEFORE DELETE ON events
BEGIN
  SELECT RAISE(ABORT, 'events is append-only: DELETE refused');
END;

-- Positions: seq gap-free from 1, stream_version gap-free from 0 per stream, time strictly
-- increasing, and each event linked to its predecessor's chain hash.
CREATE TRIGGER events_check_append BEFORE INSERT ON events
BEGIN
  SELECT RAISE(ABORT, 'events.seq must be the next global position')
   WHERE NEW.seq IS NOT (SELECT IFNULL(MAX(seq), 0) + 1 FROM events);
  SELECT RAISE(ABORT, 'events.stream_version must be the next position of its stream')
   WHERE NEW.stream_version IS NOT
         (SELECT IFNULL(MAX(stream_version), -1) + 1 FROM events WHERE stream = NEW.stream);
  SELECT RAISE(ABORT, 'events.event_id must be new')
   WHERE EXISTS (SELECT 1 FROM events WHERE event_id = NEW.event_id);
  SELECT RAISE(ABORT, 'events.recorded_at_us must increase strictly')
   WHERE NEW.recorded_at_us <= (SELECT recorded_at_us FROM events WHERE seq = NEW.seq - 1);
  SELECT RAISE(ABORT, 'events.prev_chain_hash must equal the previous chain_hash')
   WHERE NEW.prev_chain_hash IS NOT
         IFNULL((SELECT chain_hash FROM events WHERE seq = NEW.seq - 1), zeroblob(32));
END;

-- The highest schema version stored per event type, so start-up can refuse unknown types
-- and newer versions without scanning the log.
CREATE TABLE event_types (
  type               TEXT    PRIMARY KEY,
  max_schema_version INTEGER NOT NULL
) STRICT;

CREATE TRIGGER events_track_type AFTER INSERT ON events
BEGIN
  INSERT INTO event_types (type, max_schema_version) VALUES (NEW.type, NEW.schema_version)
  ON CONFLICT (type) DO UPDATE SET max_schema_version = excluded.max_schema_version
   WHERE excluded.max_schema_version > max_schema_version;
END;

-- Projection snapshots: state as of seq, kept so as-of queries start from the nearest one.
CREATE TABLE projection_snapshots (
  projection     TEXT    NOT NULL,
  seq            INTEGER NOT NULL,
  schema_version INTEGER NOT NULL,
  state          BLOB    NOT NULL,
  PRIMARY KEY (projection, seq)
) STRICT;
