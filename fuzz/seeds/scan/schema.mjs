// A small schema module: prose mentioning eval( and process.env stays invisible.
export const main = {
    namespace: 'demo',
    name: 'Demo "API"',
    description: `Uses ${'template'} text; import nothing`,
    root: 'https://api.example.com/v1',
    requiredServerParams: [ 'API_KEY' ],
    headers: { 'X-Key': '{{SERVER_PARAM:API_KEY}}' },
    tools: {
        getThing: {
            method: 'GET', path: '/things/{{id}}', description: 'Gets /* not a comment */ a thing',
            parameters: [ { position: { key: 'id', value: '{{USER_PARAM}}', location: 'insert' }, z: { primitive: 'string()', options: [ 'min(1)' ] } } ]
        }
    }
}

export const handlers = ( { sharedLists, libraries } ) => ( {
    getThing: {
        postRequest: async ( { response } ) => {
            const re = /eval\s*\(/g
            if( response.x ) { return { response: response.x.replace( re, '' ) } }
            return { response }
        }
    }
} )
