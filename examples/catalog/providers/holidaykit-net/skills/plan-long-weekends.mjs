const content = `## Plan long weekends in {{input:countryCode}} for {{input:year}}

The public holidays of that year, fetched for you before this skill was delivered:

{{prefill:holidaykit-net/tool/getPublicHolidays}}

## Step 1: Check the list

If the list above is an error, call the tool yourself:

{{tool:getPublicHolidays}}

Limit the result to the region {{input:region}} when one was given (leave \`region\` out otherwise).

## Step 2: Find the long weekends

For every holiday, note its weekday. A holiday on a Monday or a Friday is a long weekend on its own;
one on a Tuesday or a Thursday becomes one with a single day off (a bridge day). Check any date you
are unsure about with:

{{tool:checkWorkingDay:parameters}}

Example: {{tool:checkWorkingDay:call}}

## Step 3: Answer

A table with the date, the weekday, the holiday and the days off needed, sorted by date.`

export const skill = {
    name: 'plan-long-weekends',
    version: 'flowmcp/4.0.0',
    type: 'namespace',
    description: 'Plan the long weekends of a year from its public holidays, with the bridge days to take off.',
    whenToUse: 'When the user wants to plan days off or asks where the long weekends of a year are.',
    requires: {
        tools: [ 'getPublicHolidays', 'checkWorkingDay' ],
        resources: [],
        external: []
    },
    input: [
        { key: 'year', type: 'number', description: 'Four-digit calendar year', required: true },
        { key: 'countryCode', type: 'string', description: 'ISO 3166-1 alpha-2 country code, e.g. DE', required: true },
        { key: 'region', type: 'string', description: 'ISO 3166-2 region code for regional holidays, e.g. DE-BY', required: false }
    ],
    output: 'A Markdown table of long weekends with the bridge days to take off.',
    prefill: [
        { tool: 'holidaykit-net/tool/getPublicHolidays', params: { year: '{{input:year}}', countryCode: '{{input:countryCode}}' } }
    ],
    content
}
