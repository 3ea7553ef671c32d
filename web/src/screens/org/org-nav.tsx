import { SubNav } from "../../components/part2-ui";

export function OrgNav() {
  return (
    <SubNav
      label="Organisation"
      items={[
        ["/org", "Members"],
        ["/org/roles", "Roles"],
        ["/org/security", "Security"],
        ["/org/api-keys", "API keys"],
        ["/org/audit-log", "Audit log"],
      ]}
    />
  );
}
