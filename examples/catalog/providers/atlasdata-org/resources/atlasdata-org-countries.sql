-- The countries table behind atlasdata-org/resource/countries. flowmcp builds
-- atlasdata-org-countries.db from this file the first time the resource is used
-- (the .db file is not committed). The facts are public: ISO 3166-1 codes,
-- capitals and ITU calling codes.
CREATE TABLE countries (
    code TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    capital TEXT NOT NULL,
    continent TEXT NOT NULL,
    calling_code TEXT NOT NULL
);
INSERT INTO countries (code, name, capital, continent, calling_code) VALUES
    ('AR', 'Argentina', 'Buenos Aires', 'South America', '+54'),
    ('AU', 'Australia', 'Canberra', 'Oceania', '+61'),
    ('BR', 'Brazil', 'Brasília', 'South America', '+55'),
    ('CA', 'Canada', 'Ottawa', 'North America', '+1'),
    ('CL', 'Chile', 'Santiago', 'South America', '+56'),
    ('CN', 'China', 'Beijing', 'Asia', '+86'),
    ('DE', 'Germany', 'Berlin', 'Europe', '+49'),
    ('EG', 'Egypt', 'Cairo', 'Africa', '+20'),
    ('ES', 'Spain', 'Madrid', 'Europe', '+34'),
    ('FR', 'France', 'Paris', 'Europe', '+33'),
    ('GB', 'United Kingdom', 'London', 'Europe', '+44'),
    ('IN', 'India', 'New Delhi', 'Asia', '+91'),
    ('IT', 'Italy', 'Rome', 'Europe', '+39'),
    ('JP', 'Japan', 'Tokyo', 'Asia', '+81'),
    ('KE', 'Kenya', 'Nairobi', 'Africa', '+254'),
    ('MX', 'Mexico', 'Mexico City', 'North America', '+52'),
    ('NG', 'Nigeria', 'Abuja', 'Africa', '+234'),
    ('NZ', 'New Zealand', 'Wellington', 'Oceania', '+64'),
    ('PL', 'Poland', 'Warsaw', 'Europe', '+48'),
    ('US', 'United States', 'Washington, D.C.', 'North America', '+1'),
    ('ZA', 'South Africa', 'Pretoria', 'Africa', '+27');
