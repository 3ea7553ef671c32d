import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data, type paths } from "../../api/client";
import { isUnlimited } from "../../components/format";
import { SecretOnce, Snippet } from "../../components/widgets";
import { EmptyState, ErrorMessage, Field, Loading } from "../../components/ui";
import { Link } from "../../lib/router";
import { useMyRole } from "../org/use-permissions";
import { composeSnippet, dockerRunLine, type Variant } from "./install-commands";
import { RunnerRow } from "./runner-row";

type Created = paths["/api/v1/runners"]["post"]["responses"]["201"]["content"]["application/json"];

export function Runners() {
  const qc = useQueryClient();
  const runners = useQuery({
    queryKey: ["runners"],
    queryFn: () => api.GET("/api/v1/runners", { params: { query: { limit: 100 } } }).then(data),
    // Online/offline follows heartbeats: keep the list fresh while it is open.
    refetchInterval: 15_000,
  });
  const entitlements = useQuery({ queryKey: ["entitlements"], queryFn: () => api.GET("/api/v1/entitlements").then(data) });
  const [created, setCreated] = useState<Created | null>(null);
  const create = useMutation({
    mutationFn: (f: FormData) => {
      const label = String(f.get("location_label") ?? "").trim();
      return api.POST("/api/v1/runners", { body: { name: String(f.get("name")).trim(), ...(label ? { location_label: label } : {}) } }).then(data);
    },
    onSuccess: (r) => {
      setCreated(r);
      void qc.invalidateQueries({ queryKey: ["runners"] });
      void qc.invalidateQueries({ queryKey: ["entitlements"] });
    },
  });
  const role = useMyRole();
  // Hidden while the role loads, and from roles the API would refuse (403).
  const canWrite = !role.loading && role.can("runners:write");
  if (runners.isPending) return <Loading what="runners" />;
  if (runners.isError) return <ErrorMessage error={runners.error} />;
  const slots = entitlements.data?.usage.runners;
  const usage = slots ? { used: Number(slots.used), limit: slots.limit } : null;
  const full = usage ? usage.used >= usage.limit : false;
  const list = runners.data.data;
  return (
    <section aria-labelledby="runners-h">
      <header className="page-head">
        <h1 id="runners-h">Self-hosted runners</h1>
        {usage && (
          <span className="muted" data-testid="runner-usage">
            {isUnlimited(usage.limit) ? `${usage.used} runner slot${usage.used === 1 ? "" : "s"} used (unlimited)` : `${usage.used} of ${usage.limit} runner slots used`}
          </span>
        )}
      </header>
      <p className="muted">A runner checks targets from your own network (private addresses, IPv6) over outbound HTTPS only. Run one container per runner.</p>
      {created && <RunnerInstall runner={created} onDone={() => setCreated(null)} />}
      {list.length === 0 ? (
        <EmptyState title="No runners yet">
          <p>
            {canWrite ? "Create a runner below, then start it with the docker line we show you." : "A member with permission to change runners can create one."} It appears here as online once its
            first heartbeat arrives.
          </p>
        </EmptyState>
      ) : (
        <div className="table-scroll">
          <table className="table" data-testid="runners">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Location</th>
                <th scope="col">Status</th>
                <th scope="col">Region</th>
                <th scope="col">Version</th>
                <th scope="col">In flight</th>
                <th scope="col">Last seen</th>
                <th scope="col">Last check</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <RunnerRow key={r.id} runner={r} canWrite={canWrite} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canWrite && <NewRunner full={full} usage={usage} onCreate={(f) => create.mutate(f)} pending={create.isPending} error={create.error} />}
      {!role.loading && !canWrite && (
        <p role="note" className="muted" data-testid="runners-read-only">
          Your role can see runners but not add, rename or revoke them; an owner or admin can change your role under Organisation.
        </p>
      )}
    </section>
  );
}

/** The form for a new runner, with the plan's quota when it is used up. */
function NewRunner({ full, usage, onCreate, pending, error }: { full: boolean; usage: { used: number; limit: number } | null; onCreate: (f: FormData) => void; pending: boolean; error: unknown }) {
  return (
    <>
      <h2 id="new-runner-h">New runner</h2>
      {full && usage && (
        <p role="note" className="muted" data-testid="runner-quota">
          Your plan includes {usage.limit} runner{usage.limit === 1 ? "" : "s"}, all in use. <Link to="/billing">Add a runner slot or upgrade</Link>.
        </p>
      )}
      <form
        className="stack"
        aria-labelledby="new-runner-h"
        onSubmit={(e) => {
          e.preventDefault();
          onCreate(new FormData(e.currentTarget));
          e.currentTarget.reset();
        }}
      >
        <Field label="Name" name="name" required maxLength={200} placeholder="Office rack" />
        <Field label="Location (optional)" name="location_label" maxLength={200} placeholder="Berlin office" />
        <ErrorMessage error={error} />
        <button className="primary" disabled={pending || full}>
          Create runner
        </button>
      </form>
    </>
  );
}

/** The one-time token with the exact docker run line of each image variant and a Compose service. */
function RunnerInstall({ runner, onDone }: { runner: Created; onDone: () => void }) {
  const setup = useQuery({ queryKey: ["runners", "setup"], queryFn: () => api.GET("/api/v1/runners/setup").then(data), staleTime: Infinity });
  const [variantId, setVariantId] = useState("standard");
  const variants: Variant[] = setup.data?.variants ?? [{ id: "standard", browsers: "none" }];
  const variant = variants.find((v) => v.id === variantId) ?? variants[0]!;
  const target = setup.data ? { apiUrl: setup.data.api_url, token: runner.token, registry: setup.data.image_registry } : null;
  return (
    <SecretOnce label={`Token for ${runner.name}`} value={runner.token}>
      <ErrorMessage error={setup.error} />
      {target && (
        <>
          {!target.apiUrl.startsWith("https://") && (
            <p role="note" className="error">
              This deployment answers at {target.apiUrl}: runners refuse plain HTTP. Put TLS in front of it and set PUBLIC_BASE_URL to its https:// address.
            </p>
          )}
          <fieldset>
            <legend>Image variant</legend>
            {variants.map((v) => (
              <label key={v.id} className="inline">
                <input type="radio" name="variant" value={v.id} checked={v.id === variant.id} onChange={() => setVariantId(v.id)} /> {v.id}
                <small className="muted">{v.browsers === "none" ? "(standard checks)" : `(+ ${v.browsers === "all" ? "all browsers" : v.browsers})`}</small>
              </label>
            ))}
          </fieldset>
          <h4>Start it with Docker</h4>
          <Snippet code={dockerRunLine(variant, target)} what={`docker run line (${variant.id})`} testId="docker-run" />
          <details>
            <summary>Or with Docker Compose</summary>
            <Snippet code={composeSnippet(variant, target, runner.name)} what={`Compose file (${variant.id})`} testId="compose" />
          </details>
        </>
      )}
      <button type="button" onClick={onDone}>
        I have saved the token
      </button>
    </SecretOnce>
  );
}
