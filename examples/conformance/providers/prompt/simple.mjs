// The conformance suite's `test_simple_prompt` (scenario prompts-get-simple): served with
// `--tool-names reference`, prompt `test-simple` of namespace `prompt` is `test_simple_prompt`
// (D134). A schema needs a tool; `fixedText` answers from a handler without a network.
export const main = {
    namespace: 'prompt',
    name: 'ConformanceSimplePrompt',
    description: 'A prompt without arguments for the MCP conformance suite, beside a fixed text tool.',
    version: '4.2.0',
    schemaVersion: '1.0.0',
    root: 'https://conformance.invalid',
    tags: [ 'conformance' ],
    tools: {
        fixedText: {
            method: 'GET',
            path: '/fixed-text',
            description: 'Returns a fixed text for testing.',
            parameters: [],
            output: {
                mimeType: 'text/plain',
                schema: { type: 'string', description: 'The fixed text' }
            },
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'conformance fixed text',
                aliases: [],
                alwaysLoad: false
            },
            tests: [
                { _description: 'The fixed answer, first call' },
                { _description: 'The fixed answer, second call' },
                { _description: 'The fixed answer, third call' }
            ]
        }
    },
    prompts: {
        testSimple: {
            name: 'test-simple',
            version: 'flowmcp-prompt/1.0.0',
            namespace: 'prompt',
            description: 'A simple prompt without arguments',
            dependsOn: [ 'fixedText' ],
            references: [],
            contentFile: './prompts/test-simple.mjs'
        }
    }
}

export const handlers = () => ( {
    fixedText: {
        executeRequest: async ( { struct, payload } ) => ( { response: 'A fixed text.' } )
    }
} )
