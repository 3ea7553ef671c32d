export { classifyAddress, isIpLiteral, stripBrackets, RANGE_LABELS } from "./address-policy.ts";
export {
  checkAddress,
  HostResolutionError,
  resolveAndCheck,
  TargetRefusedError,
} from "./resolve-and-check.ts";
export type { GuardOptions, HostResolver, ResolvedAddress } from "./resolve-and-check.ts";
