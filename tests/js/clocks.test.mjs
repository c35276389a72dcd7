// clocks.js: each seat's clock on the table page counts down from the figures the server
// derived from the log, stops on vacation, and warns in words when little time is left.
import assert from "node:assert/strict";
import { test } from "node:test";
import { client, dom } from "./support.mjs";

const clocksMore = await client("clocks.js");
const { durationMs, readings, clocksHtml, readAll } = clocksMore;
const { spoken } = await client("ui.js");

test("ISO durations of weeks to seconds", () => {
  assert.equal(durationMs("P1DT2H"), 26 * 3600_000);
  assert.equal(durationMs("PT1M30S"), 90_000);
  assert.equal(durationMs("P1W"), 7 * 86_400_000);
  assert.ok(Number.isNaN(durationMs("P1Y")));
  assert.equal(spoken(26 * 3600_000 + 5000), "1 d 2 h");
});

test("a running clock counts down; a waiting or vacationing one stands", () => {
  const now = Date.parse("2026-01-05T12:00:00Z");
  const clocks = {
    0: { remaining: "PT3H", deadline: "2026-01-05T14:59:00Z" },
    1: { remaining: "P2D" },
    2: { remaining: "PT10M", deadline: "2026-01-09T12:10:00Z", vacation_until: "2026-01-09T12:00:00Z" },
  };
  const read = readings(clocks, { toAct: [0, 2], fetched: now - 120_000, now, full: 86_400_000, weekendsOff: false });
  assert.equal(read[0].left, 178 * 60_000, "counted down, never past the deadline");
  assert.equal(read[1].left, 2 * 86_400_000);
  assert.equal(read[2].left, 10 * 60_000);
  assert.equal(read[2].low, false, "on vacation: no warning");
  assert.equal(read[0].low, false);
  const late = readings(clocks, { toAct: [0], fetched: now, now: now + 170 * 60_000, full: 86_400_000, weekendsOff: false });
  assert.equal(late[0].low, true);
  const doc = dom(String(clocksHtml(late, ["Ann", "Bob", "Cy"], 0, (iso) => iso)));
  const mine = doc.querySelector('[data-seat="0"]');
  assert.match(mine.textContent, /You: 9 min 0 s left, by .*Little time left!/s);
  assert.match(doc.querySelector('[data-seat="2"]').textContent, /on vacation until/);
});

test("no clocks, or a game that is over: nothing is drawn", () => {
  assert.equal(clocksHtml(readAll({ status: "active", to_act: [0] }, {}), ["a"], 0, String), "");
  assert.equal(clocksHtml(readAll({ status: "finished", clocks: { 0: { remaining: "PT1M" } } }, {}), ["a"], 0, String), "");
});

test("the text view says the clocks in words, and little time left is read once for the seat", () => {
  const { clocksWords, lowNow } = clocksMore;
  const now = Date.parse("2026-01-05T12:00:00Z");
  const view = {
    status: "active",
    to_act: [0],
    clocks: {
      0: { remaining: "PT50S", deadline: "2026-01-05T12:00:50Z" },
      1: { remaining: "PT10M", vacation_until: "2026-01-09T12:00:00Z" },
    },
  };
  const summary = { time_control: { bank: "PT10M" } };
  const read = readAll(view, summary, now);
  const words = clocksWords(read, ["Ann", "Bob"], 0, (iso) => iso.slice(11, 16));
  assert.equal(words, "Clocks: you 50 s left, by 12:00, Bob 10 min 0 s left (on vacation until 12:00).");
  assert.equal(lowNow(read, 0).left, 50_000, "under a fifth of the bank: low");
  assert.equal(lowNow(read, 1), null, "not to act: never low");
  assert.equal(lowNow(read, null), null, "a watcher has no clock of their own");
  assert.equal(clocksWords(readAll({ ...view, status: "finished" }, summary, now), ["Ann", "Bob"], 0, String), "");
});

test("with weekends off a clock counts down on weekdays only, in the table's time zone", () => {
  const { weekdayMs } = clocksMore;
  // Friday 2026-01-09 23:00 in Tokyo (14:00 UTC) to Monday 01:00 there (16:00 UTC Sunday)
  const friday = Date.parse("2026-01-09T14:00:00Z");
  const monday = Date.parse("2026-01-11T16:00:00Z");
  assert.equal(weekdayMs(friday, monday, "Asia/Tokyo"), 2 * 3600_000, "Friday's last hour and Monday's first");
  assert.equal(weekdayMs(friday, monday, "UTC"), 10 * 3600_000, "in UTC: Friday 14:00 to midnight");
  assert.equal(weekdayMs(friday, monday, "Not/AZone"), 10 * 3600_000, "a zone the browser does not know: UTC");
  const clocks = { 0: { remaining: "P2D", deadline: "2026-01-14T00:00:00Z" } };
  const o = { toAct: [0], full: 5 * 86_400_000, weekendsOff: true, zone: "Asia/Tokyo" };
  const saturday = Date.parse("2026-01-10T03:00:00Z"); // noon on Saturday in Tokyo
  const standing = readings(clocks, { ...o, fetched: saturday, now: saturday + 3600_000 });
  assert.equal(standing[0].left, 2 * 86_400_000, "the weekend: the clock stands");
  const thursday = Date.parse("2026-01-08T03:00:00Z"); // noon on Thursday there
  const running = readings(clocks, { ...o, fetched: thursday, now: thursday + 60_000 });
  assert.equal(running[0].left, 2 * 86_400_000 - 60_000, "a weekday: it counts down, though a weekend lies before the deadline");
});
