import { clip, escapeHtml, renderEvent } from "../format.ts";
import { parseJson, postJson } from "../http.ts";
import { type AlertEvent, type BoundTemplate, type Channel, ChannelError } from "../types.ts";
import { type TelegramConfig, telegramSpec } from "./telegram-schema.ts";

export { type TelegramConfig };

/** Cuts to Telegram's limit without leaving half a tag or half an entity, which Telegram would refuse to parse. */
const cutHtml = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1).replace(/<[^>]*$|&[^;\s]*$/, "")}…` : s);

/** sendMessage text in Telegram's HTML mode; values are cut so the whole stays under the 4096-character limit. */
function telegramText(event: AlertEvent, template?: BoundTemplate): string {
  const r = renderEvent(event);
  // Template output is already HTML-escaped value by value; its own markup (<b>, <i>, <a>) is the author's.
  const title = template?.render("title", "html");
  const body = template?.render("body", "html");
  if (body !== undefined) return cutHtml(`<b>${title ?? escapeHtml(clip(r.title, 200))}</b>\n${body}`, 4096);
  const lines = [
    `<b>${title ?? escapeHtml(clip(r.title, 200))}</b>`,
    escapeHtml(clip(r.headline, 400)),
    "",
    ...r.facts.map((f) => `<b>${f.name}:</b> ${escapeHtml(clip(f.value, f.name === "Error" ? 1000 : 200))}`),
  ];
  if (r.links.length) lines.push("", r.links.map((l) => `<a href="${escapeHtml(l.url)}">${l.text}</a>`).join(" · "));
  return lines.join("\n");
}

export const telegram: Channel<TelegramConfig> = {
  type: "telegram",
  configSchema: telegramSpec.config,
  secretFields: telegramSpec.secretFields,
  async send(event, config, ctx, template) {
    const body = {
      chat_id: config.chat_id,
      ...(config.message_thread_id ? { message_thread_id: config.message_thread_id } : {}),
      text: telegramText(event, template),
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
    };
    try {
      // The token is in the path; `postJson` names only the host in errors, so it never leaks into history.
      const res = await postJson(ctx, "Telegram sendMessage", `${ctx.endpoints.telegram}/bot${config.bot_token}/sendMessage`, body);
      const id = (parseJson(res.text) as { result?: { message_id?: number } } | undefined)?.result?.message_id;
      return { status: res.status, providerId: id === undefined ? undefined : String(id) };
    } catch (err) {
      throw withTelegramRetryAfter(err);
    }
  },
};

/** A 429 from Telegram says how long to wait in the body (parameters.retry_after), not in a header. */
function withTelegramRetryAfter(err: unknown): unknown {
  if (!(err instanceof ChannelError) || err.status !== 429 || err.retryAfterMs !== undefined) return err;
  const seconds = (parseJson(err.body) as { parameters?: { retry_after?: number } } | undefined)?.parameters?.retry_after;
  if (typeof seconds !== "number") return err;
  return new ChannelError(err.message, { permanent: false, status: 429, body: err.body, retryAfterMs: seconds * 1000 });
}
