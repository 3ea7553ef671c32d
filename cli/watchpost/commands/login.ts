import { hostname } from "node:os";
import { Command } from "commander";
import { action } from "../command-kit.ts";
import { anonymousClient, apiClient, data } from "../client.ts";
import { credentialsPath, writeCredentials } from "../credentials.ts";
import { usageError } from "../errors.ts";
import { emit } from "../output.ts";

async function readStdin(): Promise<string> {
  const text = await new Response(Bun.stdin.stream()).text();
  return text.replace(/\r?\n$/, "");
}

/** Signs in with e-mail and password and creates an API key with every scope the user may grant. */
async function mintKey(url: string, email: string, password: string): Promise<string> {
  const anon = anonymousClient(url);
  const { data: session, response } = await anon.POST("/api/v1/auth/signin", { body: { email, password } });
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const headers = { cookie, "x-csrf-token": session!.csrf_token, ...(session!.org_id ? { "x-org-id": session!.org_id } : {}) };
  const scopes = data(await anon.GET("/api/v1/api-keys/scopes", { headers }));
  const key = data(await anon.POST("/api/v1/api-keys", { headers, body: { name: `watchpost CLI on ${hostname()}`.slice(0, 100), scopes: scopes.data as never } }));
  await anon.POST("/api/v1/auth/signout", { headers }).catch(() => undefined);
  return (key as unknown as { key: string }).key;
}

export function loginCommand(): Command {
  return new Command("login")
    .description(`Store the API's URL and an API key in ${credentialsPath().replace(process.env.HOME ?? "\u0000", "~")} (mode 0600)`)
    .requiredOption("--url <url>", "the Watchpost API, e.g. https://watchpost.example.com")
    .option("--api-key <key>", "an API key made in Settings → API keys (or --api-key-stdin)")
    .option("--api-key-stdin", "read the API key from standard input")
    .option("--email <email>", "sign in with e-mail and password instead: creates an API key for this machine")
    .option("--password-stdin", "read the password from standard input (else WATCHPOST_PASSWORD)")
    .addHelpText("after", "\nWATCHPOST_URL and WATCHPOST_API_KEY, when set, take precedence over the stored file.")
    .action(
      action(async (run) => {
        const o = run.opts as { url: string; apiKey?: string; apiKeyStdin?: boolean; email?: string; passwordStdin?: boolean };
        if (!URL.canParse(o.url) || !/^https?:$/.test(new URL(o.url).protocol)) throw usageError("--url must be an http:// or https:// URL");
        const url = o.url.replace(/\/+$/, "");
        let apiKey = o.apiKey ?? (o.apiKeyStdin ? await readStdin() : undefined);
        if (!apiKey) {
          if (!o.email) throw usageError("Give --api-key, --api-key-stdin, or --email with --password-stdin or WATCHPOST_PASSWORD");
          const password = o.passwordStdin ? await readStdin() : process.env.WATCHPOST_PASSWORD;
          if (!password) throw usageError("No password: use --password-stdin or set WATCHPOST_PASSWORD");
          apiKey = await mintKey(url, o.email, password);
        }
        // Prove the key works before storing it.
        const org = data(await apiClient({ url, apiKey }).GET("/api/v1/org"));
        const path = writeCredentials({ url, api_key: apiKey });
        emit(run.o, { url, org: { id: org.id, name: org.name }, config_path: path }, () => `Logged in to ${url} as organisation ${org.name}. Credentials saved in ${path}.`);
      }),
    );
}
