import type { paths } from "../../api/client";

/** One status page as the API returns it (shared by the editor and its tabs). */
export type StatusPage = paths["/api/v1/status-pages/{id}"]["get"]["responses"]["200"]["content"]["application/json"];
