#!/usr/bin/env node
// The quickstart's sample loads, dated from the day this runs: pickups from 7 weeks ago to 16 weeks
// ahead, so that every one is inside the feed's 12-month window whenever the quickstart is run. Prints
// one Load per line (NDJSON), for `loadfeed-server import <customer> -`:
//
//   node sample-loads.mjs | loadfeed-server import acme -
//   node sample-loads.mjs > loads.ndjson
const today = new Date();
const midnight = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());

/** That many days from today (UTC), at midnight or at the time given. */
function day(offset, time = '00:00') {
  const [hours, minutes] = time.split(':').map(Number);
  return new Date(midnight + offset * 86_400_000 + (hours * 60 + minutes) * 60_000).toISOString();
}

const loads = [
  {
    loadNumber: "ACME-1001", poNumber: "PO-77010", billingRefNumber: "BR-5200", originCity: "Dallas",
    originState: "TX", originZip: "75201", originWarehouse: "Dallas DC", destinationCity: "Atlanta",
    destinationState: "GA", destinationZip: "30303", destinationWarehouse: null, status: "Delivered",
    scheduledPickupDate: day(-47), scheduledPickupTime: "08:00", scheduledDeliveryDate: day(-45), scheduledDeliveryTime: "14:30",
    tenderedDate: day(-54), actualPickupDate: day(-47, "08:12"), actualDeliveryDate: day(-45, "14:05"), requestedDeliveryDate: day(-45),
    miles: "781.4", totalCost: "2150.00",
  },
  {
    loadNumber: "ACME-1002", poNumber: "PO-77011", billingRefNumber: "BR-5201", originCity: "Chicago",
    originState: "IL", originZip: "60607", originWarehouse: null, destinationCity: "Columbus",
    destinationState: "OH", destinationZip: "43215", destinationWarehouse: "Columbus Crossdock", status: "Completed",
    scheduledPickupDate: day(-33), scheduledPickupTime: "06:30", scheduledDeliveryDate: day(-32), scheduledDeliveryTime: "10:00",
    tenderedDate: day(-40), actualPickupDate: day(-33, "06:41"), actualDeliveryDate: day(-32, "09:52"), requestedDeliveryDate: day(-32),
    miles: "355.9", totalCost: "980.50",
  },
  {
    loadNumber: "ACME-1003", poNumber: "PO-77012", billingRefNumber: "BR-5202", originCity: "Fresno",
    originState: "CA", originZip: "93721", originWarehouse: "Fresno Cold Storage", destinationCity: "Phoenix",
    destinationState: "AZ", destinationZip: "85004", destinationWarehouse: null, status: "InTransit",
    scheduledPickupDate: day(-2), scheduledPickupTime: "07:00", scheduledDeliveryDate: day(1), scheduledDeliveryTime: "09:00",
    tenderedDate: day(-10), actualPickupDate: day(-2, "07:09"), actualDeliveryDate: null, requestedDeliveryDate: day(1),
    miles: "586.2", totalCost: "1645.75",
  },
  {
    loadNumber: "ACME-1004", poNumber: "PO-77013", billingRefNumber: null, originCity: "Memphis",
    originState: "TN", originZip: "38103", originWarehouse: null, destinationCity: "Laredo",
    destinationState: "TX", destinationZip: "78040", destinationWarehouse: null, status: "Dispatched",
    scheduledPickupDate: day(10), scheduledPickupTime: "09:30", scheduledDeliveryDate: day(13), scheduledDeliveryTime: "13:00",
    tenderedDate: day(-4), actualPickupDate: null, actualDeliveryDate: null, requestedDeliveryDate: day(13),
    miles: "873.0", totalCost: "2390.00",
  },
  {
    loadNumber: "ACME-1005", poNumber: "PO-77014", billingRefNumber: "BR-5204", originCity: "Newark",
    originState: "NJ", originZip: "07102", originWarehouse: "Port Newark", destinationCity: "Harrisburg",
    destinationState: "PA", destinationZip: "17101", destinationWarehouse: null, status: "Covered",
    scheduledPickupDate: day(23), scheduledPickupTime: "05:45", scheduledDeliveryDate: day(24), scheduledDeliveryTime: "11:15",
    tenderedDate: day(-2), actualPickupDate: null, actualDeliveryDate: null, requestedDeliveryDate: day(24),
    miles: "167.3", totalCost: "610.25",
  },
  {
    loadNumber: "ACME-1006", poNumber: "PO-77015", billingRefNumber: "BR-5205", originCity: "Denver",
    originState: "CO", originZip: "80202", originWarehouse: null, destinationCity: "Salt Lake City",
    destinationState: "UT", destinationZip: "84101", destinationWarehouse: null, status: "Available",
    scheduledPickupDate: day(50), scheduledPickupTime: "10:00", scheduledDeliveryDate: day(52), scheduledDeliveryTime: "15:00",
    tenderedDate: day(-1), actualPickupDate: null, actualDeliveryDate: null, requestedDeliveryDate: day(52),
    miles: "519.8", totalCost: "1480.00",
  },
  {
    loadNumber: "ACME-1007", poNumber: null, billingRefNumber: "BR-5206", originCity: "Seattle",
    originState: "WA", originZip: "98101", originWarehouse: null, destinationCity: "Portland",
    destinationState: "OR", destinationZip: "97204", destinationWarehouse: "Portland Central", status: "PrePlanning",
    scheduledPickupDate: day(78), scheduledPickupTime: "08:00", scheduledDeliveryDate: day(79), scheduledDeliveryTime: "12:00",
    tenderedDate: null, actualPickupDate: null, actualDeliveryDate: null, requestedDeliveryDate: day(79),
    miles: "173.6", totalCost: "640.00",
  },
  {
    loadNumber: "ACME-1008", poNumber: "PO-77017", billingRefNumber: null, originCity: "Kansas City",
    originState: "MO", originZip: "64106", originWarehouse: null, destinationCity: "Omaha",
    destinationState: "NE", destinationZip: "68102", destinationWarehouse: null, status: "OnHold",
    scheduledPickupDate: day(113), scheduledPickupTime: "07:30", scheduledDeliveryDate: day(114), scheduledDeliveryTime: "08:30",
    tenderedDate: day(-3), actualPickupDate: null, actualDeliveryDate: null, requestedDeliveryDate: day(114),
    miles: "186.4", totalCost: "705.90",
  },
];

process.stdout.write(loads.map((load) => `${JSON.stringify(load)}\n`).join(''));
