import { describe, expect, it } from "bun:test";
import { cssProblems } from "./css-sanitise.ts";

describe("cssProblems", () => {
  it.each([
    "@import url(https://evil.example/theme.css);",
    '@import "https://evil.example/theme.css";',
    "@import url(https://cdn.example/x.png) screen, url(//evil);",
    "a{background:url(javascript:alert(1))}",
    "a{background:url('JaVaScRiPt:alert(1)')}",
    "a{background:url(\"java\\73 cript:alert(1)\")}",
    "a{background:url(j\\61vascript:alert(1))}",
    "a{width:expression(alert(1))}",
    "a{width:expr/**/ession(alert(1))}",
    "a{width:e\\78pression(alert(1))}",
    "a{behavior:url(x.htc)}",
    "a{-moz-binding:url(x.xml#y)}",
    "</style><script>alert(1)</script>",
    "a{content:'\\3c /style>'}",
    "a{background:url(http://plain.example/img.png)}",
    "a{background:url(https://cdn.example/style.css)}",
  ])("refuses %s", (css) => {
    expect(cssProblems(css).length).toBeGreaterThan(0);
  });

  it.each([
    "",
    "h1{color:var(--wp-accent);letter-spacing:.02em}",
    "body{background:url(https://cdn.example.com/bg.png) no-repeat}",
    "body{background-image:url('data:image/png;base64,iVBORw0KGgo=')}",
    "@media (max-width:600px){h1{font-size:1.2rem}}",
    '@import url("https://cdn.example.com/pattern.svg");',
  ])("accepts %s", (css) => {
    expect(cssProblems(css)).toEqual([]);
  });
});
