export const list = {
    meta: {
        name: 'languages',
        version: '1.0.0',
        description: 'Languages the example providers answer in, by ISO 639-1 code.',
        fields: [
            { key: 'code', type: 'string', description: 'ISO 639-1 code' },
            { key: 'name', type: 'string', description: 'English name of the language' }
        ],
        dependsOn: []
    },
    entries: [
        { code: 'de', name: 'German' },
        { code: 'en', name: 'English' },
        { code: 'es', name: 'Spanish' },
        { code: 'fr', name: 'French' },
        { code: 'it', name: 'Italian' },
        { code: 'ja', name: 'Japanese' },
        { code: 'nl', name: 'Dutch' },
        { code: 'pt', name: 'Portuguese' }
    ]
}
