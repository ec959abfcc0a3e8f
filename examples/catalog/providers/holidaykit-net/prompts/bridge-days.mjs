export const content = `Find the bridge days of {{input:countryCode}} in {{input:year}}: working days that sit between a
public holiday and a weekend, so that one day off gives a long weekend.

1. Get the year's holidays:

{{tool:getPublicHolidays}}

2. For each holiday on a Tuesday or a Thursday, the Monday or the Friday next to it is a candidate.
   Confirm each candidate with {{tool:checkWorkingDay:call}}

3. Answer with a table: date, weekday, the holiday it bridges, and how many days off in a row it gives.`
