import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createRoot } from "react-dom/client";
// In the first stylesheet: a CSS import inside a lazily loaded chunk would not be linked.
import "uplot/dist/uPlot.min.css";
import { ApiError } from "./api/client";
import { App } from "./app";
import { RateLimitBanner } from "./components/rate-limit-banner";
import { Router } from "./lib/router";
import { SessionProvider } from "./lib/session";

document.documentElement.dataset.theme = localStorage.getItem("wp_theme") ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // Client errors (4xx) will not change on retry; server faults and network drops may.
      retry: (n, err) => n < 2 && !(err instanceof ApiError && err.status < 500),
    },
  },
});

createRoot(document.getElementById("root")!).render(
  <QueryClientProvider client={queryClient}>
    <Router>
      <SessionProvider>
        <RateLimitBanner />
        <App />
      </SessionProvider>
    </Router>
  </QueryClientProvider>,
);
