-- The tables of the pg backend (pg.go), made or brought up to date by
-- migrate in one transaction: every statement may run again. @schema is
-- replaced by the schema's quoted name. Version 2 (pgSchemaVersion).

CREATE SCHEMA IF NOT EXISTS @schema;

CREATE TABLE IF NOT EXISTS @schema.meta (key text PRIMARY KEY, value text NOT NULL);

CREATE TABLE IF NOT EXISTS @schema.states (
	workspace text PRIMARY KEY,
	lineage text NOT NULL,
	serial bigint NOT NULL,
	format_version int NOT NULL,
	voxform_version text NOT NULL,
	moved_to json,
	updated_at timestamptz NOT NULL DEFAULT now());

-- The derived columns of resources are for people querying the table;
-- resource (the state file's JSON of the resource, kept as written: type
-- json, not jsonb) is what voxform reads.
CREATE TABLE IF NOT EXISTS @schema.resources (
	workspace text NOT NULL REFERENCES @schema.states ON DELETE CASCADE,
	address text NOT NULL,
	kind text NOT NULL,
	status text NOT NULL,
	fingerprint text NOT NULL,
	job_id text,
	file_id text,
	billed_characters bigint,
	billed_audio_seconds double precision,
	created_at timestamptz,
	updated_at timestamptz,
	resource json NOT NULL,
	PRIMARY KEY (workspace, address));

CREATE TABLE IF NOT EXISTS @schema.job_intents (
	workspace text NOT NULL REFERENCES @schema.states ON DELETE CASCADE,
	id text NOT NULL,
	seq bigserial,
	intent json NOT NULL,
	PRIMARY KEY (workspace, id));

CREATE TABLE IF NOT EXISTS @schema.written (
	workspace text NOT NULL REFERENCES @schema.states ON DELETE CASCADE,
	path text NOT NULL,
	address text NOT NULL,
	entry json NOT NULL,
	PRIMARY KEY (workspace, path));

CREATE TABLE IF NOT EXISTS @schema.locks (
	workspace text PRIMARY KEY,
	id text NOT NULL,
	info json NOT NULL,
	backend_pid int NOT NULL,
	lease_until timestamptz NOT NULL);

-- Version 2: every resource row has the transaction that wrote it last,
-- every removal a row of its own, and every state an epoch that changes
-- when its rows are replaced whole, so that a reader holding a snapshot
-- reads only what changed since (pgsnapshot.go).
ALTER TABLE @schema.resources ADD COLUMN IF NOT EXISTS tx xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX IF NOT EXISTS resources_tx ON @schema.resources (workspace, tx);

CREATE TABLE IF NOT EXISTS @schema.removed (
	workspace text NOT NULL REFERENCES @schema.states ON DELETE CASCADE,
	address text NOT NULL,
	tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
	at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (workspace, address));
CREATE INDEX IF NOT EXISTS removed_tx ON @schema.removed (workspace, tx);

ALTER TABLE @schema.states ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0;

-- Triggers keep tx and removed right whoever writes the rows (a row
-- edited by hand too). A row deleted with its state (a state replaced
-- whole, which changes the epoch) leaves no removal.
CREATE OR REPLACE FUNCTION @schema.stamp() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		NEW.tx := pg_current_xact_id();
		IF TG_OP = 'INSERT' THEN
			DELETE FROM @schema.removed WHERE workspace = NEW.workspace AND address = NEW.address;
		END IF;
		RETURN NEW;
	END $$;
DROP TRIGGER IF EXISTS stamp ON @schema.resources;
CREATE TRIGGER stamp BEFORE INSERT OR UPDATE ON @schema.resources FOR EACH ROW EXECUTE FUNCTION @schema.stamp();

CREATE OR REPLACE FUNCTION @schema.note_removed() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF EXISTS (SELECT 1 FROM @schema.states WHERE workspace = OLD.workspace) THEN
			INSERT INTO @schema.removed (workspace, address) VALUES (OLD.workspace, OLD.address)
			ON CONFLICT (workspace, address) DO UPDATE SET tx = pg_current_xact_id(), at = now();
		END IF;
		RETURN OLD;
	END $$;
DROP TRIGGER IF EXISTS note_removed ON @schema.resources;
CREATE TRIGGER note_removed AFTER DELETE ON @schema.resources FOR EACH ROW EXECUTE FUNCTION @schema.note_removed();
