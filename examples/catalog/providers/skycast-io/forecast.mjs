export const main = {
    namespace: 'skycast-io',
    name: 'SkycastForecast',
    description: 'Current conditions, daily forecasts and official weather alerts from the (fictional) Skycast weather API.',
    version: '4.2.0',
    schemaVersion: '1.0.0',
    root: 'https://api.skycast.io/v2',
    docs: [ 'https://docs.skycast.io/v2/reference', 'https://docs.skycast.io/v2/authentication' ],
    tags: [ 'weather', 'forecast', 'alerts' ],
    requiredServerParams: [ 'SKYCAST_API_KEY' ],
    headers: {
        'Accept': 'application/json',
        'X-Api-Key': '{{SERVER_PARAM:SKYCAST_API_KEY}}'
    },
    sharedLists: [
        { ref: 'countries', version: '1.0.0', filter: { key: 'alertAuthority', exists: true } },
        { ref: 'languages', version: '1.0.0', filter: { key: 'code', in: [ 'de', 'en', 'es', 'fr', 'ja' ] } }
    ],
    tools: {
        getCurrentConditions: {
            method: 'GET',
            path: '/current/{{city}}',
            description: 'Returns the latest observed weather conditions (temperature, humidity, wind) for a city.',
            headers: {
                'Cache-Control': 'no-cache'
            },
            parameters: [
                {
                    position: { key: 'city', value: '{{USER_PARAM}}', location: 'insert' },
                    z: { primitive: 'string()', options: [ 'min(2)', 'max(80)' ] },
                    description: 'City name in English, e.g. Berlin'
                },
                {
                    position: { key: 'units', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'enum(metric,imperial,standard)', options: [ 'default(metric)' ] },
                    description: 'Unit system for temperature and wind speed'
                },
                {
                    position: { key: 'lang', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'enum({{languages:code}})', options: [ 'optional()' ] },
                    description: 'Language of the condition text'
                }
            ],
            output: {
                mimeType: 'application/json',
                schema: {
                    type: 'object',
                    properties: {
                        city: { type: 'string', description: 'Resolved city name' },
                        observedAt: { type: 'string', format: 'date-time', description: 'Time of the observation' },
                        temperature: { type: 'number', description: 'Air temperature in the requested unit system' },
                        feelsLike: { type: 'number', description: 'Apparent temperature' },
                        humidity: { type: 'number', description: 'Relative humidity in percent' },
                        condition: {
                            type: 'string',
                            description: 'Short condition code',
                            enum: [ 'clear', 'clouds', 'rain', 'snow', 'storm', 'fog' ]
                        },
                        conditionText: { type: 'string', description: 'Condition in the requested language' },
                        wind: {
                            type: 'object',
                            description: 'Wind measurement',
                            properties: {
                                speed: { type: 'number', description: 'Wind speed (m/s or mph)' },
                                direction: { type: 'number', description: 'Wind direction in degrees' },
                                gust: { type: 'number', description: 'Gust speed', nullable: true }
                            }
                        }
                    }
                }
            },
            tests: [
                { _description: 'European capital with default metric units', city: 'Berlin' },
                { _description: 'US city in imperial units with English text', city: 'Chicago', units: 'imperial', lang: 'en' },
                { _description: 'Asian city in standard (Kelvin) units with Japanese text', city: 'Tokyo', units: 'standard', lang: 'ja' }
            ],
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'current weather temperature humidity wind city now',
                aliases: [ 'getWeather', 'currentWeather' ],
                alwaysLoad: false
            }
        },
        getDailyForecast: {
            method: 'GET',
            path: '/forecast/daily',
            description: 'Returns a day-by-day forecast (min/max temperature, precipitation, condition) for a coordinate, up to 16 days ahead.',
            parameters: [
                {
                    position: { key: 'latitude', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'number()', options: [ 'min(-90)', 'max(90)' ] },
                    description: 'Latitude in decimal degrees'
                },
                {
                    position: { key: 'longitude', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'number()', options: [ 'min(-180)', 'max(180)' ] },
                    description: 'Longitude in decimal degrees'
                },
                {
                    position: { key: 'days', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'number()', options: [ 'min(1)', 'max(16)', 'default(7)' ] },
                    description: 'Number of forecast days'
                },
                {
                    position: { key: 'units', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'enum(metric,imperial)', options: [ 'default(metric)' ] },
                    description: 'Unit system'
                },
                {
                    position: { key: 'includeAlerts', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'boolean()', options: [ 'optional()' ] },
                    description: 'Also return active alerts for the location'
                }
            ],
            output: {
                mimeType: 'application/json',
                schema: {
                    type: 'object',
                    properties: {
                        latitude: { type: 'number', description: 'Latitude of the forecast grid point' },
                        longitude: { type: 'number', description: 'Longitude of the forecast grid point' },
                        timezone: { type: 'string', description: 'IANA time zone of the location' },
                        alertCount: { type: 'number', description: 'Number of active alerts (0 unless includeAlerts is true)' },
                        days: {
                            type: 'array',
                            description: 'One entry per forecast day',
                            items: {
                                type: 'object',
                                properties: {
                                    date: { type: 'string', description: 'Local date (YYYY-MM-DD)' },
                                    tempMin: { type: 'number', description: 'Minimum temperature' },
                                    tempMax: { type: 'number', description: 'Maximum temperature' },
                                    precipitationMm: { type: 'number', description: 'Total precipitation in millimetres' },
                                    condition: { type: 'string', description: 'Dominant condition code', nullable: true }
                                }
                            }
                        }
                    }
                }
            },
            tests: [
                { _description: 'Northern-hemisphere city with default 7 days', latitude: 52.52, longitude: 13.405 },
                { _description: 'Southern-hemisphere coordinate, short imperial forecast', latitude: -33.87, longitude: 151.21, days: 3, units: 'imperial' },
                { _description: 'Western-hemisphere coordinate, maximum range with alerts', latitude: 64.15, longitude: -21.94, days: 16, units: 'metric', includeAlerts: true }
            ],
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'weather forecast daily temperature rain coordinates',
                aliases: [ 'forecast', 'weeklyForecast' ],
                alwaysLoad: false
            }
        },
        getWeatherAlerts: {
            method: 'GET',
            path: '/alerts/{{countryCode}}',
            description: 'Lists official severe-weather warnings for a country, optionally filtered by severity.',
            parameters: [
                {
                    position: { key: 'countryCode', value: '{{USER_PARAM}}', location: 'insert' },
                    z: { primitive: 'enum({{countries:alpha2}})', options: [] },
                    description: 'ISO 3166-1 alpha-2 country code, e.g. DE'
                },
                {
                    position: { key: 'severity', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'enum(minor,moderate,severe,extreme)', options: [ 'optional()' ] },
                    description: 'Only return alerts of this severity'
                },
                {
                    position: { key: 'activeOnly', value: '{{USER_PARAM}}', location: 'query' },
                    z: { primitive: 'boolean()', options: [ 'default(true)' ] },
                    description: 'Exclude alerts that have already expired'
                }
            ],
            output: {
                mimeType: 'application/json',
                schema: {
                    type: 'object',
                    properties: {
                        countryCode: { type: 'string', description: 'Country the alerts belong to' },
                        alerts: {
                            type: 'array',
                            description: 'Matching alerts',
                            items: {
                                type: 'object',
                                properties: {
                                    id: { type: 'string', description: 'Alert identifier' },
                                    title: { type: 'string', description: 'Headline of the alert' },
                                    severity: { type: 'string', description: 'Severity level', enum: [ 'minor', 'moderate', 'severe', 'extreme' ] },
                                    region: { type: 'string', description: 'Affected region' },
                                    startsAt: { type: 'string', format: 'date-time', description: 'Start of validity' },
                                    endsAt: { type: 'string', format: 'date-time', description: 'End of validity', nullable: true }
                                }
                            }
                        }
                    }
                }
            },
            tests: [
                { _description: 'All active alerts for Germany', countryCode: 'DE' },
                { _description: 'Only severe alerts in the United States', countryCode: 'US', severity: 'severe' },
                { _description: 'Extreme alerts in Japan including expired ones', countryCode: 'JP', severity: 'extreme', activeOnly: false }
            ],
            meta: {
                isReadOnly: true,
                isConcurrencySafe: true,
                isDestructive: false,
                searchHint: 'weather warning alert storm severe country',
                aliases: [],
                alwaysLoad: false
            }
        }
    }
}

export const handlers = ( { sharedLists, libraries } ) => ( {
    getDailyForecast: {
        postRequest: async ( { response, struct, payload } ) => {
            const body = response || {}
            const location = body.location || {}
            const daily = Array.isArray( body.daily ) ? body.daily : []
            const days = daily
                .map( ( entry ) => {
                    const temperature = entry.temperature || {}
                    const precipitation = entry.precipitation || {}
                    return {
                        date: entry.date,
                        tempMin: temperature.min,
                        tempMax: temperature.max,
                        precipitationMm: typeof precipitation.total === 'number' ? precipitation.total : 0,
                        condition: entry.summary || null
                    }
                } )
                .slice( 0, payload.days || 7 )

            return {
                response: {
                    latitude: location.lat,
                    longitude: location.lon,
                    timezone: location.tz,
                    alertCount: Array.isArray( body.alerts ) ? body.alerts.length : 0,
                    days
                }
            }
        }
    }
} )
