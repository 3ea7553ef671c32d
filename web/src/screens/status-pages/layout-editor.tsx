import {
  closestCenter,
  type CollisionDetection,
  DndContext,
  type KeyboardCoordinateGetter,
  type DragEndEvent,
  type DragOverEvent,
  KeyboardSensor,
  PointerSensor,
  pointerWithin,
  useDroppable,
  useSensor,
  useSensors,
} from "@dnd-kit/core";
import { SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useDeferredValue, useState, type ReactNode } from "react";
import { api, data } from "../../api/client";
import { useLeaveWarning } from "../../components/unsaved-changes";
import { SuspendedBadge } from "../../components/widgets";
import { EmptyState, ErrorMessage, Field, Select, StatusBadge } from "../../components/ui";
import { type EditComponent, type EditSection, fromView, moveComponent, moveSection, newKey, sectionOf, toBody } from "./layout-model";
import type { StatusPage } from "./status-page-api";
import { componentStatus } from "./preview-status";
import { ThemePreview } from "./theme-picker";

type MonitorInfo = { id: string; name: string; status: string; paused: boolean; suspended: boolean; tags: string[] };

/**
 * Only what the dragged item can land on: sections among sections; components among components
 * and section lists (an empty section is a list). The pointer decides first, then the nearest centre
 * (the keyboard has no pointer).
 */
const collision: CollisionDetection = (args) => {
  const dragsSection = String(args.active.id).startsWith("s-");
  const droppableContainers = args.droppableContainers.filter((c) => String(c.id).startsWith("s-") === dragsSection);
  const within = pointerWithin({ ...args, droppableContainers });
  const items = within.filter((c) => !String(c.id).startsWith("list:"));
  if (items.length > 0) return items;
  if (within.length > 0) return within;
  return closestCenter({ ...args, droppableContainers });
};

/**
 * Arrow keys move to the nearest item of the same kind (a section among sections; a component
 * among components and other sections' lists), not to the section that holds the component.
 */
const keyboardCoordinates =
  (sections: EditSection[]): KeyboardCoordinateGetter =>
  (event, args) => {
    const active = String(args.active);
    const dragsSection = active.startsWith("s-");
    const own = `list:${sectionOf(sections, active)?.key}`;
    const all = args.context.droppableContainers;
    const Same = all.constructor as new (entries: Iterable<[unknown, unknown]>) => typeof all;
    const droppableContainers = new Same([...all.entries()].filter(([id]) => String(id).startsWith("s-") === dragsSection && String(id) !== own));
    return sortableKeyboardCoordinates(event, { ...args, context: { ...args.context, droppableContainers } });
  };

/** Sections and components, reordered and moved between sections by drag and drop (mouse, touch or keyboard). */
export function LayoutEditor({ page }: { page: StatusPage }) {
  const qc = useQueryClient();
  const [sections, setSections] = useState<EditSection[]>(() => fromView(page.layout));
  const [dirty, setDirty] = useState(false);
  const update = (next: EditSection[]) => {
    setSections(next);
    setDirty(true);
  };
  const leaveWarning = useLeaveWarning(dirty);
  const monitors = useQuery({ queryKey: ["monitors", "all-for-pages"], queryFn: () => api.GET("/api/v1/monitors", { params: { query: { limit: 100 } } }).then(data) });
  const byId = new Map<string, MonitorInfo>((monitors.data?.data ?? []).map((m) => [m.id, m]));
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 4 } }), useSensor(KeyboardSensor, { coordinateGetter: keyboardCoordinates(sections) }));
  const save = useMutation({
    mutationFn: () => api.PUT("/api/v1/status-pages/{id}/layout", { params: { path: { id: page.id } }, body: toBody(sections) }).then(data),
    onSuccess: (layout) => {
      setSections(fromView(layout));
      setDirty(false);
      void qc.invalidateQueries({ queryKey: ["status-page", page.id] });
      void qc.invalidateQueries({ queryKey: ["status-pages"] });
    },
  });

  const targetOf = (overId: string): { section: string; index: number } | null => {
    if (overId.startsWith("list:")) {
      const key = overId.slice(5);
      return { section: key, index: sections.find((s) => s.key === key)?.components.length ?? 0 };
    }
    const s = sectionOf(sections, overId);
    return s ? { section: s.key, index: s.components.findIndex((c) => c.key === overId) } : null;
  };
  const onDragOver = ({ active, over }: DragOverEvent) => {
    const a = String(active.id);
    if (!over || !a.startsWith("c-")) return;
    const target = targetOf(String(over.id));
    // Crossing into another section happens while dragging, so the list opens room for it.
    if (target && sectionOf(sections, a)?.key !== target.section) update(moveComponent(sections, a, target.section, target.index));
  };
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over) return;
    const a = String(active.id);
    const o = String(over.id);
    if (a === o) return;
    if (a.startsWith("s-")) update(moveSection(sections, a, sections.findIndex((s) => s.key === o)));
    else {
      const target = targetOf(o);
      if (target) update(moveComponent(sections, a, target.section, target.index));
    }
  };

  const setSection = (key: string, patch: Partial<EditSection>) => update(sections.map((s) => (s.key === key ? { ...s, ...patch } : s)));
  const removeComponent = (key: string) => update(sections.map((s) => ({ ...s, components: s.components.filter((c) => c.key !== key) })));
  const total = sections.reduce((n, s) => n + s.components.length, 0);
  const addTo = (sectionKey: string, added: EditComponent[]) => update(sections.map((s) => (s.key === sectionKey ? { ...s, components: [...s.components, ...added] } : s)));
  return (
    <div>
      {leaveWarning}
      <p className="muted">
        Drag sections and components by their handle (⠿) to reorder them or move a component to another section. With the keyboard: focus a handle, press Space, move with the arrow keys, press Space
        again to drop.
      </p>
      {sections.length === 0 && (
        <EmptyState title="An empty page">
          <p>Add a section (for example “Website” or “API”), then put monitors or monitor groups in it.</p>
        </EmptyState>
      )}
      <DndContext sensors={sensors} collisionDetection={collision} onDragOver={onDragOver} onDragEnd={onDragEnd}>
        <SortableContext items={sections.map((s) => s.key)} strategy={verticalListSortingStrategy}>
          {sections.map((s) => (
            <SortableSection key={s.key} section={s} onRename={(name) => setSection(s.key, { name })} onRemove={() => update(sections.filter((x) => x.key !== s.key))}>
              <SortableContext items={s.components.map((c) => c.key)} strategy={verticalListSortingStrategy}>
                <ComponentList sectionKey={s.key} label={`Components of ${s.name || "the section"}`}>
                  {s.components.map((c) => (
                    <SortableComponent key={c.key} component={c} monitor={c.monitor_id ? byId.get(c.monitor_id) : undefined} onRemove={() => removeComponent(c.key)} />
                  ))}
                </ComponentList>
              </SortableContext>
            </SortableSection>
          ))}
        </SortableContext>
      </DndContext>
      <div className="row">
        <button className="primary" onClick={() => save.mutate()} disabled={save.isPending || !dirty}>
          Save layout
        </button>
        <span role="status" data-testid="layout-state">
          {save.isPending ? "Saving…" : dirty ? "Unsaved changes" : "All changes saved"}
        </span>
      </div>
      <ErrorMessage error={save.error} />
      <div className="grid-2">
        <AddSection onAdd={(name) => update([...sections, { key: newKey("s"), name, components: [] }])} />
        {sections.length > 0 && (
          <AddComponent sections={sections} monitors={monitors.data?.data ?? []} onAdd={(sectionKey, c) => addTo(sectionKey, [c])} />
        )}
        {sections.length > 0 && <AddMonitors sections={sections} onAdd={addTo} />}
      </div>
      <p className="muted">
        {sections.length} section{sections.length === 1 ? "" : "s"}, {total} component{total === 1 ? "" : "s"}.
      </p>
      <LayoutPreview page={page} sections={sections} monitors={monitors.data?.data} />
    </div>
  );
}

function SortableSection({ section, onRename, onRemove, children }: { section: EditSection; onRename: (name: string) => void; onRemove: () => void; children: ReactNode }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id: section.key });
  const nameId = `name-${section.key}`;
  return (
    <section
      ref={setNodeRef}
      className={`layout-section${isDragging ? " dragging" : ""}`}
      style={{ transform: CSS.Translate.toString(transform), transition }}
      aria-label={`Section ${section.name}`}
      data-section={section.name}
    >
      <header>
        <button type="button" className="drag-handle" ref={setActivatorNodeRef} {...attributes} {...listeners} aria-label={`Drag section ${section.name}`}>
          ⠿
        </button>
        <label htmlFor={nameId} className="visually-hidden">
          Section name
        </label>
        <input id={nameId} value={section.name} required maxLength={120} onChange={(e) => onRename(e.target.value)} />
        <button type="button" className="danger" onClick={onRemove} aria-label={`Remove section ${section.name}`}>
          Remove
        </button>
      </header>
      {children}
    </section>
  );
}

function ComponentList({ sectionKey, label, children }: { sectionKey: string; label: string; children: ReactNode }) {
  const { setNodeRef, isOver } = useDroppable({ id: `list:${sectionKey}` });
  const empty = Array.isArray(children) && children.length === 0;
  return (
    <ul ref={setNodeRef} className="component-list" aria-label={label} style={isOver ? { borderColor: "var(--accent)" } : undefined}>
      {children}
      {empty && <li className="muted component-item">Drop components here</li>}
    </ul>
  );
}

function SortableComponent({ component: c, monitor, onRemove }: { component: EditComponent; monitor?: MonitorInfo; onRemove: () => void }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id: c.key });
  return (
    <li ref={setNodeRef} className={`component-item${isDragging ? " dragging" : ""}`} style={{ transform: CSS.Translate.toString(transform), transition }} data-component={c.display_name}>
      <button type="button" className="drag-handle" ref={setActivatorNodeRef} {...attributes} {...listeners} aria-label={`Drag ${c.display_name}`}>
        ⠿
      </button>
      <strong>{c.display_name}</strong>
      <span className="muted">{c.monitor_id ? (monitor?.name ?? c.monitor_id) : `group “${c.tag}”`}</span>
      {monitor && <StatusBadge status={monitor.status} paused={monitor.paused} />}
      {monitor?.suspended && <SuspendedBadge what="monitor" />}
      <button type="button" className="danger" style={{ marginLeft: "auto" }} onClick={onRemove} aria-label={`Remove ${c.display_name}`}>
        Remove
      </button>
    </li>
  );
}

function AddSection({ onAdd }: { onAdd: (name: string) => void }) {
  return (
    <form
      className="card"
      aria-label="Add a section"
      onSubmit={(e) => {
        e.preventDefault();
        const f = e.currentTarget;
        onAdd(String(new FormData(f).get("section_name")).trim());
        f.reset();
      }}
    >
      <h2>Add a section</h2>
      <Field label="Section name" name="section_name" required maxLength={120} placeholder="Website" />
      <button>Add section</button>
    </form>
  );
}

function AddComponent({ sections, monitors, onAdd }: { sections: EditSection[]; monitors: MonitorInfo[]; onAdd: (sectionKey: string, c: EditComponent) => void }) {
  // Fresh on mount: another screen may have cached the groups before the latest tags existed.
  const groups = useQuery({ queryKey: ["monitor-groups"], queryFn: () => api.GET("/api/v1/monitor-groups", { params: { query: { limit: 100 } } }).then(data), staleTime: 0 });
  const [search, setSearch] = useState("");
  const term = useDeferredValue(search.trim());
  const found = useQuery({
    queryKey: ["monitors", { search: term, for: "pages" }],
    enabled: term.length > 0,
    queryFn: () => api.GET("/api/v1/monitors", { params: { query: { search: term, limit: 100 } } }).then(data),
  });
  const choices = term ? (found.data?.data ?? []) : monitors;
  const [source, setSource] = useState("");
  const [displayName, setDisplayName] = useState("");
  const nameFor = (value: string) => (value.startsWith("tag:") ? value.slice(4) : (choices.find((m) => m.id === value)?.name ?? ""));
  return (
    <form
      className="card"
      aria-label="Add a component"
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const value = String(f.get("source"));
        onAdd(String(f.get("section")), {
          key: newKey("c"),
          ...(value.startsWith("tag:") ? { tag: value.slice(4) } : { monitor_id: value }),
          display_name: displayName.trim() || nameFor(value),
          description: String(f.get("component_description") ?? "").trim(),
        });
        setDisplayName("");
        setSource("");
      }}
    >
      <h2>Add a component</h2>
      <Select label="Section" name="section">
        {sections.map((s) => (
          <option key={s.key} value={s.key}>
            {s.name}
          </option>
        ))}
      </Select>
      <Field label="Find a monitor" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Name contains…" />
      <Select
        label="Shows"
        name="source"
        required
        value={source}
        onChange={(e) => {
          setSource(e.target.value);
          if (!displayName) setDisplayName(nameFor(e.target.value));
        }}
      >
        <option value="">Pick a monitor or a group…</option>
        <optgroup label="Monitors">
          {choices.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
              {m.suspended ? " (suspended)" : ""}
            </option>
          ))}
        </optgroup>
        {(groups.data?.data.length ?? 0) > 0 && (
          <optgroup label="Monitor groups (every monitor with the tag)">
            {groups.data!.data.map((g) => (
              <option key={g.tag} value={`tag:${g.tag}`}>
                {g.tag}
              </option>
            ))}
          </optgroup>
        )}
      </Select>
      <Field label="Display name" name="display_name" required maxLength={120} value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
      <Field label="Description (optional)" name="component_description" maxLength={500} />
      <button>Add component</button>
    </form>
  );
}

/**
 * Several monitors at once, each its own component named after the monitor: narrowed by tag (a
 * monitor group) and by name, ticked one by one or all that are shown.
 */
function AddMonitors({ sections, onAdd }: { sections: EditSection[]; onAdd: (sectionKey: string, added: EditComponent[]) => void }) {
  const groups = useQuery({ queryKey: ["monitor-groups"], queryFn: () => api.GET("/api/v1/monitor-groups", { params: { query: { limit: 100 } } }).then(data), staleTime: 0 });
  const [tag, setTag] = useState("");
  const [search, setSearch] = useState("");
  const term = useDeferredValue(search.trim());
  const list = useQuery({
    queryKey: ["monitors", { search: term, tag, for: "pages-several" }],
    queryFn: () => api.GET("/api/v1/monitors", { params: { query: { limit: 100, sort: "name", ...(term ? { search: term } : {}), ...(tag ? { tag } : {}) } } }).then(data),
    placeholderData: keepPreviousData,
  });
  const [picked, setPicked] = useState<Map<string, string>>(new Map());
  const onPage = new Set(sections.flatMap((s) => s.components.map((c) => c.monitor_id).filter(Boolean)));
  const shown = list.data?.data ?? [];
  const addable = shown.filter((m) => !onPage.has(m.id));
  const toggle = (id: string, name: string, on: boolean) => {
    const next = new Map(picked);
    if (on) next.set(id, name);
    else next.delete(id);
    setPicked(next);
  };
  const count = picked.size;
  return (
    <form
      className="card"
      aria-label="Add several monitors"
      onSubmit={(e) => {
        e.preventDefault();
        const section = String(new FormData(e.currentTarget).get("several_section"));
        onAdd(
          section,
          [...picked].map(([monitor_id, name]) => ({ key: newKey("c"), monitor_id, display_name: name, description: "" })),
        );
        setPicked(new Map());
      }}
    >
      <h2>Add several monitors</h2>
      <Select label="Into section" name="several_section" id="several-section">
        {sections.map((s) => (
          <option key={s.key} value={s.key}>
            {s.name}
          </option>
        ))}
      </Select>
      <div className="grid-2 tight">
        <Select label="Group (tag)" id="several-tag" value={tag} onChange={(e) => setTag(e.target.value)}>
          <option value="">Every group</option>
          {(groups.data?.data ?? []).map((g) => (
            <option key={g.tag} value={g.tag}>
              {g.tag}
            </option>
          ))}
        </Select>
        <Field label="Name contains" id="several-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
      </div>
      <fieldset className="pick-list">
        <legend>Monitors</legend>
        <div className="row">
          <button type="button" disabled={addable.length === 0} onClick={() => setPicked(new Map([...picked, ...addable.map((m) => [m.id, m.name] as [string, string])]))}>
            {addable.length > 0 ? `Select all ${addable.length} shown` : "Select all shown"}
          </button>
          <button type="button" disabled={count === 0} onClick={() => setPicked(new Map())}>
            Clear
          </button>
        </div>
        {list.isError && <ErrorMessage error={list.error} />}
        {list.isSuccess && shown.length === 0 && <p className="muted">No monitor matches.</p>}
        <ul data-testid="monitor-choices">
          {shown.map((m) => {
            const there = onPage.has(m.id);
            return (
              <li key={m.id}>
                <label className="inline">
                  <input type="checkbox" checked={picked.has(m.id)} disabled={there} onChange={(e) => toggle(m.id, m.name, e.target.checked)} /> {m.name}
                  {there && <span className="muted"> (on the page)</span>}
                  {m.tags.length > 0 && <span className="muted"> · {m.tags.join(", ")}</span>}
                </label>
              </li>
            );
          })}
        </ul>
      </fieldset>
      <button className="primary" disabled={count === 0}>
        {count === 0 ? "Add monitors" : `Add ${count} monitor${count === 1 ? "" : "s"}`}
      </button>
    </form>
  );
}

/**
 * The layout as it stands (saved or not), in the light and the dark built-in themes or the page's own, with each
 * component's status from its monitors as they are now.
 */
function LayoutPreview({ page, sections, monitors }: { page: StatusPage; sections: EditSection[]; monitors: MonitorInfo[] | undefined }) {
  const themes = useQuery({ queryKey: ["themes"], queryFn: () => api.GET("/api/v1/themes", { params: { query: { limit: 100 } } }).then(data) });
  const [mode, setMode] = useState<string>("light");
  const list = themes.data?.data ?? [];
  const choices = [
    ["light", "Light"],
    ["dark", "Dark"],
    ...(page.theme_id !== "light" && page.theme_id !== "dark" ? [[page.theme_id, `The page's theme (${list.find((t) => t.id === page.theme_id)?.name ?? "custom"})`]] : []),
  ] as [string, string][];
  const colors = list.find((t) => t.id === mode)?.colors;
  return (
    <section aria-labelledby="layout-preview-h" data-testid="layout-preview">
      <div className="page-head">
        <h2 id="layout-preview-h">Preview</h2>
        <div className="segmented" role="radiogroup" aria-label="Show the page in">
          {choices.map(([id, label]) => (
            <label key={id}>
              <input type="radio" name="preview_theme" value={id} checked={mode === id} onChange={() => setMode(id)} /> {label}
            </label>
          ))}
        </div>
      </div>
      <p className="muted">The layout as it stands, saved or not, with each monitor's status now. Open incidents and maintenance windows are not shown here.</p>
      {themes.isError && <ErrorMessage error={themes.error} />}
      {colors && monitors && (
        <ThemePreview
          page={page}
          colors={colors}
          label={`Preview in ${choices.find(([id]) => id === mode)?.[1] ?? mode}`}
          sections={sections.map((s) => ({ id: s.key, name: s.name, components: s.components.map((c) => ({ id: c.key, display_name: c.display_name, status: componentStatus(c, monitors) })) }))}
        />
      )}
    </section>
  );
}
