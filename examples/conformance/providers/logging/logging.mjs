// The conformance suite's `test_tool_with_logging` (scenario tools-call-with-logging): tool
// `testToolWith` of namespace `logging` under `--tool-names reference`. The server sends a call's
// phases as log messages at the session's level (D129); the handler only answers.
export const main = {
    namespace: 'logging',
    name: 'ConformanceLogging',
    description: 'A tool whose call is logged to the client, for the MCP conformance suite.',
    version: '4.2.0',
    schemaVersion: '1.0.0',
    root: 'https://conformance.invalid',
    tags: [ 'conformance' ],
    tools: {
        testToolWith: {
            method: 'GET',
            path: '/logging',
            description: 'Answers after the server has sent the phases of the call as log messages.',
            parameters: [],
            output: {
                mimeType: 'text/plain',
                schema: { type: 'string', description: 'A confirmation' }
            },
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'conformance logging',
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
    testToolWith: {
        executeRequest: async ( { struct, payload } ) => ( { response: 'Tool with logging executed.' } )
    }
} )
