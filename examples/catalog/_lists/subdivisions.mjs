export const list = {
    meta: {
        name: 'subdivisions',
        version: '1.0.0',
        description: 'ISO 3166-2 subdivisions (states, provinces, regions) that have public holidays of their own.',
        fields: [
            { key: 'code', type: 'string', description: 'ISO 3166-2 code, e.g. DE-BY' },
            { key: 'name', type: 'string', description: 'English name' },
            { key: 'countryRef', type: 'string', description: 'alpha2 of the country in the countries list' }
        ],
        dependsOn: [
            { ref: 'countries', version: '1.0.0', condition: { field: 'holidays', value: true } }
        ]
    },
    entries: [
        { code: 'AT-7', name: 'Tyrol', countryRef: 'AT' },
        { code: 'AT-9', name: 'Vienna', countryRef: 'AT' },
        { code: 'AU-NSW', name: 'New South Wales', countryRef: 'AU' },
        { code: 'CA-QC', name: 'Quebec', countryRef: 'CA' },
        { code: 'DE-BE', name: 'Berlin', countryRef: 'DE' },
        { code: 'DE-BY', name: 'Bavaria', countryRef: 'DE' },
        { code: 'DE-HH', name: 'Hamburg', countryRef: 'DE' },
        { code: 'GB-SCT', name: 'Scotland', countryRef: 'GB' },
        { code: 'US-CA', name: 'California', countryRef: 'US' },
        { code: 'US-TX', name: 'Texas', countryRef: 'US' }
    ]
}
