export const list = {
    meta: {
        name: 'countries',
        version: '1.0.0',
        description: 'Countries the example providers cover: ISO 3166-1 alpha-2 code, English name and what each provider offers for the country.',
        fields: [
            { key: 'alpha2', type: 'string', description: 'ISO 3166-1 alpha-2 code' },
            { key: 'name', type: 'string', description: 'English short name' },
            { key: 'holidays', type: 'boolean', description: 'HolidayKit publishes the public holidays of the country' },
            { key: 'alertAuthority', type: 'string', optional: true, description: 'National weather service whose warnings Skycast relays (absent: no alerts)' }
        ],
        dependsOn: []
    },
    entries: [
        { alpha2: 'AT', name: 'Austria', holidays: true, alertAuthority: 'GeoSphere Austria' },
        { alpha2: 'AU', name: 'Australia', holidays: true, alertAuthority: 'Bureau of Meteorology' },
        { alpha2: 'BR', name: 'Brazil', holidays: true },
        { alpha2: 'CA', name: 'Canada', holidays: true, alertAuthority: 'Environment Canada' },
        { alpha2: 'DE', name: 'Germany', holidays: true, alertAuthority: 'Deutscher Wetterdienst' },
        { alpha2: 'FR', name: 'France', holidays: true, alertAuthority: 'Meteo-France' },
        { alpha2: 'GB', name: 'United Kingdom', holidays: true, alertAuthority: 'Met Office' },
        { alpha2: 'IS', name: 'Iceland', holidays: false, alertAuthority: 'Icelandic Met Office' },
        { alpha2: 'JP', name: 'Japan', holidays: true, alertAuthority: 'Japan Meteorological Agency' },
        { alpha2: 'NZ', name: 'New Zealand', holidays: false },
        { alpha2: 'US', name: 'United States', holidays: true, alertAuthority: 'National Weather Service' }
    ]
}
