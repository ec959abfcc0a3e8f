// The conformance suite's `test_image_content` (scenario tools-call-image): tool `testImage` of
// namespace `content` under `--tool-names reference`. Chapter 04 lets a tool declare `image/png`
// output (a base64 string); the server answers it as text, not as an MCP image item (D130).
export const main = {
    namespace: 'content',
    name: 'ConformanceImageContent',
    description: 'A one-pixel PNG image as base64, for the MCP conformance suite.',
    version: '4.2.0',
    schemaVersion: '1.0.0',
    root: 'https://conformance.invalid',
    tags: [ 'conformance' ],
    tools: {
        testImage: {
            method: 'GET',
            path: '/image',
            description: 'Returns a 1x1 red PNG image, base64-encoded.',
            parameters: [],
            output: {
                mimeType: 'image/png',
                schema: { type: 'string', format: 'base64', description: 'The PNG, base64-encoded' }
            },
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'conformance image',
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
    testImage: {
        executeRequest: async ( { struct, payload } ) => ( {
            response: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='
        } )
    }
} )
