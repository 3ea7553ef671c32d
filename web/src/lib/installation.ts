import { api, data } from "../api/client";

/**
 * What a signed-out visitor's screens ask of the installation (GET /setup): whether it still needs its first owner,
 * and whether anyone may sign up. One query for the app's routing and the sign-in and sign-up screens.
 */
export const installationQuery = {
  queryKey: ["setup"] as const,
  queryFn: () => api.GET("/api/v1/setup").then(data),
  retry: false,
  staleTime: Infinity,
};
