export const selection = {
    namespace: 'trip-planning',
    name: 'days-off',
    version: 'flowmcp/4.0.0',
    description: 'Plan days off: the holiday calendar, working-day checks, country facts and the long-weekend skill.',
    whenToUse: 'Activate when the user plans vacation days or long weekends, or asks which days are holidays.',
    tools: [
        'holidaykit-net/tool/getPublicHolidays',
        'holidaykit-net/tool/checkWorkingDay'
    ],
    resources: [ 'atlasdata-org/resource/countries' ],
    prompts: [ 'holidaykit-net/prompt/bridge-days' ],
    skills: [ 'holidaykit-net/skill/plan-long-weekends' ]
}
