import { describe, expect, it } from "bun:test";
import { initialState } from "../engine/state-machine.ts";
import { readState } from "./decide.ts";

describe("readState", () => {
  it("reads a state stored before windows paused the alert clock: a withheld alert that told nobody is still owed", () => {
    const old = { ...initialState(), firing: true, firedAt: 1000, held: true, alertPending: undefined };
    expect(readState({ state: { machine: old } }).machine.alertPending).toBe(true);
    const told = { ...old, notified: ["ach_1"] };
    expect(readState({ state: { machine: told } }).machine.alertPending).toBe(false);
  });
});
