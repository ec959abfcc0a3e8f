// The conformance suite's `test_error_handling` (scenario tools-call-error): tool `testError` of
// namespace `handling` under `--tool-names reference`. Its handler always fails.
export const main = {
    namespace: 'handling',
    name: 'ConformanceErrorHandling',
    description: 'A tool that always fails, for the MCP conformance suite.',
    version: '4.2.0',
    schemaVersion: '1.0.0',
    root: 'https://conformance.invalid',
    tags: [ 'conformance' ],
    tools: {
        testError: {
            method: 'GET',
            path: '/error',
            description: 'Always returns an error, for testing.',
            parameters: [],
            output: {
                mimeType: 'text/plain',
                schema: { type: 'string', description: 'Never given: the call fails' }
            },
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'conformance error',
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
    testError: {
        executeRequest: async ( { struct, payload } ) => {
            throw new Error( 'This tool intentionally returns an error for testing' )
        }
    }
} )
