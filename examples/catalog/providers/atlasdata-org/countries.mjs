export const main = {
    namespace: 'atlasdata-org',
    name: 'AtlasCountries',
    description: 'Country facts from a small local database and a guide to them; works offline, with no server and no key.',
    version: '4.2.0',
    docs: [ 'https://atlasdata.org/docs' ],
    tags: [ 'geography', 'reference-data', 'offline' ],
    dataLicenseName: 'CC0-1.0',
    tools: {},
    resources: {
        countries: {
            source: 'sqlite',
            mode: 'in-memory',
            origin: 'inline',
            name: 'atlasdata-org-countries.db',
            description: 'Countries with their ISO code, capital, continent and calling code',
            queries: {
                byCode: {
                    sql: 'SELECT code, name, capital, continent, calling_code FROM countries WHERE code = ? COLLATE NOCASE',
                    description: 'One country by its ISO 3166-1 alpha-2 code',
                    parameters: [
                        {
                            position: { key: 'code', value: '{{USER_PARAM}}' },
                            z: { primitive: 'string()', options: [ 'length(2)' ] },
                            description: 'ISO 3166-1 alpha-2 code, e.g. DE (any case)'
                        }
                    ],
                    output: {
                        mimeType: 'application/json',
                        schema: {
                            type: 'array',
                            items: {
                                type: 'object',
                                properties: {
                                    code: { type: 'string', description: 'ISO 3166-1 alpha-2 code' },
                                    name: { type: 'string', description: 'English name' },
                                    capital: { type: 'string', description: 'Capital city' },
                                    continent: { type: 'string', description: 'Continent' },
                                    calling_code: { type: 'string', description: 'International calling code' }
                                }
                            }
                        }
                    },
                    tests: [
                        { _description: 'Germany by its upper-case code', code: 'DE' },
                        { _description: 'Japan by its lower-case code', code: 'jp' },
                        { _description: 'A code no country has', code: 'ZZ' }
                    ]
                },
                byContinent: {
                    sql: 'SELECT code, name, capital FROM countries WHERE continent = ? ORDER BY name',
                    description: 'The countries of one continent, by name',
                    parameters: [
                        {
                            position: { key: 'continent', value: '{{USER_PARAM}}' },
                            z: { primitive: 'enum(Africa,Asia,Europe,North America,Oceania,South America)', options: [ 'default(Europe)' ] },
                            description: 'The continent'
                        }
                    ],
                    output: {
                        mimeType: 'application/json',
                        schema: {
                            type: 'array',
                            items: {
                                type: 'object',
                                properties: {
                                    code: { type: 'string', description: 'ISO 3166-1 alpha-2 code' },
                                    name: { type: 'string', description: 'English name' },
                                    capital: { type: 'string', description: 'Capital city' }
                                }
                            }
                        }
                    },
                    tests: [
                        { _description: 'European countries', continent: 'Europe' },
                        { _description: 'Asian countries', continent: 'Asia' },
                        { _description: 'South American countries', continent: 'South America' }
                    ]
                }
            }
        },
        guide: {
            source: 'markdown',
            origin: 'inline',
            name: 'atlasdata-org-guide.md',
            description: 'How the country data is organised and how to query it'
        }
    }
}
