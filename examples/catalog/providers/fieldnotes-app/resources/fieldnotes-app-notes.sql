-- The schema of fieldnotes-app/resource/notes. Create the database with
--   flowmcp resource init fieldnotes-app/resource/notes --catalog examples/catalog
-- which places it in .flowmcp/resources/ of the project.
CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    topic TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX notes_by_topic ON notes (topic, id);
