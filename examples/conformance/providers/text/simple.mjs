// The conformance suite's `test_simple_text` (scenario tools-call-simple-text): served with
// `--tool-names reference`, tool `testSimple` of namespace `text` is `test_simple_text`.
export const main = {
    namespace: 'text',
    name: 'ConformanceSimpleText',
    description: 'A fixed text answer for the MCP conformance suite, produced by a handler without a network.',
    version: '4.2.0',
    schemaVersion: '1.0.0',
    root: 'https://conformance.invalid',
    tags: [ 'conformance' ],
    tools: {
        testSimple: {
            method: 'GET',
            path: '/simple-text',
            description: 'Returns a simple text response for testing.',
            parameters: [],
            output: {
                mimeType: 'text/plain',
                schema: { type: 'string', description: 'The fixed text' }
            },
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'conformance simple text',
                aliases: [],
                alwaysLoad: false
            },
            tests: [
                { _description: 'The fixed answer, first call' },
                { _description: 'The fixed answer, second call' },
                { _description: 'The fixed answer, third call' }
            ]
        }
    }
}

export const handlers = () => ( {
    testSimple: {
        executeRequest: async ( { struct, payload } ) => ( { response: 'This is a simple text response for testing.' } )
    }
} )
