import { describe, expect, it } from "bun:test";
import { templateVariables } from "../../schemas/channels/message-template.ts";
import { bindTemplate, escapers, formatInZone, sampleEvent, templateIssues, templateView } from "./message-template.ts";

const hostile = `<b>*Pay*</b> _now_ & ~x~ \`rm\` [click](https://evil.example) <!channel> # "q" 'a'`;
const event = () => {
  const e = sampleEvent("alert", "https://wp.example");
  return { ...e, monitor: { ...e.monitor, name: hostile } };
};
const render = (body: string, format: "html" | "slack" | "markdown" | "plain", timezone = "UTC") =>
  bindTemplate(event(), { template: { body }, timezone }, "https://wp.example")!.render("body", format);

describe("message template validation", () => {
  it("accepts every documented variable, sections on them and comments", () => {
    const body = templateVariables.map((v) => `{{${v.name}}}`).join(" ") + "{{#error}}E: {{error}}{{/error}}{{^error}}none{{/error}}{{! note }}";
    expect(templateIssues({ title: "{{monitor.name}}", body }, "body.template")).toEqual([]);
  });

  it("names each unknown variable, even inside a section, with its place", () => {
    expect(templateIssues({ title: "{{monitor.nme}}", body: "ok {{#error}}{{secret}}{{/error}}" }, "body.template")).toEqual([
      { path: "body.template.title", message: 'at 0: unknown variable "monitor.nme" (see the variables in docs/channels.md)' },
      { path: "body.template.body", message: 'at 13: unknown variable "secret" (see the variables in docs/channels.md)' },
    ]);
  });

  it("refuses syntax errors, unescaped output, partials and delimiter changes", () => {
    const issues = (body: string) => templateIssues({ body }, "t").map((i) => i.message);
    expect(issues("{{monitor.name")[0]).toStartWith("template syntax: Unclosed tag");
    expect(issues("{{#error}}x")[0]).toStartWith('template syntax: Unclosed section "error"');
    expect(issues("x{{/error}}")[0]).toStartWith('template syntax: Unopened section "error"');
    expect(issues("{{{monitor.name}}}")[0]).toContain("unescaped output");
    expect(issues("{{&monitor.name}}")[0]).toContain("unescaped output");
    expect(issues("{{>footer}}")[0]).toContain("partials");
    expect(issues("{{=<% %>=}}")[0]).toContain("delimiters");
  });
});

describe("message template rendering", () => {
  it("HTML: a hostile name cannot open a tag, an attribute or an entity", () => {
    const out = render("<p>{{monitor.name}}</p>", "html")!;
    expect(out).toBe("<p>&lt;b&gt;*Pay*&lt;/b&gt; _now_ &amp; ~x~ `rm` [click](https://evil.example) &lt;!channel&gt; # &quot;q&quot; &#39;a&#39;</p>");
  });

  it("Slack: no <!channel>, no <url|link>, no bold/italic/strike/code from a value; the author's *markup* stays", () => {
    const out = render("*{{monitor.name}}*", "slack")!;
    expect(out.startsWith("*&lt;b&gt;")).toBe(true);
    expect(out.endsWith("*")).toBe(true);
    expect(out).not.toContain("<");
    expect(out).toContain("&lt;!channel&gt;");
    // Every formatting character of the value is followed by a zero-width space, so it cannot pair up.
    expect(out.slice(1, -1).match(/[*_~`](?!\u200B)/g)).toBeNull();
    expect(out.replace(/\u200B/g, "")).toBe("*&lt;b&gt;*Pay*&lt;/b&gt; _now_ &amp; ~x~ `rm` [click](https://evil.example) &lt;!channel&gt; # \"q\" 'a'*");
  });

  it("Markdown (Discord, Teams): emphasis, code, links, headings and HTML are backslash-escaped", () => {
    const out = render("**{{monitor.name}}**", "markdown")!;
    expect(out).toBe("**\\<b\\>\\*Pay\\*\\</b\\> \\_now\\_ & \\~x\\~ \\`rm\\` \\[click\\](https://evil.example) \\<!channel\\> \\# \"q\" 'a'**");
  });

  it("plain (webhook JSON, subjects, paging tools): the value as it is; JSON encoding round-trips it", () => {
    const out = render("{{monitor.name}}", "plain")!;
    expect(out).toBe(hostile);
    expect(JSON.parse(JSON.stringify({ message: out })).message).toBe(hostile);
  });

  it("shows times in the channel's time zone, across a DST change", () => {
    expect(render("{{time}} | {{started_at}} | {{time_iso}} | {{timezone}}", "plain", "Europe/Berlin")).toBe(
      "2026-11-22 05:42:10 CET | 2026-11-22 05:37:10 CET | 2026-11-22T04:42:10.000Z | Europe/Berlin",
    );
    expect(formatInZone("2026-07-01T12:00:00Z", "Europe/Berlin")).toBe("2026-07-01 14:00:00 CEST");
    expect(formatInZone("2026-07-01T12:00:00Z", "America/New_York")).toBe("2026-07-01 08:00:00 EDT");
    expect(formatInZone("2026-12-01T12:00:00Z", "America/New_York")).toBe("2026-12-01 07:00:00 EST");
  });

  it("gives kind labels, links and optional values; a title is one line", () => {
    const recovery = sampleEvent("recovery", "https://wp.example");
    const view = templateView(recovery, "UTC", "https://wp.example");
    expect(view).toMatchObject({ kind: "recovery", kind_label: "Resolved", error: "", status: "up", links: { acknowledge: "", dashboard: "https://wp.example" } });
    const bound = bindTemplate(recovery, { template: { title: "{{kind_label}}:\n {{monitor.name}}", body: "{{^error}}no error{{/error}}" }, timezone: "UTC" }, "https://wp.example")!;
    expect(bound.render("title", "plain")).toBe("Resolved: Checkout API");
    expect(bound.render("body", "plain")).toBe("no error");
    expect(templateView(sampleEvent("alert", "https://wp.example"), "UTC", "x").links.acknowledge).toBe("https://wp.example/alerts");
  });

  it("binds nothing for a channel without a template", () => {
    expect(bindTemplate(event(), { template: null, timezone: "UTC" }, "x")).toBeUndefined();
    expect(bindTemplate(event(), { template: {}, timezone: "UTC" }, "x")).toBeUndefined();
    expect(bindTemplate(event(), { template: { body: "b" }, timezone: "UTC" }, "x")!.render("title", "plain")).toBeUndefined();
  });

  it("has an escaper for every format", () => {
    expect(Object.keys(escapers).sort()).toEqual(["html", "markdown", "plain", "slack"]);
  });
});
