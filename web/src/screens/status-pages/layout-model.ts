/** The status-page layout as the editor holds it: sections of components, each with a stable key for drag and drop. */

export interface EditComponent {
  key: string;
  id?: string;
  monitor_id?: string | null;
  tag?: string | null;
  display_name: string;
  description: string;
}

export interface EditSection {
  key: string;
  id?: string;
  name: string;
  components: EditComponent[];
}

interface LayoutView {
  sections: { id: string; name: string; components: { id: string; monitor_id: string | null; tag: string | null; display_name: string; description: string }[] }[];
}

let counter = 0;
export const newKey = (prefix: string) => `${prefix}-new-${++counter}`;

export function fromView(view: LayoutView): EditSection[] {
  return view.sections.map((s) => ({
    key: `s-${s.id}`,
    id: s.id,
    name: s.name,
    components: s.components.map((c) => ({ key: `c-${c.id}`, id: c.id, monitor_id: c.monitor_id, tag: c.tag, display_name: c.display_name, description: c.description })),
  }));
}

/** The body of PUT /status-pages/:id/layout: existing ids kept, new items without one. */
export function toBody(sections: EditSection[]) {
  return {
    sections: sections.map((s) => ({
      ...(s.id ? { id: s.id } : {}),
      name: s.name,
      components: s.components.map((c) => ({
        ...(c.id ? { id: c.id } : {}),
        ...(c.monitor_id ? { monitor_id: c.monitor_id } : { tag: c.tag! }),
        display_name: c.display_name,
        ...(c.description ? { description: c.description } : {}),
      })),
    })),
  };
}

function arrayMove<T>(list: T[], from: number, to: number): T[] {
  const out = [...list];
  const [item] = out.splice(from, 1);
  out.splice(to, 0, item!);
  return out;
}

export const sectionOf = (sections: EditSection[], componentKey: string) => sections.find((s) => s.components.some((c) => c.key === componentKey));

/** Moves a component to `toSection` at `toIndex` (clamped), from wherever it is. */
export function moveComponent(sections: EditSection[], componentKey: string, toSection: string, toIndex: number): EditSection[] {
  const from = sectionOf(sections, componentKey);
  if (!from) return sections;
  const comp = from.components.find((c) => c.key === componentKey)!;
  if (from.key === toSection) {
    const fromIndex = from.components.indexOf(comp);
    const to = Math.max(0, Math.min(toIndex, from.components.length - 1));
    if (fromIndex === to) return sections;
    return sections.map((s) => (s.key === from.key ? { ...s, components: arrayMove(s.components, fromIndex, to) } : s));
  }
  return sections.map((s) => {
    if (s.key === from.key) return { ...s, components: s.components.filter((c) => c.key !== componentKey) };
    if (s.key === toSection) {
      const list = [...s.components];
      list.splice(Math.max(0, Math.min(toIndex, list.length)), 0, comp);
      return { ...s, components: list };
    }
    return s;
  });
}

export function moveSection(sections: EditSection[], sectionKey: string, toIndex: number): EditSection[] {
  const from = sections.findIndex((s) => s.key === sectionKey);
  if (from < 0) return sections;
  return arrayMove(sections, from, Math.max(0, Math.min(toIndex, sections.length - 1)));
}
