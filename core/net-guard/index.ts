export { classifyAddress, isIpLiteral, stripBrackets, PRIVATE_RANGES, RANGE_LABELS } from "./address-policy.ts";
export type { AddressClass, AddressRange } from "./address-policy.ts";
export {
  checkAddress,
  HostResolutionError,
  resolveAndCheck,
  systemResolver,
  TargetRefusedError,
} from "./resolve-and-check.ts";
export type { GuardOptions, HostResolver, RefusalReason, ResolvedAddress } from "./resolve-and-check.ts";
