import { t } from "elysia";
import { COLOR_PATTERN } from "../../../domain/status-pages/themes.ts";
import { Obj, Timestamp, DisplayName } from "../../schemas/common.ts";

const Color = t.String({ maxLength: 64, pattern: COLOR_PATTERN, description: "#rgb, #rrggbb(aa), rgb()/hsl() or a colour name" });
const Colors = Obj(
  {
    background: t.Optional(Color),
    text: t.Optional(Color),
    accent: t.Optional(Color),
    muted: t.Optional(Color),
    surface: t.Optional(Color),
    border: t.Optional(Color),
    up: t.Optional(Color),
    degraded: t.Optional(Color),
    down: t.Optional(Color),
    maintenance: t.Optional(Color),
  },
  { description: "Overrides of the light theme's colours; each becomes a CSS variable --wp-<name>" },
);
const ImageUrl = t.String({ maxLength: 2000, pattern: "^https://", description: "https URL" });
const Css = t.String({ maxLength: 20000, description: "Refused when it contains @import (other than an image), url() other than https/data images, javascript:, expression(, behavior:, -moz-binding or '<'" });

export const ThemeCreateBody = Obj({
  name: DisplayName(120),
  colors: t.Optional(Colors),
  logo_url: t.Optional(t.Union([ImageUrl, t.Null()])),
  favicon_url: t.Optional(t.Union([ImageUrl, t.Null()])),
  custom_css: t.Optional(Css),
});

export const ThemePatchBody = Obj({
  name: t.Optional(DisplayName(120)),
  colors: t.Optional(Colors),
  logo_url: t.Optional(t.Union([ImageUrl, t.Null()])),
  favicon_url: t.Optional(t.Union([ImageUrl, t.Null()])),
  custom_css: t.Optional(Css),
});

export const ThemeView = t.Object(
  {
    id: t.String(),
    name: t.String(),
    built_in: t.Boolean(),
    colors: t.Record(t.String(), t.String()),
    logo_url: t.Union([t.String(), t.Null()]),
    favicon_url: t.Union([t.String(), t.Null()]),
    custom_css: t.String(),
    created_at: t.Union([Timestamp, t.Null()]),
    updated_at: t.Union([Timestamp, t.Null()]),
  },
  { title: "Theme" },
);
