export const content = `HolidayKit answers calendar questions for the countries it covers.

- {{tool:listCountries:description}} Call it first when the user names a country rather than its code.
- {{tool:getPublicHolidays:description}} Regional holidays carry ISO 3166-2 region codes; filter
  with its \`region\` parameter.
- {{tool:getNextHolidays:description}}
- {{tool:checkWorkingDay:description}}

Country codes are ISO 3166-1 alpha-2: {{countries:alpha2}}.`
