// Real US freight cities (with their state, a real ZIP and coordinates) and the known warehouses in them.
// Data, not logic: a lane is two of these places, and a warehouse name appears only at a known warehouse.

export interface City {
  name: string;
  state: string;
  zip: string;
  latitude: number;
  longitude: number;
}

export interface Warehouse {
  name: string;
  /** Index into CITIES. */
  city: number;
  /** The warehouse's own ZIP, inside its city. */
  zip: string;
}

// [city, state, ZIP, latitude, longitude]
const CITY_ROWS: readonly (readonly [string, string, string, number, number])[] = [
  ['New York', 'NY', '10001', 40.7128, -74.006],
  ['Los Angeles', 'CA', '90012', 34.0522, -118.2437],
  ['Chicago', 'IL', '60601', 41.8781, -87.6298],
  ['Houston', 'TX', '77002', 29.7604, -95.3698],
  ['Phoenix', 'AZ', '85004', 33.4484, -112.074],
  ['Philadelphia', 'PA', '19103', 39.9526, -75.1652],
  ['San Antonio', 'TX', '78205', 29.4241, -98.4936],
  ['San Diego', 'CA', '92101', 32.7157, -117.1611],
  ['Dallas', 'TX', '75201', 32.7767, -96.797],
  ['San Jose', 'CA', '95113', 37.3382, -121.8863],
  ['Austin', 'TX', '78701', 30.2672, -97.7431],
  ['Jacksonville', 'FL', '32202', 30.3322, -81.6557],
  ['Fort Worth', 'TX', '76102', 32.7555, -97.3308],
  ['Columbus', 'OH', '43215', 39.9612, -82.9988],
  ['Charlotte', 'NC', '28202', 35.2271, -80.8431],
  ['Indianapolis', 'IN', '46204', 39.7684, -86.1581],
  ['Seattle', 'WA', '98101', 47.6062, -122.3321],
  ['Denver', 'CO', '80202', 39.7392, -104.9903],
  ['Nashville', 'TN', '37203', 36.1627, -86.7816],
  ['Oklahoma City', 'OK', '73102', 35.4676, -97.5164],
  ['El Paso', 'TX', '79901', 31.7619, -106.485],
  ['Boston', 'MA', '02108', 42.3601, -71.0589],
  ['Portland', 'OR', '97204', 45.5152, -122.6784],
  ['Las Vegas', 'NV', '89101', 36.1699, -115.1398],
  ['Memphis', 'TN', '38103', 35.1495, -90.049],
  ['Louisville', 'KY', '40202', 38.2527, -85.7585],
  ['Baltimore', 'MD', '21202', 39.2904, -76.6122],
  ['Milwaukee', 'WI', '53202', 43.0389, -87.9065],
  ['Albuquerque', 'NM', '87102', 35.0844, -106.6504],
  ['Tucson', 'AZ', '85701', 32.2226, -110.9747],
  ['Fresno', 'CA', '93721', 36.7378, -119.7871],
  ['Sacramento', 'CA', '95814', 38.5816, -121.4944],
  ['Kansas City', 'MO', '64105', 39.0997, -94.5786],
  ['Atlanta', 'GA', '30303', 33.749, -84.388],
  ['Omaha', 'NE', '68102', 41.2565, -95.9345],
  ['Raleigh', 'NC', '27601', 35.7796, -78.6382],
  ['Miami', 'FL', '33130', 25.7617, -80.1918],
  ['Minneapolis', 'MN', '55401', 44.9778, -93.265],
  ['Tulsa', 'OK', '74103', 36.154, -95.9928],
  ['Cleveland', 'OH', '44113', 41.4993, -81.6944],
  ['Wichita', 'KS', '67202', 37.6872, -97.3301],
  ['New Orleans', 'LA', '70112', 29.9511, -90.0715],
  ['Tampa', 'FL', '33602', 27.9506, -82.4572],
  ['Pittsburgh', 'PA', '15222', 40.4406, -79.9959],
  ['Cincinnati', 'OH', '45202', 39.1031, -84.512],
  ['St. Louis', 'MO', '63101', 38.627, -90.1994],
  ['Detroit', 'MI', '48226', 42.3314, -83.0458],
  ['Salt Lake City', 'UT', '84101', 40.7608, -111.891],
  ['Savannah', 'GA', '31401', 32.0809, -81.0912],
  ['Laredo', 'TX', '78040', 27.5306, -99.4803],
  ['Reno', 'NV', '89501', 39.5296, -119.8138],
  ['Boise', 'ID', '83702', 43.615, -116.2023],
  ['Spokane', 'WA', '99201', 47.6588, -117.426],
  ['Birmingham', 'AL', '35203', 33.5186, -86.8104],
  ['Little Rock', 'AR', '72201', 34.7465, -92.2896],
  ['Des Moines', 'IA', '50309', 41.5868, -93.625],
  ['Richmond', 'VA', '23219', 37.5407, -77.436],
  ['Norfolk', 'VA', '23510', 36.8508, -76.2859],
  ['Charleston', 'SC', '29401', 32.7765, -79.9311],
  ['Greenville', 'SC', '29601', 34.8526, -82.394],
  ['Allentown', 'PA', '18101', 40.6084, -75.4902],
  ['Harrisburg', 'PA', '17101', 40.2732, -76.8867],
  ['Newark', 'NJ', '07102', 40.7357, -74.1724],
  ['Edison', 'NJ', '08817', 40.5187, -74.4121],
  ['Ontario', 'CA', '91764', 34.0633, -117.6509],
  ['Stockton', 'CA', '95202', 37.9577, -121.2908],
  ['Joliet', 'IL', '60432', 41.525, -88.0817],
  ['Buffalo', 'NY', '14202', 42.8864, -78.8784],
  ['Albany', 'NY', '12207', 42.6526, -73.7562],
  ['Hartford', 'CT', '06103', 41.7658, -72.6734],
  ['Jackson', 'MS', '39201', 32.2988, -90.1848],
  ['Mobile', 'AL', '36602', 30.6954, -88.0399],
  ['Knoxville', 'TN', '37902', 35.9606, -83.9207],
  ['Chattanooga', 'TN', '37402', 35.0456, -85.3097],
  ['Lexington', 'KY', '40507', 38.0406, -84.5037],
  ['Fargo', 'ND', '58102', 46.8772, -96.7898],
  ['Sioux Falls', 'SD', '57104', 43.5446, -96.7311],
  ['Billings', 'MT', '59101', 45.7833, -108.5007],
  ['Cheyenne', 'WY', '82001', 41.14, -104.8202],
  ['Lincoln', 'NE', '68508', 40.8136, -96.7026],
  ['Green Bay', 'WI', '54301', 44.5133, -88.0133],
  ['Grand Rapids', 'MI', '49503', 42.9634, -85.6681],
  ['Fort Wayne', 'IN', '46802', 41.0793, -85.1394],
  ['Dayton', 'OH', '45402', 39.7589, -84.1916],
  ['Toledo', 'OH', '43604', 41.6528, -83.5379],
  ['Shreveport', 'LA', '71101', 32.5252, -93.7502],
  ['Baton Rouge', 'LA', '70801', 30.4515, -91.1871],
  ['Corpus Christi', 'TX', '78401', 27.8006, -97.3964],
  ['Lubbock', 'TX', '79401', 33.5779, -101.8552],
  ['Amarillo', 'TX', '79101', 35.222, -101.8313],
  ['Portland', 'ME', '04101', 43.6591, -70.2568],
  ['Manchester', 'NH', '03101', 42.9956, -71.4548],
  ['Providence', 'RI', '02903', 41.824, -71.4128],
  ['Wilmington', 'DE', '19801', 39.7391, -75.5398],
  ['Charleston', 'WV', '25301', 38.3498, -81.6326],
];

export const CITIES: readonly City[] = CITY_ROWS.map(([name, state, zip, latitude, longitude]) => ({ name, state, zip, latitude, longitude }));

// [warehouse, city, state, ZIP]: distribution centres and cross-docks in the big freight hubs.
const WAREHOUSE_ROWS: readonly (readonly [string, string, string, string])[] = [
  ['Inland Empire DC 1', 'Ontario', 'CA', '91761'],
  ['Inland Empire DC 2', 'Ontario', 'CA', '91761'],
  ['Port of LA Transload', 'Los Angeles', 'CA', '90021'],
  ['Joliet Intermodal Cross-Dock', 'Joliet', 'IL', '60436'],
  ['Chicago South DC', 'Chicago', 'IL', '60638'],
  ['Memphis Hub DC', 'Memphis', 'TN', '38118'],
  ['Dallas Southport DC', 'Dallas', 'TX', '75241'],
  ['Alliance Fort Worth DC', 'Fort Worth', 'TX', '76177'],
  ['Houston Ship Channel Warehouse', 'Houston', 'TX', '77029'],
  ['Atlanta Fulton Industrial DC', 'Atlanta', 'GA', '30336'],
  ['Savannah Port Cold Storage', 'Savannah', 'GA', '31408'],
  ['Indianapolis Plainfield DC', 'Indianapolis', 'IN', '46241'],
  ['Columbus Rickenbacker DC', 'Columbus', 'OH', '43217'],
  ['Lehigh Valley DC', 'Allentown', 'PA', '18106'],
  ['Harrisburg Logistics Park', 'Harrisburg', 'PA', '17111'],
  ['Edison Fulfillment Center', 'Edison', 'NJ', '08837'],
  ['Newark Port Warehouse', 'Newark', 'NJ', '07114'],
  ['Kansas City Logistics Park', 'Kansas City', 'MO', '64120'],
  ['Phoenix West Valley DC', 'Phoenix', 'AZ', '85043'],
  ['Stockton Central Valley DC', 'Stockton', 'CA', '95206'],
  ['Seattle Kent Valley DC', 'Seattle', 'WA', '98108'],
  ['Laredo Border Cross-Dock', 'Laredo', 'TX', '78045'],
  ['Louisville Airport DC', 'Louisville', 'KY', '40209'],
  ['Denver Montbello DC', 'Denver', 'CO', '80239'],
  ['Salt Lake Industrial DC', 'Salt Lake City', 'UT', '84104'],
  ['Jacksonville Westside DC', 'Jacksonville', 'FL', '32254'],
  ['Reno Tahoe Industrial DC', 'Reno', 'NV', '89502'],
  ['Nashville La Vergne DC', 'Nashville', 'TN', '37210'],
];

export const WAREHOUSES: readonly Warehouse[] = WAREHOUSE_ROWS.map(([name, cityName, state, zip]) => {
  const city = CITIES.findIndex((candidate) => candidate.name === cityName && candidate.state === state);
  if (city < 0) throw new Error(`the warehouse ${name} names an unknown city ${cityName}, ${state}`);
  return { name, city, zip };
});

/** The known warehouses of each city, by city index. */
export const WAREHOUSES_BY_CITY: readonly (readonly Warehouse[])[] = CITIES.map((_, index) => WAREHOUSES.filter((warehouse) => warehouse.city === index));

const EARTH_RADIUS_MILES = 3958.8;

/** Great-circle distance in miles. */
export function haversineMiles(from: City, to: City): number {
  const radians = (degrees: number): number => (degrees * Math.PI) / 180;
  const dLatitude = radians(to.latitude - from.latitude);
  const dLongitude = radians(to.longitude - from.longitude);
  const a = Math.sin(dLatitude / 2) ** 2 + Math.cos(radians(from.latitude)) * Math.cos(radians(to.latitude)) * Math.sin(dLongitude / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.sqrt(a));
}
