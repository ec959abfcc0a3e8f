export const agent = {
    hash: 'sha256:c6a98878007cd1599e3c274a4b2435d1accbac3eb3f0a10c7f8f9ef9bc976b1f',
    name: 'holiday-planner',
    version: 'flowmcp/4.0.0',
    description: 'Plans days off: public holidays, working days and long weekends in the countries HolidayKit covers.',
    model: 'anthropic/claude-sonnet-4-5',
    systemPrompt: 'You plan days off. Look every date up with your tools and never guess one. Answer with a short table and name the holidays you used.',
    maxRounds: 6,
    tools: {
        'holidaykit-net/tool/listCountries': null,
        'holidaykit-net/tool/getPublicHolidays': null,
        'holidaykit-net/tool/checkWorkingDay': null
    },
    prompts: {
        'holidaykit-net/prompt/about': null
    },
    selections: [ 'trip-planning/selection/days-off' ],
    sharedLists: [ 'countries' ],
    elicitation: {
        enabled: true,
        maxRounds: 2,
        requestedSchemas: [
            {
                message: 'Which country do you live in?',
                requestedSchema: {
                    type: 'object',
                    properties: {
                        countryCode: { type: 'string', title: 'Country', description: 'ISO 3166-1 alpha-2 code, e.g. DE' }
                    },
                    required: [ 'countryCode' ]
                }
            }
        ]
    },
    tests: [
        {
            _description: 'The holidays of one country and year',
            input: 'Which public holidays does Germany have in 2026?',
            expectedTools: [ 'holidaykit-net/tool/getPublicHolidays' ],
            expectedContent: [ 'German Unity Day' ]
        },
        {
            _description: 'One date checked',
            input: 'Is 2026-10-03 a working day in Germany?',
            expectedTools: [ 'holidaykit-net/tool/checkWorkingDay' ]
        },
        {
            _description: 'A country named, not coded, then its holidays',
            input: 'I live in Austria. Plan my long weekends for 2026.',
            expectedTools: [ 'holidaykit-net/tool/listCountries', 'holidaykit-net/tool/getPublicHolidays' ]
        }
    ]
}
