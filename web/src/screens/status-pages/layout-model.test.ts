import { describe, expect, it } from "bun:test";
import { fromView, moveComponent, moveSection, toBody } from "./layout-model";

const view = {
  sections: [
    { id: "sps_a", name: "Web", components: [{ id: "spc_1", monitor_id: "mon_1", tag: null, display_name: "Site", description: "" }, { id: "spc_2", monitor_id: null, tag: "api", display_name: "API", description: "All API monitors" }] },
    { id: "sps_b", name: "Mail", components: [] },
  ],
};
const names = (s: ReturnType<typeof fromView>) => s.map((x) => `${x.name}:${x.components.map((c) => c.display_name).join(",")}`);

describe("layout editing", () => {
  it("reorders components within a section", () => {
    const s = moveComponent(fromView(view), "c-spc_2", "s-sps_a", 0);
    expect(names(s)).toEqual(["Web:API,Site", "Mail:"]);
  });

  it("moves a component into another (even empty) section at the given place", () => {
    const s = moveComponent(fromView(view), "c-spc_1", "s-sps_b", 0);
    expect(names(s)).toEqual(["Web:API", "Mail:Site"]);
    expect(names(moveComponent(s, "c-spc_2", "s-sps_b", 5))).toEqual(["Web:", "Mail:Site,API"]);
  });

  it("reorders sections and leaves unknown keys alone", () => {
    const s = fromView(view);
    expect(names(moveSection(s, "s-sps_b", 0))).toEqual(["Mail:", "Web:Site,API"]);
    expect(moveComponent(s, "c-nope", "s-sps_b", 0)).toBe(s);
  });

  it("sends existing ids, one of monitor_id or tag, and no id for new items", () => {
    const s = fromView(view);
    s.push({ key: "s-new-1", name: "New", components: [{ key: "c-new-1", monitor_id: "mon_9", display_name: "Fresh", description: "" }] });
    expect(toBody(s)).toEqual({
      sections: [
        { id: "sps_a", name: "Web", components: [{ id: "spc_1", monitor_id: "mon_1", display_name: "Site" }, { id: "spc_2", tag: "api", display_name: "API", description: "All API monitors" }] },
        { id: "sps_b", name: "Mail", components: [] },
        { name: "New", components: [{ monitor_id: "mon_9", display_name: "Fresh" }] },
      ],
    });
  });
});
