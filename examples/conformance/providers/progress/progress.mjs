// The conformance suite's `test_tool_with_progress` (scenario tools-call-with-progress): tool
// `testToolWith` of namespace `progress` under `--tool-names reference`. The server reports a
// call's phases as progress (D129); the handler only answers.
export const main = {
    namespace: 'progress',
    name: 'ConformanceProgress',
    description: 'A tool whose call reports progress, for the MCP conformance suite.',
    version: '4.2.0',
    schemaVersion: '1.0.0',
    root: 'https://conformance.invalid',
    tags: [ 'conformance' ],
    tools: {
        testToolWith: {
            method: 'GET',
            path: '/progress',
            description: 'Answers after the server has reported the phases of the call as progress.',
            parameters: [],
            output: {
                mimeType: 'text/plain',
                schema: { type: 'string', description: 'A confirmation' }
            },
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'conformance progress',
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
        executeRequest: async ( { struct, payload } ) => ( { response: 'Tool with progress executed.' } )
    }
} )
