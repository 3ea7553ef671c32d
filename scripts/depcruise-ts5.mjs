// Preload for dependency-cruiser 16 (`node --import ./scripts/depcruise-ts5.mjs …`): it needs TypeScript's JS API
// (typescript >=2 <6) and sees 0 modules with ours (typescript 7, native). This points "typescript" at the
// `typescript5` alias package, for require (its version check) and for import, in this process only.
import Module, { register } from "node:module";

const orig = Module._resolveFilename;
Module._resolveFilename = function (r, ...a) {
  return orig.call(this, r === "typescript" || r.startsWith("typescript/") ? r.replace(/^typescript/, "typescript5") : r, ...a);
};
register(`data:text/javascript,${encodeURIComponent('export async function resolve(s,c,n){return n(s==="typescript"?"typescript5":s,c)}')}`);
