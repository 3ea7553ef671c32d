import { describe, expect, test } from "bun:test";
import { badgeState, locationName, monitorLocationsText } from "./locations";

const runners = [
  { id: "run_a", name: "Office rack", status: "online" },
  { id: "run_b", name: "Old rack", status: "revoked" },
];

describe("locationName", () => {
  test("a runner reads by its name, a revoked one says so", () => {
    expect(locationName("run_a", runners)).toBe("Office rack");
    expect(locationName("run_b", runners)).toBe("Old rack (revoked runner)");
  });
  test("regions and unknown ids stay as they are; none is spelled out", () => {
    expect(locationName("eu-west", runners)).toBe("eu-west");
    expect(locationName("run_zzz", undefined)).toBe("run_zzz");
    expect(locationName("none", runners)).toBe("nowhere (no region or runner)");
  });
});

describe("monitorLocationsText", () => {
  test("regions then runners by name", () => {
    expect(monitorLocationsText({ regions: ["local"], runner_ids: ["run_a"] }, runners)).toBe("local, Office rack");
  });
  test("a monitor whose runners were revoked does not end in a bare 'from'", () => {
    expect(monitorLocationsText({ regions: [], runner_ids: [] }, runners)).toBe("nowhere: no region and no runner");
  });
});

describe("badgeState", () => {
  test("a monitor with nowhere to run is not shown as up", () => {
    expect(badgeState({ status: "up", paused: false, monitored: false })).toBe("not monitored");
    expect(badgeState({ status: "up", paused: true, monitored: false })).toBe("paused");
    expect(badgeState({ status: "down", paused: false, monitored: true })).toBe("down");
  });
});
