import { describe, expect, it } from "bun:test";
import { initialState } from "../engine/state-machine.ts";
import { readState } from "./decide.ts";

describe("readState", () => {
  it("reads a state stored before windows paused the alert clock: a withheld alert that told nobody is still owed", () => {
    const old = (notified: string[]) => ({ ...initialState(), firing: true, firedAt: 1000, held: true, notified, alertPending: undefined });
    expect(readState({ state: { machine: old([]) } }).machine.alertPending).toBe(true);
    expect(readState({ state: { machine: old(["ach_1"]) } }).machine.alertPending).toBe(false);
  });
});
