export const main = {
    namespace: 'fieldnotes-app',
    name: 'FieldNotes',
    description: 'A notebook an agent keeps in the project: it writes notes and reads them back later.',
    version: '4.2.0',
    docs: [ 'https://fieldnotes.app/docs' ],
    tags: [ 'memory', 'notes', 'offline' ],
    tools: {},
    resources: {
        notes: {
            source: 'sqlite',
            mode: 'file-based',
            origin: 'project',
            name: 'fieldnotes-app-notes.db',
            description: 'Notes written by the agent, kept in .flowmcp/resources/ of the project',
            queries: {
                getSchema: {
                    sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name",
                    description: 'The CREATE TABLE statements of the notebook',
                    parameters: [],
                    output: {
                        mimeType: 'application/json',
                        schema: {
                            type: 'array',
                            items: {
                                type: 'object',
                                properties: {
                                    name: { type: 'string', description: 'Table name' },
                                    sql: { type: 'string', description: 'CREATE TABLE statement' }
                                }
                            }
                        }
                    },
                    tests: [
                        { _description: 'Every table of the notebook' },
                        { _description: 'The tables after the first note' },
                        { _description: 'The tables an agent sees before writing' }
                    ]
                },
                addNote: {
                    sql: 'INSERT INTO notes (topic, text) VALUES (?, ?)',
                    description: 'Adds a note under a topic',
                    parameters: [
                        {
                            position: { key: 'topic', value: '{{USER_PARAM}}' },
                            z: { primitive: 'string()', options: [ 'min(1)', 'max(80)' ] },
                            description: 'A short topic, e.g. release-plan'
                        },
                        {
                            position: { key: 'text', value: '{{USER_PARAM}}' },
                            z: { primitive: 'string()', options: [ 'min(1)', 'max(4000)' ] },
                            description: 'The note'
                        }
                    ],
                    output: {
                        mimeType: 'application/json',
                        schema: { type: 'array', items: { type: 'object', properties: {} } }
                    },
                    tests: [
                        { _description: 'A note about a release', topic: 'release-plan', text: 'Ship on Friday' },
                        { _description: 'A note about a bug', topic: 'bugs', text: 'Login fails on Safari' },
                        { _description: 'A second note on the same topic', topic: 'bugs', text: 'Fixed in 1.2.1' }
                    ]
                },
                byTopic: {
                    sql: 'SELECT id, topic, text, created_at FROM notes WHERE topic = ? ORDER BY id DESC LIMIT ?',
                    description: 'The latest notes on a topic, newest first',
                    parameters: [
                        {
                            position: { key: 'topic', value: '{{USER_PARAM}}' },
                            z: { primitive: 'string()', options: [ 'min(1)' ] },
                            description: 'The topic'
                        },
                        {
                            position: { key: 'count', value: '{{USER_PARAM}}' },
                            z: { primitive: 'number()', options: [ 'min(1)', 'max(100)', 'default(10)' ] },
                            description: 'How many notes'
                        }
                    ],
                    output: {
                        mimeType: 'application/json',
                        schema: {
                            type: 'array',
                            items: {
                                type: 'object',
                                properties: {
                                    id: { type: 'number', description: 'Note number' },
                                    topic: { type: 'string', description: 'Topic' },
                                    text: { type: 'string', description: 'The note' },
                                    created_at: { type: 'string', description: 'When it was written (UTC)' }
                                }
                            }
                        }
                    },
                    tests: [
                        { _description: 'Notes on the release plan', topic: 'release-plan' },
                        { _description: 'The latest bug note', topic: 'bugs', count: 1 },
                        { _description: 'A topic with no notes', topic: 'holidays' }
                    ]
                }
            }
        }
    }
}
