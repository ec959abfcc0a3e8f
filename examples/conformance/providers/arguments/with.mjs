// The conformance suite's `test_prompt_with_arguments` (scenario prompts-get-with-args): served
// with `--tool-names reference`, prompt `test-prompt-with` of namespace `arguments` is
// `test_prompt_with_arguments` (D134); its arguments `arg1` and `arg2` come from the content's
// `{{input:…}}` placeholders. A schema needs a tool; `echoArguments` answers a fixed text from a handler.
export const main = {
    namespace: 'arguments',
    name: 'ConformancePromptWithArguments',
    description: 'A prompt with two arguments for the MCP conformance suite, beside a tool that takes them.',
    version: '4.2.0',
    schemaVersion: '1.0.0',
    root: 'https://conformance.invalid',
    tags: [ 'conformance' ],
    tools: {
        echoArguments: {
            method: 'GET',
            path: '/echo',
            description: 'Takes two arguments and returns a fixed text.',
            parameters: [
                {
                    position: { key: 'arg1', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'string()', options: [] }
                },
                {
                    position: { key: 'arg2', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'string()', options: [] }
                }
            ],
            output: {
                mimeType: 'text/plain',
                schema: { type: 'string', description: 'Both arguments' }
            },
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'conformance echo arguments',
                aliases: [],
                alwaysLoad: false
            },
            tests: [
                { _description: 'Two words', arg1: 'first', arg2: 'second' },
                { _description: 'Two other words', arg1: 'one', arg2: 'two' },
                { _description: 'Two numbers as text', arg1: '1', arg2: '2' }
            ]
        }
    },
    prompts: {
        testPromptWith: {
            name: 'test-prompt-with',
            version: 'flowmcp-prompt/1.0.0',
            namespace: 'arguments',
            description: 'A prompt with required arguments',
            dependsOn: [ 'echoArguments' ],
            references: [],
            contentFile: './prompts/test-prompt-with.mjs'
        }
    }
}

export const handlers = () => ( {
    echoArguments: {
        executeRequest: async ( { struct, payload } ) => ( { response: 'echo' } )
    }
} )
