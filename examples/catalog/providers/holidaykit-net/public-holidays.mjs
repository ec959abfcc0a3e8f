export const main = {
    namespace: 'holidaykit-net',
    name: 'PublicHolidays',
    description: 'Public holidays, upcoming days off and working-day checks for the countries the (fictional) HolidayKit API covers.',
    version: '4.2.0',
    schemaVersion: '1.0.0',
    schemaHash: 'a1411451',
    root: 'https://api.holidaykit.net/v1',
    docs: [ 'https://holidaykit.net/docs' ],
    tags: [ 'calendar', 'holidays', 'open-data' ],
    dataLicenseName: 'CC-BY-4.0',
    headers: {
        'Accept': 'application/json'
    },
    sharedLists: [
        { ref: 'countries', version: '1.0.0', filter: { key: 'holidays', value: true } },
        { ref: 'subdivisions', version: '1.0.0' }
    ],
    tools: {
        listCountries: {
            method: 'GET',
            path: '/countries',
            description: 'Lists every supported country with its ISO code and the regions that have their own holidays.',
            parameters: [],
            preload: {
                enabled: true,
                ttl: 86400,
                description: 'Complete country list (~15 KB), refreshed daily'
            },
            output: {
                mimeType: 'application/json',
                schema: {
                    type: 'array',
                    items: {
                        type: 'object',
                        properties: {
                            countryCode: { type: 'string', description: 'ISO 3166-1 alpha-2 code' },
                            name: { type: 'string', description: 'English country name' },
                            regionCount: { type: 'number', description: 'Number of regions with regional holidays' }
                        }
                    }
                }
            },
            tests: [
                { _description: 'Full country list as used to fill a country picker' },
                { _description: 'Country list to look up the ISO code of a country by name' },
                { _description: 'Country list to find countries that have regional holidays' }
            ],
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'supported countries iso codes holidays list',
                aliases: [ 'getCountries' ],
                alwaysLoad: true
            }
        },
        getPublicHolidays: {
            method: 'GET',
            path: '/holidays/{{year}}/{{countryCode}}',
            description: 'Returns all holidays of a country in a given year, optionally filtered by holiday type or region.',
            headers: {
                'Accept-Language': 'en'
            },
            parameters: [
                {
                    position: { key: 'year', value: '{{USER_PARAM}}', location: 'insert' },
                    z: { primitive: 'number()', options: [ 'min(1900)', 'max(2100)' ] },
                    description: 'Four-digit calendar year'
                },
                {
                    position: { key: 'countryCode', value: '{{USER_PARAM}}', location: 'insert' },
                    z: { primitive: 'enum({{countries:alpha2}})', options: [] },
                    description: 'ISO 3166-1 alpha-2 country code, e.g. DE'
                },
                {
                    position: { key: 'type', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'enum(public,bank,school,observance)', options: [ 'optional()' ] },
                    description: 'Only return holidays of this type'
                },
                {
                    position: { key: 'region', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'enum({{subdivisions:code}})', options: [ 'optional()' ] },
                    description: 'ISO 3166-2 region code, e.g. DE-BY'
                }
            ],
            output: {
                mimeType: 'application/json',
                schema: {
                    type: 'array',
                    items: {
                        type: 'object',
                        properties: {
                            date: { type: 'string', description: 'Date of the holiday (YYYY-MM-DD)' },
                            localName: { type: 'string', description: 'Name in the local language' },
                            name: { type: 'string', description: 'English name' },
                            type: { type: 'string', description: 'Holiday type', enum: [ 'public', 'bank', 'school', 'observance' ] },
                            nationwide: { type: 'boolean', description: 'True if the holiday applies to the whole country' },
                            regions: {
                                type: 'array',
                                description: 'Region codes the holiday is limited to',
                                nullable: true,
                                items: { type: 'string', description: 'ISO 3166-2 region code' }
                            }
                        }
                    }
                }
            },
            tests: [
                { _description: 'All holidays in Germany for 2025', year: 2025, countryCode: 'DE' },
                { _description: 'Bank holidays in Scotland for 2024', year: 2024, countryCode: 'GB', type: 'bank', region: 'GB-SCT' },
                { _description: 'Public holidays of one Austrian state in 2026', year: 2026, countryCode: 'AT', type: 'public', region: 'AT-9' }
            ],
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'public holidays year country bank holiday calendar',
                aliases: [ 'holidays', 'getHolidays' ],
                alwaysLoad: false
            }
        },
        getNextHolidays: {
            method: 'GET',
            path: '/holidays/next/{{countryCode}}',
            description: 'Returns the next upcoming holidays of a country, counted from today.',
            parameters: [
                {
                    position: { key: 'countryCode', value: '{{USER_PARAM}}', location: 'insert' },
                    z: { primitive: 'enum({{countries:alpha2}})', options: [] },
                    description: 'ISO 3166-1 alpha-2 country code'
                },
                {
                    position: { key: 'limit', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'number()', options: [ 'min(1)', 'max(50)', 'default(10)' ] },
                    description: 'Maximum number of holidays to return'
                },
                {
                    position: { key: 'includeWeekends', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'boolean()', options: [ 'default(false)' ] },
                    description: 'Also list holidays that fall on a Saturday or Sunday'
                }
            ],
            output: {
                mimeType: 'application/json',
                schema: {
                    type: 'object',
                    properties: {
                        countryCode: { type: 'string', description: 'Country code of the request' },
                        holidays: {
                            type: 'array',
                            description: 'Upcoming holidays in chronological order',
                            items: {
                                type: 'object',
                                properties: {
                                    date: { type: 'string', description: 'Date (YYYY-MM-DD)' },
                                    name: { type: 'string', description: 'English name' },
                                    daysUntil: { type: 'number', description: 'Days from today' }
                                }
                            }
                        }
                    }
                }
            },
            tests: [
                { _description: 'Next ten holidays in France (default limit)', countryCode: 'FR' },
                { _description: 'Next three holidays in Canada', countryCode: 'CA', limit: 3 },
                { _description: 'Next 50 holidays in Brazil including weekend dates', countryCode: 'BR', limit: 50, includeWeekends: true }
            ],
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'next upcoming holiday day off country',
                aliases: [ 'upcomingHolidays' ],
                alwaysLoad: false
            }
        },
        checkWorkingDay: {
            method: 'GET',
            path: '/check/{{countryCode}}/{{date}}',
            description: 'Tells whether a date is a working day or a holiday in a country.',
            parameters: [
                {
                    position: { key: 'countryCode', value: '{{USER_PARAM}}', location: 'insert' },
                    z: { primitive: 'enum({{countries:alpha2}})', options: [] },
                    description: 'ISO 3166-1 alpha-2 country code'
                },
                {
                    position: { key: 'date', value: '{{USER_PARAM}}', location: 'insert' },
                    z: { primitive: 'string()', options: [ 'length(10)' ] },
                    description: 'Date in YYYY-MM-DD format'
                }
            ],
            output: {
                mimeType: 'application/json',
                schema: {
                    type: 'object',
                    properties: {
                        date: { type: 'string', description: 'Checked date' },
                        isHoliday: { type: 'boolean', description: 'True if the date is a public holiday' },
                        isWorkingDay: { type: 'boolean', description: 'True if the date is neither a weekend nor a holiday' },
                        holidayName: { type: 'string', description: 'English holiday name', nullable: true }
                    }
                }
            },
            tests: [
                { _description: 'Christmas Day in Germany', countryCode: 'DE', date: '2025-12-25' },
                { _description: 'Independence Day in the United States', countryCode: 'US', date: '2025-07-04' },
                { _description: 'Ordinary Wednesday in France', countryCode: 'FR', date: '2025-03-12' }
            ],
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'is holiday working day business day date check',
                aliases: [ 'isHoliday', 'isWorkingDay' ],
                alwaysLoad: false
            }
        }
    },
    prompts: {
        about: {
            name: 'about',
            version: 'flowmcp-prompt/1.0.0',
            namespace: 'holidaykit-net',
            description: 'What the HolidayKit tools offer and how they fit together',
            dependsOn: [ 'listCountries', 'getPublicHolidays', 'getNextHolidays', 'checkWorkingDay' ],
            references: [],
            contentFile: './prompts/about.mjs'
        },
        bridgeDays: {
            name: 'bridge-days',
            version: 'flowmcp-prompt/1.0.0',
            namespace: 'holidaykit-net',
            description: 'Find bridge days: working days between a holiday and a weekend',
            dependsOn: [ 'getPublicHolidays', 'checkWorkingDay' ],
            references: [ 'holidaykit-net/prompt/about' ],
            contentFile: './prompts/bridge-days.mjs'
        }
    }
}
